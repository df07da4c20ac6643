import { describe, expect, it } from 'vitest';
import { detectFamily, loadTemplate } from '../../src/index.js';

// Found by fuzzing: a template that spends its whole loop budget on every render was rendered once per probe and,
// being a bare .jinja file with no special tokens of its own, once more for every candidate family's tokens:
// 78 renders (17 s in this test; `chatfmt detect` 14.5 s) to conclude nothing. After the first probe render past a
// sandbox limit it is not rendered again (0.85 s).

/** A clock that counts how often a render asks it the year: the template below asks once per render. */
class CountingDate extends Date {
  reads = 0;
  override getUTCFullYear(): number {
    this.reads++;
    return super.getUTCFullYear();
  }
}

const burning = "{{ strftime_now('%Y') }}{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}{{ messages[0].content }}";

describe('detection of a template that exceeds the sandbox on the probes', () => {
  it('is rendered once, then given up: no family, no error', () => {
    const now = new CountingDate('2026-01-01T00:00:00Z');
    expect(detectFamily(loadTemplate({ source: burning }), undefined, { now })).toEqual([]);
    expect(now.reads).toBe(1);
  });

  it('a template that renders the probes within its budget is still rendered for every family (the count above is the limit\'s doing)', () => {
    const now = new CountingDate('2026-01-01T00:00:00Z');
    detectFamily(loadTemplate({ source: "{{ strftime_now('%Y') }}{{ messages[0].content }}" }), undefined, { now });
    expect(now.reads).toBeGreaterThan(50);
  });
});
