import type { CoreFactory } from '../parse/core.js';
import type { Grammar } from '../parse/engine/grammar.js';
import { createGrammarCore } from '../parse/engine/machine.js';
import type { IdGenerator } from '../parse/ids.js';

/** Markers of a family's output, for detection and docs. */
export interface ParserMarkers {
  callOpen: readonly string[];
  callClose: readonly string[];
  sectionOpen?: readonly string[];
  sectionClose?: readonly string[];
  reasoningOpen?: readonly string[];
  reasoningClose?: readonly string[];
}

export interface ParserFamily {
  /** A family id, or a name for a grammar derived from a template (`derived`). */
  id: string;
  createCore: CoreFactory;
  markers: ParserMarkers;
  stopStrings: readonly string[];
  /** The prompt tail assumed when the caller gives none. */
  defaultPrefix: string;
  /** Set for the marker-grammar families (all but gpt-oss). */
  grammar?: Grammar;
  /** Ids for calls the model wrote none for, when the family accepts only its own shape (Mistral: 9 characters). */
  idGenerator?: IdGenerator;
}

/**
 * A parser for a grammar descriptor: every marker family's, or one derived from an unknown template. The core
 * factory is the grammar's compiled machine unless the caller defers compiling (the registry's built-in families).
 */
export function grammarParser(id: string, grammar: Grammar, createCore: CoreFactory = createGrammarCore(grammar)): ParserFamily {
  return {
    id,
    createCore,
    markers: {
      callOpen: [...grammar.call.open, ...(grammar.bareOpen ?? []), ...(grammar.leadingOpen ?? [])],
      callClose: grammar.call.close,
      ...(grammar.section ? { sectionOpen: grammar.section.open, sectionClose: grammar.section.close } : {}),
      ...(grammar.reasoning ? { reasoningOpen: grammar.reasoning.open, reasoningClose: grammar.reasoning.close } : {}),
    },
    stopStrings: grammar.stopStrings,
    defaultPrefix: grammar.defaultPrefix,
    grammar,
  };
}

/** Compiles a built-in grammar when its first parser starts, so importing the registry compiles none of them. */
export function compiledOnFirstUse(grammar: Grammar): CoreFactory {
  let factory: CoreFactory | undefined;
  return (options) => (factory ??= createGrammarCore(grammar))(options);
}
