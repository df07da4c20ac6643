// Variable scopes of a render: the root scope's slots and the chain of inner scopes.

/**
 * A variable scope: template root, loop iteration, macro call, with-block. The root scope (no parent) keeps its
 * values in slots, one per name the template mentions, numbered at compile time (RootSlots): a read that reaches the
 * root indexes an array instead of searching names.
 */
export class Frame {
  // Most scopes hold one variable (a loop iteration's item, a macro's only parameter): it lives in two fields. A few
  // more go to one short array of name, value pairs, searched in order (cheaper than hashing at this size, emptied by a
  // count reset, and one allocation where separate name and value arrays took two); past SMALL_SCOPE names a Map
  // takes over.
  private firstName: string | null = null;
  private firstValue: unknown = undefined;
  private pairs: unknown[] | null = null;
  /** How many pairs are live: clearing resets it and keeps the array for the next iteration. */
  private count = 0;
  private vars: Map<string, unknown> | null = null;
  private constructor(
    readonly parent: Frame | null,
    /** The root's values by slot; null in every other scope. */
    readonly slots: unknown[] | null,
  ) {}

  static root(slots: unknown[]): Frame {
    return new Frame(null, slots);
  }

  /** The value of name, which the compiler gave root slot `slot`: the innermost scope holding it, else the root's. */
  get(name: string, slot: number): unknown {
    let scope: Frame = this;
    let parent = scope.parent;
    while (parent !== null) {
      if (scope.firstName === name) {
        const v = scope.firstValue;
        if (v !== undefined) return v;
      }
      const pairs: unknown[] | null = scope.pairs;
      if (pairs !== null) {
        for (let i = 0, n = 2 * scope.count; i < n; i += 2) {
          if (pairs[i] === name) {
            const v = pairs[i + 1];
            if (v !== undefined) return v;
            break;
          }
        }
      } else if (scope.vars !== null) {
        const v = scope.vars.get(name);
        if (v !== undefined) return v;
      }
      scope = parent;
      parent = scope.parent;
    }
    return scope.slots![slot];
  }

  /** Whether this scope itself (not a parent) holds name. */
  has(name: string): boolean {
    if (this.firstName === name) return true;
    if (this.pairs !== null) {
      for (let i = 0; i < 2 * this.count; i += 2) if (this.pairs[i] === name) return true;
      return false;
    }
    return this.vars !== null && this.vars.has(name);
  }

  /** Binds name in this scope; in the root scope, its slot. */
  set(name: string, value: unknown, slot = -1): void {
    if (this.slots !== null) {
      this.slots[slot] = value;
      return;
    }
    if (this.firstName === null || this.firstName === name) {
      this.firstName = name;
      this.firstValue = value;
      return;
    }
    if (this.vars !== null) {
      this.vars.set(name, value);
      return;
    }
    const pairs = this.pairs;
    if (pairs === null) {
      // Most scopes with a second name (a macro's two parameters, a loop body's one set) have no third: no spare room.
      this.pairs = [name, value];
      this.count = 1;
      return;
    }
    const end = 2 * this.count;
    for (let i = 0; i < end; i += 2) {
      if (pairs[i] === name) {
        pairs[i + 1] = value;
        return;
      }
    }
    if (this.count < SMALL_SCOPE) {
      pairs[end] = name;
      pairs[end + 1] = value;
      this.count++;
    } else {
      const vars = new Map<string, unknown>();
      for (let i = 0; i < end; i += 2) vars.set(pairs[i] as string, pairs[i + 1]);
      vars.set(name, value);
      this.vars = vars;
      this.pairs = null;
      this.count = 0;
    }
  }

  child(): Frame {
    return new Frame(this, null);
  }

  /** Forgets every name of this scope (a loop's iteration scope, reused for the next iteration). */
  clear(): void {
    this.firstName = null;
    this.firstValue = undefined;
    // Entries past count are never read; they are overwritten as names are set again.
    this.count = 0;
    this.vars = null;
  }
}
const SMALL_SCOPE = 16;

/**
 * The root scope's layout, fixed when a template is compiled: one slot per name the template mentions (read, set,
 * loop target, macro, parameter), so a root read is an array index. A render starts from the globals' values and lays
 * its variables over them; a variable the template never names has no slot, as nothing could read it.
 */
export class RootSlots {
  private readonly slotOf = new Map<string, number>();
  private readonly names: string[] = [];

  slot(name: string): number {
    let slot = this.slotOf.get(name);
    if (slot === undefined) {
      slot = this.names.length;
      this.slotOf.set(name, slot);
      this.names.push(name);
    }
    return slot;
  }

  /** The globals' values by slot, built at the first render (every slot is numbered by then). */
  private initial: unknown[] | null = null;

  /** The root scope of one render: the globals, and over them the variables. */
  root(variables: Record<string, unknown>, globals: ReadonlyMap<string, unknown>): Frame {
    if (this.initial === null || this.initial.length !== this.names.length) this.initial = this.names.map((name) => globals.get(name));
    const slots = this.initial.slice();
    for (const key of Object.keys(variables)) {
      const slot = this.slotOf.get(key);
      if (slot === undefined) continue;
      const value = variables[key];
      if (value !== undefined) slots[slot] = value;
    }
    return Frame.root(slots);
  }
}
