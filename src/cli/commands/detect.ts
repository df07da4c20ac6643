import type { ResponseTemplateMatch } from '../../detect/index.js';
import type { LoadedTemplate } from '../../render/index.js';
import { EXIT, type IO } from '../io.js';
import { withOutput } from '../output.js';
import { resolve } from 'node:path';
import type { CommandRegistrar } from './index.js';

export const register: CommandRegistrar = (program, io, state) => {
  program
    .command('detect')
    .summary('tell which family a chat template is')
    .description('Tell which family a template belongs to, with evidence: render-equivalence on probe conversations first, template markers as a fallback; a response_template in the config is reported and compared with the families.')
    .argument('<template>', 'a .jinja file, a tokenizer_config.json, or a model folder')
    .option('--template-name <name>', 'named template inside the config')
    .option('--json', 'print all matches as JSON')
    .option('-o, --output <file>', 'write the result here instead of stdout')
    .addHelpText('after', '\nExit codes: 0 a family was found, 1 none matched or the output could not be written, 2 usage or I/O error.\n\nExample:\n  chatfmt detect ~/models/Qwen3-8B')
    .action(async (template: string, flags: { templateName?: string; json?: boolean; output?: string }) => {
      state.exitCode = await withOutput(io, flags.output, (out) => detect(template, flags, out));
    });
};

/** The template's own response template, for the report: where it came from and which families it reads like. */
function responseTemplateReport(loaded: LoadedTemplate, match: ResponseTemplateMatch | undefined): { key?: string; exported?: string; agrees?: string[]; evidence: string[] } | undefined {
  if (match) return match;
  if (loaded.responseTemplateError) return { evidence: [loaded.responseTemplateError] };
  return undefined;
}

async function detect(template: string, flags: { templateName?: string; json?: boolean }, io: IO): Promise<number> {
  // Loaded on use: every command is registered at start-up, and detection pulls in every family's parser.
  const { loadTemplate } = await import('../../node/load.js');
  const { detectFamily, matchResponseTemplate } = await import('../../detect/index.js');
  const loaded = loadTemplate({ template: resolve(io.cwd, template), templateName: flags.templateName });
  const response = matchResponseTemplate(loaded);
  const matches = detectFamily(loaded, response);
  const responseTemplate = responseTemplateReport(loaded, response);
  if (flags.json) io.stdout.write(`${JSON.stringify({ template, matches, ...(responseTemplate ? { responseTemplate } : {}) }, null, 2)}\n`);
  else if (matches.length === 0) io.stdout.write(`${template}: no known family (no probe rendered identically, no family markers found)\n`);
  else {
    const [best, ...others] = matches;
    const variant = best!.variant ? ` (variant of ${best!.family}: use --family ${best!.variant})` : '';
    io.stdout.write(`${best!.variant ?? best!.family}  (${best!.method}, score ${best!.score.toFixed(2)})${variant}\n`);
    for (const line of best!.evidence) io.stdout.write(`  - ${line}\n`);
    if (others.length > 0) io.stdout.write(`also close: ${others.map((m) => `${m.variant ?? m.family} (${m.score.toFixed(2)})`).join(', ')}\n`);
  }
  if (!flags.json && responseTemplate) {
    io.stdout.write(`response template: ${responseTemplate.key ?? 'unusable'}${responseTemplate.agrees?.length ? ` (parses like ${responseTemplate.agrees.join(', ')})` : ''}\n`);
    for (const line of responseTemplate.evidence) io.stdout.write(`  - ${line}\n`);
  }
  return matches.length > 0 ? EXIT.OK : EXIT.ISSUES;
}
