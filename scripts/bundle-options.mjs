// What the CLI bundle (bundle-cli.mjs) and the library bundle (bundle-lib.mjs) share: code for Node 20 in files that
// sit two folders below the package (dist/bin/, dist/lib/), like the files tsc writes (dist/cli/, dist/node/), so
// paths relative to a module (../../templates/, the dataset worker) hold in either.
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

export const nodeBundleOptions = {
  absWorkingDir: root,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  minify: true,
  // Class and function names stay: errors and stack traces name what they name in src/.
  keepNames: true,
  legalComments: 'none',
  logLevel: 'warning',
};

/**
 * For a CommonJS bundle written to `outdir`: what a run would otherwise work out about a family template each time,
 * worked out now by the code in src/ (bundled for this build and run from memory) from the same family templates the
 * bundle holds (src/families/templates.generated.ts). The parsed form of each template is written to
 * `outdir`/template-forms/<file>.json; what `--args auto` probing finds in each family's template goes into the
 * bundle. Returns the plugin that puts in place of src/families/templates-parsed.ts (empty in src/ and in tsc's
 * dist/) a module holding the probe results and reading the form of the family a run renders. The run then builds
 * the template from the form instead of lexing and parsing its text (src/jinja/parsed-form.ts), and does not probe
 * it. Forms are files beside the bundle, not strings in it: every run reads the bundle and its code cache whole, and
 * one run renders one family.
 */
export async function familyTemplatesKnownAhead(outdir) {
  const { build } = await import('esbuild');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const engine = await build({
    absWorkingDir: root,
    stdin: {
      contents: [
        "export { parseTemplateForm } from './src/jinja/index.ts';",
        "export { inspectTemplate, loadTemplate } from './src/render/index.ts';",
        "export { familyIds, familyInfo } from './src/families/info.ts';",
        "export { familyTemplateSources } from './src/families/templates.generated.ts';",
      ].join('\n'),
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'node20',
    logLevel: 'warning',
  });
  const known = await import(`data:text/javascript;base64,${Buffer.from(engine.outputFiles[0].text).toString('base64')}`);
  mkdirSync(`${outdir}/template-forms`, { recursive: true });
  for (const [file, source] of Object.entries(known.familyTemplateSources)) {
    writeFileSync(`${outdir}/template-forms/${file}.json`, known.parseTemplateForm(source, { name: file }));
  }
  const needs = known.familyIds.map((id) => {
    const loaded = known.loadTemplate({ family: id });
    // A family has one template: select gives it whatever the conversation.
    const { argumentsForm, nullContentNeedsString, nineCharCallIds } = known.inspectTemplate(loaded.select(true), loaded.specialTokens);
    return `  [${JSON.stringify(id)}, ${JSON.stringify({ argumentsForm, nullContentNeedsString, nineCharCallIds })}],`;
  });
  const contents = [
    "import { readFileSync } from 'node:fs';",
    'export const familyTemplateForms = {',
    '  get(file) {',
    '    if (!/^[a-z0-9][a-z0-9.-]*\\.jinja$/.test(file)) return undefined;',
    '    try {',
    "      return readFileSync(__dirname + '/template-forms/' + file + '.json', 'utf8');",
    '    } catch {',
    '      return undefined;',
    '    }',
    '  },',
    '};',
    'export const familyTemplateNeeds = new Map([',
    ...needs,
    ']);',
    '',
  ].join('\n');
  return {
    name: 'family-templates-known-ahead',
    setup(builder) {
      builder.onLoad({ filter: /[\\/]src[\\/]families[\\/]templates-parsed\.ts$/ }, () => ({ contents, loader: 'js' }));
    },
  };
}
