import type { Grammar } from './grammar.js';
import { MarkerSet } from './markers.js';

export type MarkerRole =
  | 'stop'
  | 'reasoning-open'
  | 'reasoning-close'
  | 'section-open'
  | 'section-close'
  | 'call-open'
  | 'call-close'
  | 'aside-open'
  | 'aside-close'
  | 'separator'
  | 'tail';

/** A grammar's markers grouped into the sets each machine state searches for, built once per family. */
export interface CompiledGrammar {
  grammar: Grammar;
  role: Map<string, MarkerRole>;
  content: MarkerSet;
  /** Content before anything was said: a reasoning block may still open. */
  contentAtStart: MarkerSet;
  reasoning: MarkerSet;
  /** Reasoning opened by the prompt: a re-emitted opener is absorbed. */
  reasoningAtStart: MarkerSet;
  section: MarkerSet;
  tail: MarkerSet;
  skip: MarkerSet;
  /** Inside an aside: text goes to reasoning until its close. */
  aside: MarkerSet;
  /** After a call that opened inside reasoning: decides whether it was real or a draft. */
  after: MarkerSet;
  followers: MarkerSet;
  /** Call openers that belong to the header (Grammar.bareOpen, Grammar.leadingOpen). */
  bare: ReadonlySet<string>;
  /** Bare openers that count only where a call may stand (Grammar.leadingOpen). */
  leading: ReadonlySet<string>;
  /** After a call separator: only a call opener makes it structure. */
  separated: MarkerSet;
  /** The grammar's calls have no close marker: they end with their arguments. */
  closeOptional: boolean;
}

export function compileGrammar(grammar: Grammar): CompiledGrammar {
  const role = new Map<string, MarkerRole>();
  // The markers and their roles in the order added, as arrays: `of` picks from them with indexed loops. This runs on
  // a family's first parse, in V8's unoptimised tiers, where a spread, filter and map per set cost a callback per marker.
  const listed: string[] = [];
  const roles: MarkerRole[] = [];
  const add = (markers: readonly string[] | undefined, r: MarkerRole) => {
    if (markers === undefined) return;
    for (let k = 0; k < markers.length; k++) {
      const m = markers[k]!;
      if (role.has(m)) continue;
      role.set(m, r);
      listed.push(m);
      roles.push(r);
    }
  };
  // Structure first: a stop string that equals a structural marker keeps its structural role.
  add(grammar.call.open, 'call-open');
  add(grammar.call.close, 'call-close');
  add(grammar.bareOpen, 'call-open');
  add(grammar.leadingOpen, 'call-open');
  add(grammar.section?.open, 'section-open');
  add(grammar.section?.close, 'section-close');
  add(grammar.reasoning?.open, 'reasoning-open');
  add(grammar.reasoning?.close, 'reasoning-close');
  add(grammar.aside?.open, 'aside-open');
  add(grammar.aside?.close, 'aside-close');
  add(grammar.tailOptional, 'tail');
  add(grammar.stopStrings, 'stop');
  add(grammar.callSeparators, 'separator');
  const of = (...wanted: MarkerRole[]) => {
    const markers: string[] = [];
    for (let k = 0; k < listed.length; k++) if (wanted.includes(roles[k]!)) markers.push(listed[k]!);
    return new MarkerSet(markers);
  };
  const opens: MarkerRole[] = ['call-open', 'section-open', 'stop', 'aside-open'];
  const inReasoning: MarkerRole[] = grammar.reasoningHoldsCalls ? ['stop', 'reasoning-close'] : ['call-open', 'section-open', 'stop', 'reasoning-close'];
  return {
    grammar,
    role,
    content: of(...opens, 'section-close'),
    contentAtStart: of(...opens, 'section-close', 'reasoning-open'),
    reasoning: of(...inReasoning),
    reasoningAtStart: of(...inReasoning, 'reasoning-open'),
    aside: of('aside-close', 'stop'),
    section: of('call-open', 'section-close', 'stop'),
    tail: of('call-close', 'tail', 'section-close', 'call-open', 'stop', 'separator'),
    skip: of('call-close', 'call-open', 'section-close', 'stop'),
    after: of('call-open', 'section-open', 'section-close', 'stop', 'reasoning-close'),
    followers: of('call-close', 'tail', 'section-close'),
    bare: new Set([...(grammar.bareOpen ?? []), ...(grammar.leadingOpen ?? [])]),
    leading: new Set(grammar.leadingOpen ?? []),
    separated: of('call-open', 'section-open'),
    closeOptional: grammar.call.close.length === 0,
  };
}

/** Whether the prompt's tail leaves a reasoning block open (`<think>`, `<think>\n`) or not. */
export function prefixOpensReasoning(grammar: Grammar, prefix: string): boolean {
  if (!grammar.reasoning) return false;
  const last = (markers: readonly string[]) => Math.max(-1, ...markers.map((m) => prefix.lastIndexOf(m)));
  const open = last(grammar.reasoning.open);
  return open >= 0 && open > last(grammar.reasoning.close);
}
