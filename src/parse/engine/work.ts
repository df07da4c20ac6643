/**
 * The characters the parse engine has handled since the process started: examined by a marker search or a scanner,
 * copied into a buffer, released through a trimmer, kept for a withdraw. An operation count for tests that check
 * parsing stays linear (test/parse/linear.test.ts), where timings would be noise: every place where a push could
 * redo work on text it already saw adds what it touched, so a push that rescans, re-copies or retains its whole
 * history shows up as quadratic growth. Internal; not exported publicly.
 */
export const parseWork = {
  chars: 0,
  /** Stream pushes the fast lane took (ParserCore.extend), and those that went the general way (push). */
  lanePushes: 0,
  slowPushes: 0,
};
