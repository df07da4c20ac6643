import { ChatfmtError } from '../errors.js';
import { familyInfo } from '../families/info.js';
import type { ParserFamily } from '../registry/index.js';
import type { LoadedTemplate } from '../render/types.js';
import type { Diagnostic } from '../types.js';
import { deriveParser, parsesProbes, probeTemplate } from './derive-grammar.js';
import { detectFamily, detectVerdict, type FamilyMatch, type ProbeOptions } from './detect.js';

/** How to parse what a template's model writes, when no family was named. */
export interface TemplateParser {
  /** What `parse({family})` takes: a family or variant name, or a derived parser. */
  family: string | ParserFamily;
  /** Set for a derived grammar: the generation prompt's prefill, which the completion continues. */
  prefix?: string;
  method: FamilyMatch['method'] | 'derived';
  evidence: string[];
  /** For derived grammars and weak family matches: a warning to report with every parse, so the guess is never silent. */
  diagnostic?: Diagnostic;
}

/** A family whose template renders like this one on this share of the probes is taken even unverified. */
const FAMILY_SCORE = 0.75;

/**
 * The parser for a template of unknown family: the first family `detect` finds by render-equivalence whose parser
 * reads the template's probe renders back, or one it renders like on most probes, else a grammar derived from those
 * renders. Throws TEMPLATE_NO_PARSER naming everything that was tried.
 */
export function parserForTemplate(template: LoadedTemplate, options: ProbeOptions = {}): TemplateParser {
  const matches = detectFamily(template, undefined, options);
  const probed = probeTemplate(template, options);
  const best = matches[0];
  const rendered = matches.filter((match) => match.method === 'render-equivalence');
  // A bare .jinja file brings no special tokens (Mistral's templates need eos_token): as detect does, it is probed
  // with the candidate family's.
  const ownTokens = Object.keys(template.specialTokens).length > 0;
  for (const match of rendered) {
    const name = match.variant ?? match.family;
    const set = ownTokens ? probed : probeTemplate({ ...template, specialTokens: familyInfo[match.family].specialTokens }, options);
    if ('probes' in set && parsesProbes(name, set)) {
      return { family: name, method: 'render-equivalence', evidence: [...match.evidence, `the ${name} parser reads the probe renders back`] };
    }
  }
  // Rendering like a family on most probes is evidence enough when its parser cannot read the generic probes back
  // (Kimi writes the probe's `call_…` ids into its own syntax; harmony splits a turn into messages).
  const likely = rendered.find((match) => match.score >= FAMILY_SCORE);
  if (likely) return { family: likely.variant ?? likely.family, method: 'render-equivalence', evidence: likely.evidence };
  const derived = deriveParser(template, probed);
  if ('parser' in derived) {
    const summary = derived.evidence.join('; ');
    return {
      family: derived.parser,
      prefix: derived.prefix,
      method: 'derived',
      evidence: derived.evidence,
      diagnostic: {
        code: 'PARSE_GRAMMAR_DERIVED',
        severity: 'warning',
        message: `${template.name} matches no known family; its call syntax was derived from probe renders (${summary})`,
      },
    };
  }
  // Last resort before giving up: the family it renders like on some probes, or whose markers its source carries. A
  // template whose probe renders fail (it needs a field the probes lack) or show no calls at all (Kimi-K2's first
  // template) still belongs to its family; the parse says how weak the evidence was.
  // A tie, or markers whose family cannot read the calls the template visibly writes, is no family at all: parsing
  // with the guess would find no calls and say nothing (SmolLM3's ChatML tie; Functionary's Llama-3 headers).
  const verdict = detectVerdict(matches);
  const writesUnreadCalls = best?.method === 'markers' && 'probes' in probed && !parsesProbes(best.variant ?? best.family, probed);
  if (verdict.status === 'ambiguous' || writesUnreadCalls) {
    const why = verdict.status === 'ambiguous' ? `its family is ambiguous: ${verdict.reason}` : `its family is unknown: ${verdict.reason}, and that parser does not read the template's probe calls back`;
    throw new ChatfmtError(
      'TEMPLATE_NO_PARSER',
      `cannot tell how ${template.name} writes its output: ${why}; no call grammar could be derived (${derived.tried.join('; ')}); give --family if you know it`,
      { template: template.name },
    );
  }
  if (best) {
    const name = best.variant ?? best.family;
    return {
      family: name,
      method: best.method,
      evidence: best.evidence,
      diagnostic: {
        code: 'PARSE_FAMILY_UNVERIFIED',
        severity: 'warning',
        message: `${template.name} was parsed as ${name} on weak evidence (${verdict.status === 'unknown' ? 'family unknown, ' : ''}${best.method}, score ${best.score.toFixed(2)}: ${best.evidence.join('; ')}); no call grammar could be derived (${derived.tried.join('; ')})`,
      },
    };
  }
  const closest = 'no family renders any probe alike';
  throw new ChatfmtError(
    'TEMPLATE_NO_PARSER',
    `cannot tell how ${template.name} writes its output: it has no response_template, ${closest}, and no call grammar could be derived (${derived.tried.join('; ')})`,
    { template: template.name },
  );
}
