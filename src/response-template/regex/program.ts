import { ANY, hasBackref, hasGroup, widthOf, type CpTest, type Node } from './ast.js';
import { RegexSyntaxError } from './parse.js';

export type AssertKind = 'start' | 'end' | 'endZ' | 'word' | 'nonword';

export type Inst =
  | { op: 'char'; cp: number }
  | { op: 'set'; test: CpTest }
  /** `skip`: set on the head of a lazy `.*?` whose continuation must start with one of these UTF-16 units (see lazySkips). */
  | { op: 'split'; x: number; y: number; skip?: Uint16Array }
  | { op: 'jmp'; x: number }
  | { op: 'save'; slot: number }
  | { op: 'progress'; slot: number; exit: number }
  | { op: 'assert'; kind: AssertKind }
  | { op: 'look'; id: number; ahead: boolean; neg: boolean; prog: Program; minW: number; maxW: number; captures: boolean }
  | { op: 'backref'; group: number }
  | { op: 'match' };

export interface Program {
  insts: Inst[];
  /** Whether (instruction, position) states can be memoised: true unless the pattern has backreferences. */
  memo: boolean;
  /**
   * Memo column of each instruction, -1 for none. Only jump targets are memoised: a path can only reach a state a
   * second time through one of them, so that suffices to bound the work, and keeps the table small.
   */
  memoSlot: Int32Array;
  memoWidth: number;
  /** Memo pages freed by earlier searches of this program, reused by the next (see memo.ts). */
  pool: Uint32Array[];
}

/** Instruction budget per pattern (repeat counts are expanded into copies). */
const MAX_INSTS = 20_000;
/** Lookbehind bodies are tried at every width they can have; cap it so one assertion stays cheap. */
const MAX_LOOKBEHIND = 255;

export interface CompiledProgram {
  program: Program;
  /** Capture slots (2 per group incl. group 0) followed by empty-iteration registers. */
  slotCount: number;
  lookCount: number;
}

export function compileProgram(root: Node, groupCount: number): CompiledProgram {
  const c = new Compiler(groupCount, !hasBackref(root));
  const program = c.program(root, true);
  return { program, slotCount: c.nextSlot, lookCount: c.lookCount };
}

/** Distinct code units a lazy loop's continuation may start with, at most; more and the loop runs as compiled. */
const MAX_SKIP_UNITS = 4;

/**
 * Marks lazy `.*?` loops (split exit/body, ANY, jmp back) whose continuation can only go on at a few BMP characters:
 * the matcher then steps over the positions where the continuation fails at once, instead of trying it at each
 * (the `<|"|>(.*?)<|"|>` and `(?P<value>.*?)\n?</parameter>` of response templates spend most of their time there).
 */
function lazySkips(insts: Inst[]): void {
  insts.forEach((inst, at) => {
    if (inst.op !== 'split' || inst.y !== at + 1 || inst.x !== at + 3) return;
    const body = insts[at + 1], back = insts[at + 2];
    if (body?.op !== 'set' || body.test !== ANY || back?.op !== 'jmp' || back.x !== at) return;
    const units = firstUnits(insts, inst.x);
    if (units) inst.skip = Uint16Array.from(units);
  });
}

/** The code units the path from `pc` must consume first, or null when it could do anything else first. */
function firstUnits(insts: Inst[], pc: number): number[] | null {
  const units = new Set<number>(), seen = new Set<number>(), todo = [pc];
  while (todo.length > 0) {
    const at = todo.pop()!;
    if (seen.has(at)) continue;
    seen.add(at);
    const inst = insts[at];
    if (!inst) return null;
    if (inst.op === 'char') {
      if (inst.cp > 0xffff || (inst.cp >= 0xd800 && inst.cp <= 0xdfff)) return null;
      units.add(inst.cp);
    } else if (inst.op === 'save') todo.push(at + 1);
    else if (inst.op === 'jmp') todo.push(inst.x);
    else if (inst.op === 'split') todo.push(inst.x, inst.y);
    else return null;
    if (units.size > MAX_SKIP_UNITS) return null;
  }
  return [...units];
}

class Compiler {
  nextSlot: number;
  lookCount = 0;
  private total = 0;

  constructor(groupCount: number, private readonly memo: boolean) {
    this.nextSlot = 2 * (groupCount + 1);
  }

  program(root: Node, saveWhole: boolean): Program {
    const insts: Inst[] = [];
    if (saveWhole) insts.push({ op: 'save', slot: 0 });
    this.emit(root, insts);
    if (saveWhole) insts.push({ op: 'save', slot: 1 });
    insts.push({ op: 'match' });
    const targets = new Set<number>([0]);
    for (const inst of insts) {
      if (inst.op === 'split') { targets.add(inst.x); targets.add(inst.y); }
      if (inst.op === 'jmp') targets.add(inst.x);
      if (inst.op === 'progress') targets.add(inst.exit);
    }
    lazySkips(insts);
    const memoSlot = new Int32Array(insts.length).fill(-1);
    let memoWidth = 0;
    for (const pc of [...targets].sort((a, b) => a - b)) if (pc < insts.length) memoSlot[pc] = memoWidth++;
    return { insts, memo: this.memo, memoSlot, memoWidth, pool: [] };
  }

  private push(insts: Inst[], inst: Inst): number {
    if (++this.total > MAX_INSTS) throw new RegexSyntaxError('pattern too large (repeat counts expand beyond the engine budget)');
    insts.push(inst);
    return insts.length - 1;
  }

  private emit(node: Node, out: Inst[]): void {
    switch (node.t) {
      case 'empty': return;
      case 'char': this.push(out, { op: 'char', cp: node.cp }); return;
      case 'set': this.push(out, { op: 'set', test: node.test }); return;
      case 'assert': this.push(out, { op: 'assert', kind: node.kind }); return;
      case 'backref': this.push(out, { op: 'backref', group: node.index }); return;
      case 'cat': for (const item of node.items) this.emit(item, out); return;
      case 'group':
        this.push(out, { op: 'save', slot: 2 * node.index });
        this.emit(node.body, out);
        this.push(out, { op: 'save', slot: 2 * node.index + 1 });
        return;
      case 'alt': {
        const jumps: number[] = [];
        node.items.forEach((item, k) => {
          if (k < node.items.length - 1) {
            const split = this.push(out, { op: 'split', x: 0, y: 0 });
            (out[split] as { x: number }).x = split + 1;
            this.emit(item, out);
            jumps.push(this.push(out, { op: 'jmp', x: 0 }));
            (out[split] as { y: number }).y = out.length;
          } else this.emit(item, out);
        });
        for (const j of jumps) (out[j] as { x: number }).x = out.length;
        return;
      }
      case 'repeat': this.repeat(node, out); return;
      case 'look': {
        const { min, max } = widthOf(node.body);
        if (!node.ahead && max === Infinity) throw new RegexSyntaxError('lookbehind of unbounded width is not supported');
        if (!node.ahead && max > MAX_LOOKBEHIND) throw new RegexSyntaxError(`lookbehind wider than ${MAX_LOOKBEHIND} characters is not supported`);
        const prog = this.program(node.body, false);
        this.push(out, { op: 'look', id: this.lookCount++, ahead: node.ahead, neg: node.neg, prog, minW: min, maxW: max, captures: hasGroup(node.body) });
        return;
      }
    }
  }

  private repeat(node: Node & { t: 'repeat' }, out: Inst[]): void {
    for (let k = 0; k < node.min; k++) this.emit(node.body, out);
    if (node.max === Infinity) {
      // An iteration that consumes nothing leaves the loop with its captures kept, as Python's matcher does.
      const nullable = widthOf(node.body).min === 0;
      const reg = nullable ? this.nextSlot++ : -1;
      const head = this.push(out, { op: 'split', x: 0, y: 0 });
      if (nullable) this.push(out, { op: 'save', slot: reg });
      this.emit(node.body, out);
      const progress = nullable ? this.push(out, { op: 'progress', slot: reg, exit: 0 }) : -1;
      this.push(out, { op: 'jmp', x: head });
      if (nullable) (out[progress] as { exit: number }).exit = out.length;
      this.setSplit(out, head, head + 1, out.length, node.greedy);
      return;
    }
    const splits: number[] = [];
    for (let k = node.min; k < node.max; k++) {
      splits.push(this.push(out, { op: 'split', x: 0, y: 0 }));
      this.emit(node.body, out);
    }
    for (const s of splits) this.setSplit(out, s, s + 1, out.length, node.greedy);
  }

  private setSplit(out: Inst[], at: number, body: number, exit: number, greedy: boolean): void {
    out[at] = greedy ? { op: 'split', x: body, y: exit } : { op: 'split', x: exit, y: body };
  }
}
