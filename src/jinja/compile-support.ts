// Runtime helpers of the compiled closures: statement bodies, capture buffers, call depth, callee dispatch.
import type { Stmt, Target } from './ast.js';
import { LimitError, typeError } from './errors.js';
import { AttrObject, callValue } from './ops.js';
import { LoopContext, type RenderState } from './runtime.js';
import type { Frame } from './scope.js';
import { pyStr } from './repr.js';
import { Callable, pyTypeName } from './values.js';

/** Statement closures return 0 (next), 1 (break) or 2 (continue). */
export type Ex = (s: RenderState, f: Frame) => number;
/** Expression closures. */
export type Ev = (s: RenderState, f: Frame) => unknown;
/** Assignment to a target (name, tuple, namespace attribute) in a scope. */
export type Assign = (f: Frame, value: unknown) => void;
export type Kwargs = Record<string, unknown> | null;

export function runBody(body: Ex[], s: RenderState, f: Frame): number {
  for (let i = 0; i < body.length; i++) {
    const r = body[i]!(s, f);
    if (r !== 0) return r;
  }
  return 0;
}

/** Writes a printed value to the output, within limits.outputChars. */
export function emit(s: RenderState, v: unknown): void {
  s.out += typeof v === 'string' ? v : pyStr(v);
  if (s.out.length > s.limits.outputChars) s.checkOutput();
}

/** What `run` writes, in a fresh buffer (a recursive loop's call, a reusable block's run); capture's general form. */
export function captureRun(s: RenderState, run: () => void): string {
  const saved = s.out;
  s.out = '';
  s.capture++;
  try {
    run();
    return s.out;
  } finally {
    s.capture--;
    s.out = saved;
  }
}

/** Renders body into a fresh buffer and returns it (a macro call: no closure for the run). */
export function capture(body: Ex[], s: RenderState, f: Frame): string {
  const saved = s.out;
  s.out = '';
  s.capture++;
  try {
    runBody(body, s, f);
    return s.out;
  } finally {
    s.capture--;
    s.out = saved;
  }
}

export function enter(s: RenderState): void {
  if (++s.calls > s.limits.calls) throw new LimitError(`more than ${s.limits.calls} calls (limits.calls)`);
  if (++s.depth > s.limits.callDepth) throw new LimitError(`maximum recursion depth (${s.limits.callDepth}) exceeded (limits.callDepth)`, 'RecursionError');
}

export function usesName(node: unknown, name: string): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) if (usesName(node[i], name)) return true;
    return false;
  }
  const rec = node as Record<string, unknown>;
  if (rec.k === 'name' && rec.name === name) return true;
  // AST nodes are plain object literals: for-in sees exactly their own fields, without a keys array per node.
  for (const key in rec) {
    const child = rec[key];
    if (child !== null && typeof child === 'object' && usesName(child, name)) return true;
  }
  return false;
}

/**
 * Every name the nodes mention, at any depth: reads, assignment targets, namespace attribute targets (which read the
 * namespace). What a reusable block (reuse.ts) must key besides its arguments is among them.
 */
export function mentionedNames(node: unknown, into = new Set<string>()): Set<string> {
  if (node === null || typeof node !== 'object') return into;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) mentionedNames(node[i], into);
    return into;
  }
  const rec = node as Record<string, unknown>;
  if ((rec.k === 'name' || rec.k === 'nsref') && typeof rec.name === 'string') into.add(rec.name);
  for (const key in rec) {
    const child = rec[key];
    if (child !== null && typeof child === 'object') mentionedNames(child, into);
  }
  return into;
}

/** Whether a `{% generation %}` block is among the statements, at any depth (only statements hold statements). */
export function hasGeneration(stmts: Stmt[]): boolean {
  for (const stmt of stmts) {
    if (stmt.k === 'generation') return true;
    if ('body' in stmt && hasGeneration(stmt.body)) return true;
    if ('otherwise' in stmt && hasGeneration(stmt.otherwise)) return true;
  }
  return false;
}

/** Whether statements assign variables in their own scope (set, set block, macro), outside nested loops/macros. */
export function assignsInScope(stmts: Stmt[]): boolean {
  for (const stmt of stmts) {
    if (stmt.k === 'set' || stmt.k === 'setblock' || stmt.k === 'macro') return true;
    if (stmt.k === 'if' && (assignsInScope(stmt.body) || assignsInScope(stmt.otherwise))) return true;
    if ((stmt.k === 'generation' || stmt.k === 'filterblock') && assignsInScope(stmt.body)) return true;
  }
  return false;
}

/** Whether any statement, at any depth, defines a macro or a caller block (each closes over its scope). */
export function definesClosures(stmts: Stmt[]): boolean {
  for (const stmt of stmts) {
    if (stmt.k === 'macro' || stmt.k === 'callblock') return true;
    if ('body' in stmt && definesClosures(stmt.body)) return true;
    if ('otherwise' in stmt && definesClosures(stmt.otherwise)) return true;
  }
  return false;
}

/**
 * Names a read must look up through the scope chain: those some statement binds in a scope other than the root
 * (loop targets, anything set inside a loop, macro, caller, with, scope, set, filter or generation block, macro
 * parameters) and the names the engine binds itself. Any other name lives in the render's root scope (a variable, a
 * global, or set by a top-level statement), where its reads go straight.
 */
export function scopedNames(stmts: Stmt[], nested = false, into = new Set<string>(['loop', 'caller', 'varargs', 'kwargs'])): Set<string> {
  const addTarget = (target: Target): void => {
    if (target.k === 'name') into.add(target.name);
    else if (target.k === 'tuple') for (const item of target.items) addTarget(item);
  };
  for (const stmt of stmts) {
    switch (stmt.k) {
      case 'set':
        if (nested) addTarget(stmt.target);
        break;
      case 'setblock':
        if (nested) addTarget(stmt.target);
        // Its body has a scope of its own (compile.ts), as a filter block's and a generation block's.
        scopedNames(stmt.body, true, into);
        break;
      case 'macro':
        if (nested) into.add(stmt.name);
        for (const param of stmt.params) into.add(param.name);
        scopedNames(stmt.body, true, into);
        break;
      case 'for':
        addTarget(stmt.target);
        scopedNames(stmt.body, true, into);
        scopedNames(stmt.otherwise, true, into);
        break;
      case 'with':
        for (const target of stmt.targets) addTarget(target);
        scopedNames(stmt.body, true, into);
        break;
      case 'callblock':
        for (const param of stmt.params) into.add(param.name);
        scopedNames(stmt.body, true, into);
        break;
      case 'scope':
        scopedNames(stmt.body, true, into);
        break;
      case 'if':
        scopedNames(stmt.body, nested, into);
        scopedNames(stmt.otherwise, nested, into);
        break;
      case 'generation':
      case 'filterblock':
        scopedNames(stmt.body, true, into);
        break;
    }
  }
  return into;
}

export function invoke(callee: unknown, args: unknown[], kwargs: Kwargs): unknown {
  // Macros and builtins first (a Callable is neither a loop object nor another attribute object).
  if (callee instanceof Callable) return callee.call(args, kwargs);
  if (callee instanceof LoopContext) {
    if (!callee.recurse) throw typeError("'LoopContext' object is not callable");
    return callee.recurse(args, kwargs);
  }
  if (callee instanceof AttrObject) throw typeError(`'${pyTypeName(callee)}' object is not callable`);
  return callValue(callee, args, kwargs);
}

