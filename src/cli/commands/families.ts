import { familyIds, familyInfo, familyVariants } from '../../families/info.js';
import type { IO } from '../io.js';
import { withOutput } from '../output.js';
import type { CommandRegistrar } from './index.js';

interface FamiliesFlags {
  json?: boolean;
  output?: string;
  responseTemplate?: string;
}

export const register: CommandRegistrar = (program, io) => {
  program
    .command('families')
    .summary('list the model families chatfmt speaks')
    .description('List every family: its id (what --family takes), aliases, wire format and the models it covers.')
    .option('--json', 'print the registry as JSON')
    .option('--response-template <id>', 'print the family as a transformers response_template (what it loses goes to stderr)')
    .option('-o, --output <file>', 'write the list here instead of stdout')
    .addHelpText(
      'after',
      `
--response-template writes the JSON object to put under "response_template" in a model's tokenizer_config.json
(transformers >= 5.13 parse_response). transformers rejects unknown keys, so what the template cannot do that
chatfmt's parser does is printed to stderr, or, with --json, returned beside it: {family, verdict, template, losses}.

Exit codes: 0 listed or written, 1 the output could not be written, 2 usage error (an unknown family).

Example:
  chatfmt families --response-template qwen3 -o qwen3.response_template.json`,
    )
    .action(async (flags: FamiliesFlags) => {
      await withOutput(io, flags.output, async (out) => {
        if (flags.responseTemplate !== undefined) await exportTemplate(flags.responseTemplate, flags, out, io);
        else listFamilies(flags, out);
      });
    });
};

/** `out` gets the template; losses go to the terminal's stderr, so `-o file` and pipes keep a loadable JSON. */
async function exportTemplate(id: string, flags: FamiliesFlags, out: IO, io: IO): Promise<void> {
  const { exportResponseTemplate } = await import('../../export/response-template.js');
  const exported = exportResponseTemplate(id);
  if (flags.json) {
    out.stdout.write(`${JSON.stringify(exported, null, 2)}\n`);
    return;
  }
  out.stdout.write(`${JSON.stringify(exported.template, null, 2)}\n`);
  const verdict = exported.verdict === 'exact' ? 'exact except where every response template differs' : 'partial';
  io.stderr.write(`${exported.family}: ${verdict}; what the template loses against chatfmt's parser:\n`);
  for (const loss of exported.losses) io.stderr.write(`  - ${loss}\n`);
}

function listFamilies(flags: { json?: boolean }, io: IO): void {
  const rows = familyIds.map((id) => {
    const info = familyInfo[id];
    return { id, aliases: [...info.aliases], format: info.format, models: [...info.models], stop: [...info.stopStrings] };
  });
  if (flags.json) {
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  for (const row of rows) {
    io.stdout.write(`${row.id}${row.aliases.length ? `  (aliases: ${row.aliases.join(', ')})` : ''}\n`);
    io.stdout.write(`  format: ${row.format}\n`);
    io.stdout.write(`  models: ${row.models.join(', ')}\n`);
  }
  for (const variant of familyVariants) {
    io.stdout.write(`${variant.id}  (variant of ${variant.of}; aliases: ${variant.aliases.join(', ')})\n`);
    io.stdout.write(`  format: ${variant.of}, with the assistant turn pre-filled ${JSON.stringify(variant.prefill)}\n`);
    io.stdout.write(`  models: ${variant.models.join(', ')}\n`);
  }
}
