/**
 * Text on one line: line breaks inside it (a quoted row, a template's text, a tool name holding a newline) are written
 * as `\n`, `\r`, `\u2028` and `\u2029`, so each issue message, `chatfmt:` line and summary line is one line that a
 * script (or JavaScript, which also breaks lines at U+2028/U+2029) can split on.
 */
export function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]/g, (c) => lineBreakEscapes[c]!);
}

const lineBreakEscapes: Record<string, string> = { '\r': '\\r', '\n': '\\n', '\u2028': '\\u2028', '\u2029': '\\u2029' };
