import { RegexBudgetError, Visited, type MemoMeter } from './memo.js';
import type { Inst, Program } from './program.js';
import { isWordCp } from './unicode.js';

export { RegexBudgetError, Visited } from './memo.js';

/**
 * Backtracking matcher over code points with two safety nets. Without backreferences a (instruction, position) state
 * that was explored once is never explored again during one search (its success cannot depend on captures), which
 * bounds a search by program size × text length however the pattern nests quantifiers (RE2's bit-state idea, kept
 * across start positions: a state that failed from one start fails from any later start). The memo itself is paged
 * and capped (memo.ts). Every search also has a step budget, which is what stops backreference patterns that would
 * otherwise backtrack exponentially.
 * The matcher records whether an attempt needed input beyond the end (`hitEnd`): that is the `regex` module's
 * partial match, which JS RegExp cannot report.
 */
export interface SearchContext {
  readonly input: string;
  readonly n: number;
  /** Lowest position searched: memo tables are indexed from here. */
  readonly base: number;
  steps: number;
  readonly budget: number;
  readonly slotCount: number;
  readonly trimmed: boolean;
  readonly lookMemo: Map<number, LookResult>;
  readonly lookVisited: Map<number, Visited>;
  readonly memo: MemoMeter;
  /** Backtrack stack shared by the search's attempts and their nested lookarounds (each works above its own floor). */
  readonly stack: number[];
}

export interface LookResult { ok: boolean; hitEnd: boolean; touched: boolean; caps?: Int32Array }

export interface Attempt {
  prog: Program;
  start: number;
  caps: Int32Array;
  visited: Visited | null;
  /** Reads stop here (a lookbehind must end at its own position); hitting it counts as hitting the end only at n. */
  limit: number;
  /** When set, the match must end exactly here (lookbehind). */
  matchEnd: number;
  /** When set, an empty match at this position is refused (finditer after an empty match). */
  notEmptyAt: number;
  hitEnd: boolean;
  /**
   * The attempt looked at the end of the input in any way (read past it, or an assertion that more text would
   * change): only such attempts can turn out differently once text is appended.
   */
  touched: boolean;
}

export function cpAt(input: string, pos: number): number {
  const c = input.charCodeAt(pos);
  if (c >= 0xd800 && c <= 0xdbff && pos + 1 < input.length) {
    const d = input.charCodeAt(pos + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
  }
  return c;
}

function cpBefore(input: string, pos: number): number {
  const d = input.charCodeAt(pos - 1);
  if (d >= 0xdc00 && d <= 0xdfff && pos >= 2) {
    const c = input.charCodeAt(pos - 2);
    if (c >= 0xd800 && c <= 0xdbff) return ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
  }
  return d;
}

const BRANCH = 0, RESTORE = 1;

/** Runs one anchored attempt; on success `a.caps` holds the captures. */
export function run(ctx: SearchContext, a: Attempt): boolean {
  const { input, n } = ctx;
  const insts = a.prog.insts;
  const caps = a.caps;
  const stack = ctx.stack;
  const floor = stack.length;
  let pc = 0, pos = a.start;
  for (;;) {
    for (;;) {
      if (++ctx.steps > ctx.budget) throw new RegexBudgetError('steps', 'regex step budget exceeded');
      if (a.visited && !a.visited.mark(pc, pos)) break;
      const inst: Inst = insts[pc]!;
      if (inst.op === 'char' || inst.op === 'set') {
        if (pos >= a.limit) { if (pos >= n) a.hitEnd = a.touched = true; break; }
        const cp = cpAt(input, pos);
        if (inst.op === 'char' ? cp !== inst.cp : !inst.test(cp)) break;
        pos += cp > 0xffff ? 2 : 1;
        pc++;
      } else if (inst.op === 'split') {
        if (inst.skip && pos < n && a.limit >= n) {
          const to = skipLazy(ctx, a, pc, pos, inst.skip);
          if (to < 0) break;
          pos = to;
        }
        stack.push(BRANCH, inst.y, pos);
        pc = inst.x;
      } else if (inst.op === 'jmp') {
        pc = inst.x;
      } else if (inst.op === 'save') {
        stack.push(RESTORE, inst.slot, caps[inst.slot]!);
        caps[inst.slot] = pos;
        pc++;
      } else if (inst.op === 'progress') {
        pc = caps[inst.slot] === pos ? inst.exit : pc + 1;
      } else if (inst.op === 'assert') {
        if (inst.kind === 'end' ? pos >= n - 1 : inst.kind !== 'start' && pos === n) a.touched = true;
        if (!assertion(inst.kind, input, n, pos) || (inst.kind === 'start' && ctx.trimmed)) break;
        pc++;
      } else if (inst.op === 'look') {
        const r = look(ctx, inst as Inst & { op: 'look' }, pos, caps);
        if (r.hitEnd) a.hitEnd = true;
        if (r.touched) a.touched = true;
        if (r.ok === inst.neg) break;
        if (!inst.neg && r.caps) {
          for (let s = 2; s < caps.length; s++) {
            if (r.caps[s] !== caps[s]) { stack.push(RESTORE, s, caps[s]!); caps[s] = r.caps[s]!; }
          }
        }
        pc++;
      } else if (inst.op === 'backref') {
        const from = caps[2 * inst.group]!, to = caps[2 * inst.group + 1]!;
        if (from < 0 || to < 0) break;
        const length = to - from;
        const same = sameRun(input, from, pos, Math.min(length, a.limit - pos));
        if (same === length) { pos += length; pc++; continue; }
        // The text ran out while it still agreed with the group: more text could complete the reference.
        if (a.limit >= n && pos + same === n) a.hitEnd = a.touched = true;
        break;
      } else {
        if ((a.matchEnd >= 0 && pos !== a.matchEnd) || (pos === a.start && a.start === a.notEmptyAt)) break;
        stack.length = floor;
        return true;
      }
    }
    // Backtrack: undo capture writes down to the most recent branch.
    for (;;) {
      if (stack.length === floor) return false;
      const b = stack.pop()!, x = stack.pop()!, kind = stack.pop()!;
      if (kind === RESTORE) { caps[x] = b; continue; }
      pc = x;
      pos = b;
      break;
    }
  }
}

/**
 * A lazy `.*?` at `pos` whose continuation can only start with one of `units`: the continuation fails at once
 * wherever the text has none of them, so the loop moves to the next position that has one (or the end). The
 * positions passed over are memoised as a step each would have been, and a position already memoised ends the
 * loop as it would have (-1), so work stays bounded exactly as without the shortcut.
 */
function skipLazy(ctx: SearchContext, a: Attempt, pc: number, pos: number, units: Uint16Array): number {
  const { input, n } = ctx;
  const landing = nextUnit(input, pos, n, units);
  if (landing === pos) return pos;
  const seen = a.visited ? a.visited.markRun(pc, pos + 1, landing) : -1;
  ctx.steps += (seen >= 0 ? seen : landing) - pos;
  if (ctx.steps > ctx.budget) throw new RegexBudgetError('steps', 'regex step budget exceeded');
  return seen >= 0 ? -1 : landing;
}

/** The first position from `pos` holding one of `units`, or n. */
function nextUnit(input: string, pos: number, n: number, units: Uint16Array): number {
  if (units.length === 1) {
    const at = input.indexOf(String.fromCharCode(units[0]!), pos);
    return at < 0 ? n : at;
  }
  if (units.length === 2) {
    const u0 = units[0]!, u1 = units[1]!;
    for (let q = pos; q < n; q++) {
      const c = input.charCodeAt(q);
      if (c === u0 || c === u1) return q;
    }
    return n;
  }
  for (let q = pos; q < n; q++) if (units.includes(input.charCodeAt(q))) return q;
  return n;
}

/** How many UTF-16 units from `a` and from `b` agree, up to `max`. */
function sameRun(input: string, a: number, b: number, max: number): number {
  let k = 0;
  while (k < max && input.charCodeAt(a + k) === input.charCodeAt(b + k)) k++;
  return k;
}

function assertion(kind: string, input: string, n: number, pos: number): boolean {
  switch (kind) {
    case 'start': return pos === 0;
    case 'endZ': return pos === n;
    // Python `$` without MULTILINE: the end, or just before a final newline.
    case 'end': return pos === n || (pos === n - 1 && input.charCodeAt(pos) === 10);
    default: {
      const before = pos > 0 && isWordCp(cpBefore(input, pos));
      const after = pos < n && isWordCp(cpAt(input, pos));
      return (before !== after) === (kind === 'word');
    }
  }
}

function look(ctx: SearchContext, inst: Inst & { op: 'look' }, pos: number, caps: Int32Array): LookResult {
  // Without captures inside, the result depends on the position only.
  const key = pos * 65536 + inst.id;
  if (!inst.captures) {
    const memo = ctx.lookMemo.get(key);
    if (memo) return memo;
  }
  const result = inst.ahead ? lookahead(ctx, inst, pos, caps) : lookbehind(ctx, inst, pos, caps);
  if (!inst.captures) ctx.lookMemo.set(key, result);
  return result;
}

function lookahead(ctx: SearchContext, inst: Inst & { op: 'look' }, pos: number, caps: Int32Array): LookResult {
  let visited: Visited | null = null;
  if (inst.prog.memo) {
    visited = ctx.lookVisited.get(inst.id) ?? new Visited(inst.prog, ctx.base, ctx.memo);
    ctx.lookVisited.set(inst.id, visited);
  }
  const a: Attempt = { prog: inst.prog, start: pos, caps: Int32Array.from(caps), visited, limit: ctx.n, matchEnd: -1, notEmptyAt: -1, hitEnd: false, touched: false };
  const ok = run(ctx, a);
  // States on a successful path did not fail: the shared table is only valid while every run failed.
  if (ok && visited) { visited.dispose(); ctx.lookVisited.delete(inst.id); }
  // The regex module reports a partial match through a positive lookaround only; a negative one that ran out of
  // input counts as not matching.
  return { ok, hitEnd: !inst.neg && a.hitEnd, touched: a.touched, ...(ok && inst.captures ? { caps: a.caps } : {}) };
}

function lookbehind(ctx: SearchContext, inst: Inst & { op: 'look' }, pos: number, caps: Int32Array): LookResult {
  let start = pos;
  let touched = false;
  for (let w = 0; w <= inst.maxW && start >= 0; w++) {
    if (w >= inst.minW) {
      const visited = inst.prog.memo ? new Visited(inst.prog, start, ctx.memo) : null;
      const a: Attempt = { prog: inst.prog, start, caps: Int32Array.from(caps), visited, limit: pos, matchEnd: pos, notEmptyAt: -1, hitEnd: false, touched: false };
      let ok: boolean;
      try { ok = run(ctx, a); } finally { visited?.dispose(); }
      touched ||= a.touched;
      if (ok) return { ok: true, hitEnd: false, touched, ...(inst.captures ? { caps: a.caps } : {}) };
    }
    if (start === 0) break;
    start -= start >= 2 && cpBefore(ctx.input, start) > 0xffff ? 2 : 1;
  }
  return { ok: false, hitEnd: false, touched };
}
