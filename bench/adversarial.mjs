// Adversarial parsing: every family's own markers repeated (a model stuck in a loop), at 256 KB and 2.5 MB, batch and
// streamed in 64-character pushes. The figure is the growth in time for 10× the input; linear is ~10×, the goal is
// ≤ 12×. Each time is the best of several runs after a warm-up; below ~100 KB a run is mostly JIT and GC noise.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, root, table } from './lib.mjs';

const { createStreamParser, familyIds, parse, parserFamilies } = await import(pathToFileURL(join(root, 'dist', 'index.js')).href);

/** The call opener alone and with an unterminated argument, section + call openers, and the reasoning opener. */
function patternsOf(family) {
  const m = parserFamilies[family].markers;
  const open = m.callOpen[0];
  const patterns = new Set([open, `${open}f{"a": "`]);
  if (m.sectionOpen?.[0]) patterns.add(m.sectionOpen[0] + open);
  if (m.reasoningOpen?.[0]) patterns.add(m.reasoningOpen[0]);
  return [...patterns];
}

function best(fn, runs) {
  fn();
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    min = Math.min(min, performance.now() - start);
  }
  return min;
}

const batch = (text, family) => () => parse(text, { family });
const streamed = (text, family) => () => {
  const parser = createStreamParser({ family });
  for (let i = 0; i < text.length; i += 64) parser.push(text.slice(i, i + 64));
  parser.finish();
};

export function adversarialSection({ quick = false } = {}) {
  const small = quick ? 32 * 1024 : 256 * 1024;
  const runs = quick ? 2 : 3;
  const rows = [];
  let worst = { growth: 0, what: '' };
  for (const family of familyIds) {
    for (const pattern of patternsOf(family)) {
      const text = pattern.repeat(Math.ceil(small / pattern.length));
      const large = text.repeat(10);
      const cells = [family, `\`${JSON.stringify(pattern).slice(1, -1).slice(0, 48)}\``];
      for (const mode of [batch, streamed]) {
        const a = best(mode(text, family), runs);
        const b = best(mode(large, family), runs);
        const growth = b / Math.max(a, 0.01);
        if (growth > worst.growth) worst = { growth, what: `${family} ${JSON.stringify(pattern)} ${mode === batch ? 'batch' : 'streamed'}` };
        cells.push(`${fmt(growth, 1)}× (${fmt(b, 1)} ms)`);
      }
      rows.push(cells);
    }
  }
  return [
    '## Adversarial parsing (10× input)',
    `Each family's markers repeated to ${small / 1024} KB and ${(small * 10) / 1024} KB; time growth for 10× input (linear ≈ 10×, goal ≤ 12×), best of ${runs} runs.`,
    table(['family', 'repeated', 'batch growth (large)', 'streamed growth (large)'], rows),
    `Worst: ${fmt(worst.growth, 1)}× (${worst.what}).`,
  ].join('\n\n');
}
