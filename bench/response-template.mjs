// Response-template benchmark: a family's exported response template run by chatfmt's executor (transformers'
// algorithm on chatfmt's own Python-regex matcher) against chatfmt's own parser of that family on the same completion.
import { createResponseParser, exportResponseTemplate, parse } from '../dist/index.js';
import { bigCompletion } from './parse.mjs';
import { fmt, rate, table } from './lib.mjs';

function feedInChunks(text, template, prefix, chunkSize) {
  const parser = createResponseParser(template, { prefix });
  for (let i = 0; i < text.length; i += chunkSize) parser.feed(text.slice(i, i + chunkSize));
  return parser.finalize().message;
}

export async function responseTemplateSection({ quick = false } = {}) {
  const seconds = quick ? 0.1 : 0.3;
  const size = quick ? 100_000 : 1_000_000;
  const rows = [];
  for (const family of ['qwen3', 'qwen3-coder', 'gemma-4', 'gpt-oss']) {
    const { text, prefix } = bigCompletion(family, size);
    const { template } = exportResponseTemplate(family);
    const own = parse(text, { family, prefix });
    const dict = feedInChunks(text, template, prefix, text.length);
    // The two must read the same calls, or the comparison means nothing.
    if ((dict.tool_calls ?? []).length !== own.tool_calls.length) throw new Error(`${family}: the exported template read ${(dict.tool_calls ?? []).length} calls, chatfmt ${own.tool_calls.length}`);
    const mb = Buffer.byteLength(text) / 2 ** 20;
    const anchor = rate(() => parse(text, { family, prefix }), { seconds, passes: 3 });
    const batch = rate(() => feedInChunks(text, template, prefix, text.length), { seconds, passes: 3 });
    const streamed = rate(() => feedInChunks(text, template, prefix, 16), { seconds, passes: 3 });
    rows.push([family, fmt(mb, 2), String(own.tool_calls.length), fmt(anchor.median * mb, 1), `${fmt(anchor.median / batch.median, 2)}×`, `${fmt(anchor.median / streamed.median, 2)}×`]);
  }
  return [
    '## Response templates',
    '',
    `Each family's exported response template on a completion of about ${fmt(size / 1e6, 1)} MB (the parse section's), run by the`,
    "executor in one feed and in 16-character feeds; anchor = chatfmt's own parser of the family on the same text (MB/s).",
    '',
    table(['family', 'MB', 'calls', 'chatfmt parse MB/s', 'template, one feed', 'template, 16-char feeds'], rows),
    '',
    'Times are relative to the anchor (2× = twice as long).',
  ].join('\n');
}
