// jinja2's `cycler(*items)` global: an object whose `next()` gives its items in turn, with `current`, `reset()`,
// `items` and `pos` as in jinja2.utils.Cycler.
import { PyError } from './errors.js';
import { AttrObject, unsafe } from './ops.js';
import { pythonBinder } from './python-call.js';
import { Callable, MISSING, makeTuple } from './values.js';

/** Python's repr of an object prints its address; a fixed one keeps renders reproducible (as for generators). */
const ADDRESS = '0x7f0000000000';

/** The cycler's methods take no argument but `self`. */
const BINDERS = {
  next: pythonBinder({ kind: 'function', signature: 'Cycler.next(self)', implicit: 1 }),
  reset: pythonBinder({ kind: 'function', signature: 'Cycler.reset(self)', implicit: 1 }),
};
const bindInit = pythonBinder({ kind: 'function', signature: 'Cycler.__init__(self, *items)', implicit: 1 });

class Cycler extends AttrObject {
  pos = 0;

  constructor(readonly items: readonly unknown[]) {
    super();
  }

  get pyClass(): string {
    return 'Cycler';
  }

  get pyModule(): string {
    return 'jinja2.utils';
  }

  pyRepr(): string {
    return `<jinja2.utils.Cycler object at ${ADDRESS}>`;
  }

  override attr(name: string): unknown {
    switch (name) {
      case 'items':
        return makeTuple(this.items.slice());
      case 'pos':
        return this.pos;
      case 'current':
        return this.items[this.pos];
      case 'next':
        return this.method('next', () => {
          const current = this.items[this.pos];
          this.pos = (this.pos + 1) % this.items.length;
          return current;
        });
      case 'reset':
        return this.method('reset', () => {
          this.pos = 0;
          return null;
        });
      case '__next__':
        // The sandbox refuses every attribute starting with '_' that the object has.
        return unsafe(this, name);
    }
    return MISSING;
  }

  private method(name: keyof typeof BINDERS, run: () => unknown): Callable {
    const bind = BINDERS[name];
    return new Callable(name, (args, kwargs) => {
      bind(args, kwargs);
      return run();
    }, 'method');
  }
}

export function newCycler(args: unknown[], kwargs: Record<string, unknown> | null): Cycler {
  bindInit(args, kwargs);
  if (args.length === 0) throw new PyError('RuntimeError', 'at least one item has to be provided');
  return new Cycler(args);
}
