import type { Program } from './program.js';

/**
 * Why a search stopped: `steps` (the backtracking budget) or `memo` (the visited-state table outgrew its cap). Both
 * mean the pattern is pathological on this text; the caller reports a limit error instead of running on.
 */
export class RegexBudgetError extends Error {
  constructor(readonly resource: 'steps' | 'memo', message: string) {
    super(message);
  }
}

/** Positions per memo page (a power of two). */
const PAGE_SHIFT = 10;
const PAGE_MASK = (1 << PAGE_SHIFT) - 1;
/**
 * Visited-state bits one search may hold at once (8 MiB). Only patterns whose attempts run far ahead while carrying
 * many memoised states at every position get near it; stopping there bounds memory whatever the text size.
 */
export const MAX_MEMO_BITS = 1 << 26;
/** Freed pages a program keeps for its next search (so a search allocates nothing in the steady state). */
const POOL_PAGES = 64;

/** Live memo bits of one search, across its main table and its lookarounds' tables. */
export interface MemoMeter { live: number; peak: number }

/**
 * Set of (memo column, position) states, in pages of 1,024 positions allocated when an attempt first reaches them.
 * An attempt only reads forward from its start, so pages wholly before the current start are dead: `release` hands
 * them back. A search therefore holds memo only for the stretch its attempts can still visit (a few pages for a
 * delimiter of bounded width), never a table sized to the remaining buffer.
 */
export class Visited {
  private readonly pages: Array<Uint32Array | undefined> = [];
  /** Page index (relative to base) of pages[0]. */
  private low = 0;
  private readonly slots: Int32Array;
  private readonly width: number;
  private readonly pageBits: number;

  constructor(private readonly prog: Program, private readonly base: number, private readonly meter: MemoMeter) {
    this.slots = prog.memoSlot;
    this.width = prog.memoWidth;
    this.pageBits = this.width << PAGE_SHIFT;
  }

  /** Marks the state; returns false when it had been seen already. */
  mark(pc: number, pos: number): boolean {
    const column = this.slots[pc]!;
    if (column < 0 || pos < this.base) return true;
    const rel = pos - this.base;
    const index = (rel >>> PAGE_SHIFT) - this.low;
    // Below the released pages: no attempt reads there (kept permissive rather than wrong).
    if (index < 0) return true;
    const page = this.pages[index] ?? this.allocate(index);
    const key = (rel & PAGE_MASK) * this.width + column;
    const word = key >>> 5, bit = 1 << (key & 31);
    if (page[word]! & bit) return false;
    page[word]! |= bit;
    return true;
  }

  /**
   * Marks the states of one instruction at every position in [from, to], stopping at the first that had been seen:
   * returns that position (states after it are left alone), or -1 when all were new. A run of marks for the lazy-loop
   * shortcut costs one page lookup per 1,024 positions instead of one per position.
   */
  markRun(pc: number, from: number, to: number): number {
    const column = this.slots[pc]!;
    if (column < 0) return -1;
    const width = this.width;
    let p = Math.max(from, this.base);
    while (p <= to) {
      const rel = p - this.base;
      const index = (rel >>> PAGE_SHIFT) - this.low;
      const pageEnd = Math.min(to, this.base + ((((rel >>> PAGE_SHIFT) + 1) << PAGE_SHIFT) - 1));
      if (index < 0) { p = pageEnd + 1; continue; }
      const page = this.pages[index] ?? this.allocate(index);
      for (let key = (rel & PAGE_MASK) * width + column; p <= pageEnd; p++, key += width) {
        const word = key >>> 5, bit = 1 << (key & 31);
        if (page[word]! & bit) return p;
        page[word]! |= bit;
      }
    }
    return -1;
  }

  /** Frees the pages that lie wholly before `pos` (no later attempt starts before it). */
  release(pos: number): void {
    const drop = ((pos - this.base) >>> PAGE_SHIFT) - this.low;
    if (drop <= 0) return;
    for (const page of this.pages.splice(0, drop)) if (page) this.recycle(page);
    this.low += drop;
  }

  /** Hands every page back (end of the search). */
  dispose(): void {
    for (const page of this.pages) if (page) this.recycle(page);
    this.pages.length = 0;
  }

  private allocate(index: number): Uint32Array {
    const meter = this.meter;
    if (meter.live + this.pageBits > MAX_MEMO_BITS) {
      throw new RegexBudgetError('memo', `regex memo exceeded ${MAX_MEMO_BITS >>> 23} MiB`);
    }
    meter.live += this.pageBits;
    if (meter.live > meter.peak) meter.peak = meter.live;
    const reused = this.prog.pool.pop();
    const page = reused ? reused.fill(0) : new Uint32Array((this.pageBits >>> 5) + 1);
    while (this.pages.length < index) this.pages.push(undefined);
    this.pages[index] = page;
    return page;
  }

  private recycle(page: Uint32Array): void {
    this.meter.live -= this.pageBits;
    if (this.prog.pool.length < POOL_PAGES) this.prog.pool.push(page);
  }
}
