// Shared pieces of the AI SDK tests: a replay backend per file (the gateway tests' own), seeded chunkings, the
// stream-part lifecycle contract, and reading parts back into one answer.
import type { LanguageModelV4Content, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { afterAll, expect } from 'vitest';
import { startReplayBackend, type ReplayBackend } from '../gateway/helpers/replay-backend.js';

export async function replayBackend(): Promise<ReplayBackend> {
  const backend = await startReplayBackend();
  afterAll(() => backend.close());
  return backend;
}

/** mulberry32: a small seeded generator, so a failing seed can be replayed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cuts `text` into pieces of 1..maxSize code points, sizes drawn from `seed`. */
export function randomPieces(text: string, seed: number, maxSize = 12): string[] {
  const random = seeded(seed);
  const points = Array.from(text);
  const pieces: string[] = [];
  for (let at = 0; at < points.length; ) {
    const size = 1 + Math.floor(random() * maxSize);
    pieces.push(points.slice(at, at + size).join(''));
    at += size;
  }
  return pieces;
}

export async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const parts: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

/**
 * The stream-part contract: every block's start before its deltas and end, ids unique, every tool-input-start ended,
 * each tool-call right after its input's end with that input, no block open at `finish`, nothing after `finish`.
 */
export function expectLifecycle(parts: LanguageModelV4StreamPart[]): void {
  const open = new Map<string, string>();
  const seen = new Set<string>();
  const inputs = new Map<string, string>();
  let finished = false;
  parts.forEach((part, at) => {
    const where = `part ${at} (${part.type})`;
    expect(finished, `${where} after finish`).toBe(false);
    switch (part.type) {
      case 'text-start':
      case 'reasoning-start':
      case 'tool-input-start':
        expect(seen.has(part.id), `${where}: id ${part.id} reused`).toBe(false);
        seen.add(part.id);
        open.set(part.id, part.type.slice(0, -'-start'.length));
        if (part.type === 'tool-input-start') inputs.set(part.id, '');
        break;
      case 'text-delta':
      case 'reasoning-delta':
      case 'tool-input-delta':
        expect(open.get(part.id), `${where}: delta of a block that is not open`).toBe(part.type.slice(0, -'-delta'.length));
        if (part.type === 'tool-input-delta') inputs.set(part.id, inputs.get(part.id)! + part.delta);
        break;
      case 'text-end':
      case 'reasoning-end':
      case 'tool-input-end':
        expect(open.get(part.id), `${where}: end of a block that is not open`).toBe(part.type.slice(0, -'-end'.length));
        open.delete(part.id);
        break;
      case 'tool-call': {
        const previous = parts[at - 1];
        expect(previous?.type === 'tool-input-end' && previous.id === part.toolCallId, `${where} does not follow its input's end`).toBe(true);
        expect(part.input).toBe(inputs.get(part.toolCallId) || '{}');
        expect(() => JSON.parse(part.input)).not.toThrow();
        break;
      }
      case 'finish':
        expect([...open.keys()], `${where}: blocks still open`).toEqual([]);
        finished = true;
        break;
      default:
        break;
    }
  });
  expect(finished, 'the stream has a finish part').toBe(true);
}

export interface Answer {
  text: string;
  reasoning: string;
  calls: Array<{ name: string; input: unknown }>;
}

/** Stream parts or generate content, read as one answer. */
export function answerOf(parts: Array<LanguageModelV4StreamPart | LanguageModelV4Content>): Answer {
  const answer: Answer = { text: '', reasoning: '', calls: [] };
  for (const part of parts) {
    if (part.type === 'text-delta') answer.text += part.delta;
    else if (part.type === 'text') answer.text += part.text;
    else if (part.type === 'reasoning-delta') answer.reasoning += part.delta;
    else if (part.type === 'reasoning') answer.reasoning += part.text;
    else if (part.type === 'tool-call') answer.calls.push({ name: part.toolName, input: JSON.parse(part.input) });
  }
  return answer;
}
