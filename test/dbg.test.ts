import { it } from 'vitest';
import { accumulateDeltas, createStreamParser, exportResponseTemplate, parse, parserFamily, type Delta } from '../src/index.js';
import { loadParseFixtures } from './helpers/parse-fixtures.js';
const idGenerator = ({ index }: { index: number }) => `call_${index}`;
it('dbg', () => {
  const only = (process.env.FAM ?? '').split(',');
  for (const f of loadParseFixtures()) {
    if (!only.includes(f.family)) continue;
    if (f.expected.diagnostics && f.expected.diagnostics.length) continue;
    const own = parse(f.completion, { family: f.family, tools: f.tools ?? null, ...(f.prefix !== undefined ? { prefix: f.prefix } : {}), idGenerator });
    if (own.diagnostics.length) continue;
    const opts = { responseTemplate: exportResponseTemplate(f.family).template, output: 'openai' as const, prefix: f.prefix ?? parserFamily(f.family).defaultPrefix, tools: f.tools ?? null, idGenerator };
    const mine = parse(f.completion, opts);
    const e = (m: any) => JSON.stringify({ c: m.content, r: m.reasoning_content, t: m.tool_calls.map((c: any) => [c.function.name, JSON.parse(c.function.arguments)]), d: m.diagnostics?.map((d: any) => d.message) });
    const p = createStreamParser(opts); const ds: Delta[] = []; for (const ch of Array.from(f.completion)) ds.push(...p.push(ch)); ds.push(...p.finish());
    const st = accumulateDeltas(ds);
    const same = e({ ...own, diagnostics: undefined }) === e({ ...mine, diagnostics: undefined });
    const streamSame = JSON.stringify(st) === JSON.stringify(mine);
    if (!streamSame) console.log("DIFF", JSON.stringify(st.diagnostics), JSON.stringify(mine.diagnostics));
    if (!same || !streamSame) {
      console.log(`=== ${f.family}/${f.name} same=${same} stream=${streamSame}\nIN  ${JSON.stringify(f.completion)} prefix=${JSON.stringify(f.prefix)}\nOWN ${e(own)}\nTPL ${e(mine)}` + (streamSame ? '' : `\nSTR ${e(st)}`));
    }
  }
});
