import { describe, expect, it } from 'vitest';
import { createStreamParser, parse } from '../../src/index.js';
import type { Delta } from '../../src/types.js';
import { loadParseFixtures, type ParseFixture } from '../helpers/parse-fixtures.js';
import { idGenerator } from '../helpers/stream.js';

// Batch = stream + finish says nothing about *when* a stream releases text: a stream that held everything until
// finish would pass it. A push must release what it settles, so here a completion streamed one character a push has
// released, after every push, exactly what one push of the same text so far releases. Every multi-character marker
// then straddles pushes: a codec waiting for a value's end (no tools to type it by) must wake at the push that
// completes the marker, not later (round 11 skips a waiting push's window search when it holds no marker's first
// character). Calls later found malformed are left out: a stream sends their arguments before it can know.

/** What the deltas released so far: content, reasoning, and each call's name and argument text. */
function released(deltas: readonly Delta[]): string {
  let content = '';
  let reasoning = '';
  const calls: string[] = [];
  for (const delta of deltas) {
    content += delta.content ?? '';
    reasoning += delta.reasoning_content ?? '';
    for (const call of delta.tool_calls ?? []) calls[call.index] = (calls[call.index] ?? (call.function?.name ?? '') + ':') + (call.function?.arguments ?? '');
  }
  return JSON.stringify({ content, reasoning, calls });
}

function wellFormed(fixture: ParseFixture, withTools: boolean): boolean {
  const message = parse(fixture.completion, optionsOf(fixture, withTools));
  return !message.diagnostics?.some((diagnostic) => diagnostic.severity === 'error');
}

function optionsOf(fixture: ParseFixture, withTools: boolean) {
  return { family: fixture.family, tools: withTools ? (fixture.tools ?? null) : null, idGenerator, ...(fixture.prefix !== undefined ? { prefix: fixture.prefix } : {}) };
}

/** The first push after which the character stream has released other text than one push of the same prefix. */
function firstLag(fixture: ParseFixture, withTools: boolean): string | undefined {
  const options = optionsOf(fixture, withTools);
  const stream = createStreamParser(options);
  const streamed: Delta[] = [];
  const characters = Array.from(fixture.completion);
  let sofar = '';
  for (const character of characters) {
    sofar += character;
    streamed.push(...stream.push(character));
    const whole = createStreamParser(options).push(sofar);
    if (released(streamed) !== released(whole)) return `after ${JSON.stringify(sofar.slice(-24))}: streamed ${released(streamed)}, one push ${released(whole)}`;
  }
  return undefined;
}

const fixtures = loadParseFixtures();

describe('a push releases what it settles', () => {
  it('has cases with tools to type values by (run with and without them)', () => {
    expect(fixtures.filter((fixture) => fixture.tools !== undefined).length).toBeGreaterThan(20);
  });

  for (const withTools of [true, false]) {
    it(`one character a push releases what one push of the text so far does (${withTools ? 'with the tools' : 'no tools'})`, () => {
      const lags: string[] = [];
      let checked = 0;
      for (const fixture of fixtures) {
        if (!wellFormed(fixture, withTools)) continue;
        checked++;
        const lag = firstLag(fixture, withTools);
        if (lag !== undefined) lags.push(`${fixture.family}/${fixture.name} ${lag}`);
      }
      expect(checked).toBeGreaterThan(250);
      expect(lags).toEqual([]);
    }, 60_000);
  }
});
