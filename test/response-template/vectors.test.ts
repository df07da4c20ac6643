import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createResponseParser, parseResponse, ResponseTemplateError, type ResponseParser } from '../../src/index.js';
import { safeOffset, splitAt } from '../helpers/chunkings.js';
import { codePointChunks, hasResponseTemplates, loadTemplate, vectors, type Vector } from './data.js';

function options(v: Vector) {
  return { prefix: v.prefix, tools: v.tools ?? null };
}

function expectError(fn: () => unknown, v: Vector): void {
  const spec = v.expected_error!;
  let caught: unknown;
  try { fn(); } catch (e) { caught = e; }
  expect(caught, 'should raise').toBeInstanceOf(ResponseTemplateError);
  const err = caught as ResponseTemplateError;
  expect(err.pythonType).toBe(spec.type);
  expect(err.phase).toBe(spec.raised_by);
  const substrings = spec.match === null ? [] : Array.isArray(spec.match) ? spec.match : [spec.match];
  for (const s of substrings) expect(err.message).toContain(s);
}

/** Feeds the chunks and returns every event list: [initial, per feed…, finalize] plus the final dict. */
function stream(v: Vector, chunks: string[]): { events: unknown[][]; message: Record<string, unknown> } {
  const parser: ResponseParser = createResponseParser(loadTemplate(v.template), options(v));
  const events: unknown[][] = [parser.initialEvents];
  for (const chunk of chunks) events.push(parser.feed(chunk));
  const done = parser.finalize();
  events.push(done.events);
  return { events, message: done.message };
}

describe.skipIf(!hasResponseTemplates)('response-template vectors (transformers parse_response)', () => {
  const all = vectors();
  it('has the 66 published vectors', () => expect(all.length).toBe(66));

  for (const v of all) {
    describe(v.id, () => {
      if (v.expected_error) {
        it(`raises ${v.expected_error.type} from ${v.expected_error.raised_by}`, () => {
          expectError(() => parseResponse(v.input, loadTemplate(v.template), options(v)), v);
        });
        if (v.expected_error.raised_by !== 'load') {
          it('raises from the same call when streamed, and finalize raises again after a failed feed', () => {
            const parser = createResponseParser(loadTemplate(v.template), options(v));
            if (v.expected_error!.raised_by === 'feed') {
              expectError(() => parser.feed(v.input), v);
              expect(() => parser.finalize()).toThrow(ResponseTemplateError);
            } else {
              parser.feed(v.input);
              expectError(() => parser.finalize(), v);
            }
          });
        }
        return;
      }
      it('batch: the exact dict, key order included', () => {
        const got = parseResponse(v.input, loadTemplate(v.template), options(v));
        expect(got).toEqual(v.expected);
        expect(Object.keys(got)).toEqual(Object.keys(v.expected!));
      });
      if (v.streaming) {
        it(`streamed in its ${v.streaming.chunks.length} recorded chunk(s)${v.streaming.events ? ', exact events' : ''}`, () => {
          const { events, message } = stream(v, v.streaming!.chunks);
          expect(message).toEqual(v.expected);
          if (v.streaming!.events) expect(events).toEqual(v.streaming!.events);
        });
      }
      it('streamed one character at a time: same dict, chunks concatenate per region', () => {
        const { events, message } = stream(v, codePointChunks(v.input));
        expect(message).toEqual(v.expected);
        expect(Object.keys(message)).toEqual(Object.keys(v.expected!));
        // Regions never nest: every chunk belongs to the region opened last and not yet closed.
        let open: string | null = null;
        for (const e of events.flat() as Array<{ type: string; field: string }>) {
          if (e.type === 'region_open') { expect(open).toBeNull(); open = e.field; }
          if (e.type === 'region_chunk') expect(e.field).toBe(open);
          if (e.type === 'region_close') { expect(e.field).toBe(open); open = null; }
        }
        expect(open).toBeNull();
      });
      it('any chunking gives the same dict', () => {
        fc.assert(fc.property(fc.array(fc.nat(Math.max(v.input.length, 1)), { maxLength: 12 }), (cuts) => {
          const chunks = splitAt(v.input, cuts.map((at) => safeOffset(v.input, at)));
          expect(stream(v, chunks).message).toEqual(v.expected);
        }), { numRuns: 25 });
      });
    });
  }
});
