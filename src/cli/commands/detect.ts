import type { DetectVerdict, FamilyMatch, ResponseTemplateMatch } from '../../detect/index.js';
import type { LoadedTemplate } from '../../render/index.js';
import { EXIT, type IO } from '../io.js';
import { withOutput } from '../output.js';
import { templatePath } from '../template-path.js';
import { collect, parseVariables } from '../options.js';
import { parseNow } from '../read-input.js';
import type { CommandRegistrar } from './index.js';

export const register: CommandRegistrar = (program, io, state) => {
  program
    .command('detect')
    .summary('tell which family a chat template is')
    .description('Tell which family a template belongs to, with evidence: render-equivalence on probe conversations first, template markers as a fallback; a response_template in the config is reported and compared with the families.')
    .argument('<template>', 'a .jinja file, a tokenizer_config.json, or a model folder')
    .option('--template-name <name>', 'named template inside the config')
    .option('--var <key=value>', 'template variable for the probe renders (a bare .jinja that needs bos_token); JSON when it parses, else a string (repeatable)', collect, [])
    .option('--now <iso>', 'clock for strftime_now in the probe renders (default 2025-01-15T12:00:00Z)')
    .option('--json', 'print all matches as JSON')
    .option('-o, --output <file>', 'write the result here instead of stdout')
    .addHelpText('after', '\nExit codes: 0 a family was found, 1 none matched or the output could not be written, 2 usage or I/O error,\n3 ambiguous or unknown: several families tie for first (the output names the probes each differs on), or\nonly markers in the source point at a family (no probe renders alike). Use --family when you know better.\n\nExample:\n  chatfmt detect ~/models/Qwen3-8B')
    .action(async (template: string, flags: DetectFlags) => {
      state.exitCode = await withOutput(io, flags.output, (out) => detect(template, flags, out));
    });
};

/** The template's own response template, for the report: where it came from and which families it reads like. */
function responseTemplateReport(loaded: LoadedTemplate, match: ResponseTemplateMatch | undefined): { key?: string; exported?: string; agrees?: string[]; evidence: string[] } | undefined {
  if (match) return match;
  if (loaded.responseTemplateError) return { evidence: [loaded.responseTemplateError] };
  return undefined;
}

/** Exit code for a verdict that is not `found`: a guess is printed, but scripts must not take it as the family. */
export const EXIT_UNSURE = 3;

interface DetectFlags {
  templateName?: string;
  json?: boolean;
  output?: string;
  var: string[];
  now?: string;
}

async function detect(template: string, flags: DetectFlags, io: IO): Promise<number> {
  // Loaded on use: every command is registered at start-up, and detection pulls in every family's parser.
  const { loadTemplate } = await import('../../node/load.js');
  const { detectFamily, detectVerdict, matchResponseTemplate } = await import('../../detect/index.js');
  const loaded = loadTemplate({ template: templatePath(template, io), templateName: flags.templateName });
  const response = matchResponseTemplate(loaded);
  const variables = parseVariables(flags.var);
  const now = parseNow(flags.now);
  const matches = detectFamily(loaded, response, { ...(variables ? { variables } : {}), ...(now ? { now } : {}) });
  const verdict = detectVerdict(matches);
  const responseTemplate = responseTemplateReport(loaded, response);
  if (flags.json) {
    const summary = { status: verdict.status, reason: verdict.reason };
    io.stdout.write(`${JSON.stringify({ template, verdict: summary, matches, ...(responseTemplate ? { responseTemplate } : {}) }, null, 2)}\n`);
  } else if (matches.length === 0) io.stdout.write(`${template}: no known family (no probe rendered identically, no family markers found)\n`);
  else printVerdict(verdict, matches, io);
  if (!flags.json && responseTemplate) {
    io.stdout.write(`response template: ${responseTemplate.key ?? 'unusable'}${responseTemplate.agrees?.length ? ` (parses like ${responseTemplate.agrees.join(', ')})` : ''}\n`);
    for (const line of responseTemplate.evidence) io.stdout.write(`  - ${line}\n`);
  }
  if (matches.length === 0) return EXIT.ISSUES;
  return verdict.status === 'found' ? EXIT.OK : EXIT_UNSURE;
}

function printVerdict(verdict: DetectVerdict, matches: FamilyMatch[], io: IO): void {
  const name = (match: FamilyMatch) => match.variant ?? match.family;
  if (verdict.status === 'ambiguous') {
    io.stdout.write(`ambiguous: ${verdict.tied.map(name).join(', ')} tie at ${verdict.best!.score.toFixed(2)} (render-equivalence)\n`);
    for (const match of verdict.tied) {
      const same = match.evidence.filter((line) => line.startsWith('renders the')).length;
      io.stdout.write(`  - ${name(match)}: ${same} probe(s) alike; differs on ${match.differs?.join(', ') || 'no probe'}\n`);
    }
    io.stdout.write('give --family to choose; the first is only a guess\n');
    return;
  }
  const [best, ...others] = matches;
  if (verdict.status === 'unknown') io.stdout.write(`unknown: ${verdict.reason}\n`);
  const variant = best!.variant ? ` (variant of ${best!.family}: use --family ${best!.variant})` : '';
  const guess = verdict.status === 'unknown' ? 'guess: ' : '';
  io.stdout.write(`${guess}${name(best!)}  (${best!.method}, score ${best!.score.toFixed(2)})${variant}\n`);
  for (const line of best!.evidence) io.stdout.write(`  - ${line}\n`);
  if (best!.differs?.length) io.stdout.write(`  - renders differently: ${best!.differs.join(', ')}\n`);
  if (others.length > 0) io.stdout.write(`also close: ${others.map((m) => `${name(m)} (${m.score.toFixed(2)})`).join(', ')}\n`);
}
