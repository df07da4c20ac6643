import { createStreamParser } from '../../src/index.js';
import type { Delta, Tool } from '../../src/types.js';

export interface ParseCaseOptions {
  family: string;
  tools?: Tool[] | null;
  prefix?: string;
}

/** Deterministic ids, so batch and stream results compare exactly. */
export const idGenerator = ({ index }: { index: number; name: string }): string => `call_${index}`;

/** Feeds the chunks to a fresh stream parser and returns every delta, finish included. */
export function streamDeltas(chunks: readonly string[], options: ParseCaseOptions): Delta[] {
  const parser = createStreamParser({ ...options, idGenerator });
  const deltas: Delta[] = [];
  for (const chunk of chunks) deltas.push(...parser.push(chunk));
  deltas.push(...parser.finish());
  return deltas;
}

/** One `write_file(path, content)` tool: code arguments full of escapes and marker look-alikes stream through it. */
export const writeFileTools: Tool[] = [
  {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Write a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    },
  },
];
