// Read paths: a name followed by attribute and constant-key reads (`message.role`, `tool['function']['name']`,
// `message.content is defined`), the expressions chat templates evaluate most. Each read is its own node, and compiled
// one closure per node a path of three reads made four calls; here the name's read and every step run in one closure.
// Each step is the closure the node alone would apply (attrReader, itemRead, or a presence test last), in the same
// order, so the value, the Undefined a missing name gives and every error are those of the nested form.
import type { Expr } from './ast.js';
import { attrReader } from './ops.js';
import type { RenderState } from './runtime.js';
import type { Frame } from './scope.js';
import { Undefined } from './values.js';
import { itemRead } from './compile-shapes.js';

/** One step of a path: what an attribute read, a constant-key read or a presence test does to the value before it. */
export type Step = (obj: unknown) => unknown;

/** A path's parts: the name it starts from and its steps in evaluation order, or null for any other expression. */
export function pathOf(node: Expr): { name: string; steps: Step[] } | null {
  const steps: Step[] = [];
  let at = node;
  for (;;) {
    if (at.k === 'getattr') steps.push(attrReader(at.attr));
    else if (at.k === 'getitem' && at.arg.k === 'const' && typeof at.arg.value === 'string') steps.push(itemRead(at.arg.value));
    else break;
    at = at.obj;
  }
  if (at.k !== 'name') return null;
  return { name: at.name, steps: steps.reverse() };
}

/**
 * The closure of a path: its name read from the scope chain (`scoped`, see scopedNames) or straight from the root's
 * slot, an unset name made the Undefined the name node gives, then each step. Paths of one to three steps (nearly all)
 * are unrolled.
 */
export function pathReader(name: string, slot: number, scoped: boolean, steps: readonly Step[]): (s: RenderState, f: Frame) => unknown {
  const [a, b, c] = steps as [Step, Step | undefined, Step | undefined];
  // The name's read is written out in each closure: a shared helper would be one more call per path.
  if (scoped) {
    switch (steps.length) {
      case 1:
        return (_s, f) => {
          const v = f.get(name, slot);
          return a(v === undefined ? new Undefined(name) : v);
        };
      case 2:
        return (_s, f) => {
          const v = f.get(name, slot);
          return b!(a(v === undefined ? new Undefined(name) : v));
        };
      case 3:
        return (_s, f) => {
          const v = f.get(name, slot);
          return c!(b!(a(v === undefined ? new Undefined(name) : v)));
        };
      default:
        return (_s, f) => {
          const v = f.get(name, slot);
          return applySteps(v === undefined ? new Undefined(name) : v, steps);
        };
    }
  }
  switch (steps.length) {
    case 1:
      return (s) => {
        const v = s.slots[slot];
        return a(v === undefined ? new Undefined(name) : v);
      };
    case 2:
      return (s) => {
        const v = s.slots[slot];
        return b!(a(v === undefined ? new Undefined(name) : v));
      };
    case 3:
      return (s) => {
        const v = s.slots[slot];
        return c!(b!(a(v === undefined ? new Undefined(name) : v)));
      };
    default:
      return (s) => {
        const v = s.slots[slot];
        return applySteps(v === undefined ? new Undefined(name) : v, steps);
      };
  }
}

function applySteps(v: unknown, steps: readonly Step[]): unknown {
  for (let i = 0; i < steps.length; i++) v = steps[i]!(v);
  return v;
}
