import { familyIds, familyInfo, familyVariants } from '../../families/info.js';
import type { IO } from '../io.js';
import { outputTo } from '../output.js';
import type { CommandRegistrar } from './index.js';

export const register: CommandRegistrar = (program, io) => {
  program
    .command('families')
    .summary('list the model families chatfmt speaks')
    .description('List every family: its id (what --family takes), aliases, wire format and the models it covers.')
    .option('--json', 'print the registry as JSON')
    .option('-o, --output <file>', 'write the list here instead of stdout')
    .action(async (flags: { json?: boolean; output?: string }) => {
      const out = outputTo(io, flags.output);
      listFamilies(flags, out.io);
      await out.close();
    });
};

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
