/**
 * The characters the parse engine has handled since the process started: examined by a marker search or a scanner,
 * copied into a buffer, released through a trimmer, kept for a withdraw. An operation count for tests that check
 * parsing stays linear (test/parse/linear.test.ts), where timings would be noise: every place where a push could
 * redo work on text it already saw adds what it touched, so a push that rescans, re-copies or retains its whole
 * history shows up as quadratic growth. Internal; not exported publicly.
 */
export const parseWork = {
  chars: 0,
  /**
   * Stream pushes the fast lane (ParserCore.extend) declined, so they went the general way (push). Only those are
   * counted: a counter on every lane push would cost the lane a measurable share of its few nanoseconds.
   */
  slowPushes: 0,
  /**
   * String-value fragments whose JSON escape was built (codecs/escape-fragment.ts), not found in the cache of tiny
   * ones: streamed a few bytes a push, code repeats the same few fragments that need escaping.
   */
  escapesBuilt: 0,
  /** Tiny fragments whose escape the cache held. */
  escapesCached: 0,
};
