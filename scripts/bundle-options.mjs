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
 * For a CommonJS bundle written to `outdir`: writes the parsed form of each template under templates/ to
 * `outdir`/template-forms/<file>.json, made now by the engine in src/jinja (bundled for this build and run from
 * memory), and returns the plugin that puts in place of src/families/templates-parsed.ts (empty in src/ and in tsc's
 * dist/) a module reading the form of the family a run renders from there. The run then builds the template from the
 * form instead of lexing and parsing its text (src/jinja/parsed-form.ts). Files beside the bundle, not strings in it:
 * every run reads the bundle and its code cache whole, and one run renders one family.
 */
export async function familyTemplateFormsPlugin(outdir) {
  const { build } = await import('esbuild');
  const { mkdirSync, readFileSync, readdirSync, writeFileSync } = await import('node:fs');
  const engine = await build({
    absWorkingDir: root,
    entryPoints: ['src/jinja/index.ts'],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'node20',
    logLevel: 'warning',
  });
  const { parseTemplateForm } = await import(`data:text/javascript;base64,${Buffer.from(engine.outputFiles[0].text).toString('base64')}`);
  mkdirSync(`${outdir}/template-forms`, { recursive: true });
  for (const file of readdirSync(`${root}templates`).filter((name) => name.endsWith('.jinja'))) {
    writeFileSync(`${outdir}/template-forms/${file}.json`, parseTemplateForm(readFileSync(`${root}templates/${file}`, 'utf8'), { name: file }));
  }
  const contents = `
    import { readFileSync } from 'node:fs';
    export const familyTemplateForms = {
      get(file) {
        if (!/^[a-z0-9][a-z0-9.-]*\.jinja$/.test(file)) return undefined;
        try {
          return readFileSync(__dirname + '/template-forms/' + file + '.json', 'utf8');
        } catch {
          return undefined;
        }
      },
    };`;
  return {
    name: 'family-template-forms',
    setup(builder) {
      builder.onLoad({ filter: /[\\/]src[\\/]families[\\/]templates-parsed\.ts$/ }, () => ({ contents, loader: 'js' }));
    },
  };
}
