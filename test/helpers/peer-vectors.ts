import { existsSync, readFileSync } from 'node:fs';
import type { Tool } from '../../src/types.js';

export interface PeerExpected {
  content?: string | null;
  reasoning_content?: string | null;
  /** null: the peer test does not look at tool calls. */
  tool_calls: { name: string; arguments: Record<string, unknown>; id?: string }[] | null;
}

export interface PeerVector {
  id: string;
  family: string;
  completion: string;
  prefix?: string;
  chunks?: string[];
  tools?: Tool[];
  expected: PeerExpected;
  scope?: 'reasoning-only' | 'tool-only';
  partial?: boolean;
  lenient?: boolean;
  whitespace_insensitive?: boolean;
  args_asserted?: boolean;
  content_contains?: string[];
  content_excludes?: string[];
  reasoning_contains?: string[];
  reasoning_excludes?: string[];
  note?: string;
}

/**
 * Where a vector contradicts chatfmt's decided conventions (FORMATS §0, peer-vectors README
 * "Where peers disagree"): skip it, or compare against chatfmt's own expectation instead.
 * Every entry carries its reason; fixtures/parse/peer-vector-decisions.json holds them as data.
 */
export type PeerDecision =
  | { decision: 'skip'; reason: string }
  | {
      decision: 'override';
      reason: string;
      /** chatfmt's expectation; absent = the vector's own. */
      expected?: PeerExpected;
      whitespace_insensitive?: boolean;
      /** Parse without the vector's tools (their declaration is incidental to what the vector tests). */
      drop_tools?: boolean;
      /** The prompt tail the peer's test assumes (a tool-parser test sees text after reasoning was taken out). */
      prefix?: string;
    };

/** ../shared relative to the repository root; absent outside the development workspace. */
export const peerVectorsFile = new URL('../../../shared/peer-vectors/vectors.jsonl', import.meta.url);
export const peerDecisionsFile = new URL('../../fixtures/parse/peer-vector-decisions.json', import.meta.url);

export function peerVectorsAvailable(): boolean {
  return existsSync(peerVectorsFile);
}

export function loadPeerVectors(): PeerVector[] {
  return readFileSync(peerVectorsFile, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as PeerVector);
}

export function loadPeerDecisions(): Record<string, PeerDecision> {
  const data = JSON.parse(readFileSync(peerDecisionsFile, 'utf8')) as Record<string, PeerDecision> & { $comment?: unknown };
  const { $comment: _comment, ...decisions } = data;
  return decisions as Record<string, PeerDecision>;
}
