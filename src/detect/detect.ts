import { ChatfmtError } from '../errors.js';
import { familyIds, familyVariants, type FamilyId } from '../families/info.js';
import { loadTemplate } from '../render/load.js';
import { renderConversation } from '../render/render.js';
import type { LoadedTemplate } from '../render/types.js';
import { matchFingerprints } from './fingerprints.js';
import { matchResponseTemplate, type ResponseTemplateMatch } from './response-template.js';
import { probeConversations } from './probes.js';

export interface FamilyMatch {
  family: FamilyId;
  /** Set when the template is the family's with a pre-filled assistant turn (`qwen3-thinking` for QwQ). */
  variant?: string;
  /** 1 = renders every probe conversation identically to the family template. */
  score: number;
  /** 'response-template': found only through the template's own response template (see matchResponseTemplate). */
  method: 'render-equivalence' | 'markers' | 'response-template';
  evidence: string[];
  /** The probes this template renders differently from the candidate's (render-equivalence only). */
  differs?: string[];
}

/**
 * What detect can honestly say. `found`: one family ranks first on its own. `ambiguous`: several families tie at the
 * top score (SmolLM3-like ChatML templates share only the generation prompt with hermes, qwen2.5 and qwen3).
 * `unknown`: nothing renders alike and only markers in the source point at a family (Functionary's Llama-3 headers
 * around its own call syntax), or nothing matched at all.
 */
export interface DetectVerdict {
  status: 'found' | 'ambiguous' | 'unknown';
  /** The first match, when there is one: for `ambiguous` and `unknown` a guess only. */
  best?: FamilyMatch;
  /** The matches that tie with the best (itself included) when ambiguous. */
  tied: FamilyMatch[];
  /** One line saying why. */
  reason: string;
}

const nameOf = (match: FamilyMatch) => match.variant ?? match.family;

/** The verdict on `detectFamily`'s matches: whether the first one may be taken as the template's family. */
export function detectVerdict(matches: readonly FamilyMatch[]): DetectVerdict {
  const [best] = matches;
  if (!best) return { status: 'unknown', tied: [], reason: 'no probe rendered identically and no family markers were found' };
  if (best.method === 'markers') {
    return { status: 'unknown', best, tied: [], reason: `no probe renders like any family; only template markers point at ${nameOf(best)}` };
  }
  const tied = matches.filter((match) => match.method === best.method && match.score === best.score);
  if (tied.length > 1) {
    const detail = tied.map((match) => `${nameOf(match)} differs on ${match.differs?.length ? match.differs.join(', ') : 'no probe'}`).join('; ');
    return { status: 'ambiguous', best, tied, reason: `${tied.map(nameOf).join(', ')} tie at ${best.score.toFixed(2)} (${detail})` };
  }
  return { status: 'found', best, tied: [best], reason: `${nameOf(best)} (${best.method}, score ${best.score.toFixed(2)})` };
}

const DETECT_NOW = new Date('2025-01-15T12:00:00Z');

/**
 * How probe conversations are rendered: extra template variables (a bare .jinja that needs `bos_token`, or
 * `enable_thinking=false`) and the clock for strftime_now. Both sides of every comparison render with the same ones.
 */
export interface ProbeOptions {
  variables?: Record<string, unknown>;
  now?: Date;
}

/**
 * Which family a template belongs to, best first: render-equivalence on probe conversations
 * (node-llama-cpp's idea), then template markers as a fallback. Empty when nothing fits.
 * A template with a response template also has it compared with the families (`matchResponseTemplate`): families it
 * agrees with gain that evidence and rank first among equal scores, and families found only that way are added.
 * A caller that already has that comparison passes it as `response` (it parses probes with every family).
 */
export function detectFamily(
  template: LoadedTemplate,
  response: ResponseTemplateMatch | undefined = matchResponseTemplate(template),
  options: ProbeOptions = {},
): FamilyMatch[] {
  const found = detectByRendering(template, options);
  if (!response) return found;
  const agreeing = new Set<FamilyId>(response.agrees);
  const line = (id: FamilyId) =>
    response.exported === id ? `its ${response.key} is chatfmt's exported ${id} template` : `its ${response.key} parses the ${id} probe completions as chatfmt does`;
  for (const match of found) if (agreeing.has(match.family)) match.evidence.push(line(match.family));
  const rank = (match: FamilyMatch) => (match.family === response.exported ? 2 : agreeing.has(match.family) ? 1 : 0);
  found.sort((a, b) => b.score - a.score || rank(b) - rank(a));
  if (found.some((match) => match.method === 'render-equivalence')) return found;
  // Nothing renders alike: the response template is better evidence than markers in the source.
  const only = response.agrees.filter((id) => !found.some((match) => match.family === id));
  const extra = only.map((id): FamilyMatch => ({ family: id, score: 0.5, method: 'response-template', evidence: [line(id)] }));
  return [...extra.sort((a, b) => rank(b) - rank(a)), ...found];
}

function detectByRendering(template: LoadedTemplate, options: ProbeOptions): FamilyMatch[] {
  const matches: FamilyMatch[] = [];
  const ownTokens = Object.keys(template.specialTokens).length > 0;
  const exhausted: Exhausted = { limit: false };
  const candidateOutputs = ownTokens ? probeOutputs(template, options, exhausted) : undefined;
  const candidates = [
    ...familyIds.map((id) => ({ family: id, name: id, variant: undefined as string | undefined })),
    ...familyVariants.map((variant) => ({ family: variant.of, name: variant.id, variant: variant.id })),
  ];
  const source = template.select(false).source;
  const marked = new Set(matchFingerprints(source));
  for (const { family: id, name, variant } of candidates) {
    // Its own tokens: rendered once above. Otherwise once per family's tokens, which a limit ends.
    if (exhausted.limit && !candidateOutputs) break;
    const family = loadTemplate({ family: name });
    // Both sides render with the same special tokens: the candidate's own (a model folder or config),
    // or, for a bare .jinja file that brings none, the family's.
    const tokens = ownTokens ? template.specialTokens : family.specialTokens;
    const candidate = candidateOutputs ?? probeOutputs({ ...template, specialTokens: tokens }, options, exhausted);
    const reference = probeOutputs({ ...family, specialTokens: tokens }, options);
    const evidence: string[] = [];
    const differs: string[] = [];
    let same = 0;
    let compared = 0;
    for (const probe of [...probeConversations.map((p) => p.name), GENERATION_PROMPT]) {
      const mine = candidate.get(probe);
      const theirs = reference.get(probe);
      if (mine === undefined || theirs === undefined) continue;
      compared++;
      if (mine === theirs) {
        same++;
        evidence.push(`renders the "${probe}" probe byte-identically to the ${name} template`);
      } else differs.push(probe);
    }
    // An empty generation prompt is shared by every template that adds none (Mistral's, a bare
    // `{{ messages[0].content }}`): alone, it is evidence only for a template that carries the family's markers.
    const emptyPromptOnly = same === 1 && candidate.get(GENERATION_PROMPT) === '' && reference.get(GENERATION_PROMPT) === '';
    if (same > 0 && (!emptyPromptOnly || marked.has(id))) matches.push({ family: id, ...(variant ? { variant } : {}), score: same / Math.max(compared, 1), method: 'render-equivalence', evidence, differs });
  }
  if (matches.length > 0) {
    // Equal scores (two families whose templates both add nothing as the generation prompt, say) are ordered by
    // whether the template's source carries the family's own markers.
    const rank = (match: FamilyMatch) => (marked.has(match.family) ? 0 : 1);
    return matches.sort((a, b) => b.score - a.score || rank(a) - rank(b));
  }
  return [...marked].map((family) => ({
    family,
    score: 0.5,
    method: 'markers',
    evidence: [`template source contains the ${family} markers (no probe rendered identically)`],
  }));
}

/**
 * What the template adds after a user turn to open the assistant's: the part of a prompt the completion continues
 * from. Scored like a probe, because templates that render history alike (QwQ and Qwen3-Coder drop reasoning) still
 * differ here (QwQ pre-fills `<think>\n`).
 */
const GENERATION_PROMPT = 'generation-prompt';

/**
 * Set once a probe render of the template being detected ran into a sandbox limit. Such a template is not rendered
 * again: each render spends the whole budget, and a bare .jinja file is rendered for every candidate family's special
 * tokens (a template looping 10,000 × 10,000 times took 14.5 s to detect, then failed anyway).
 */
interface Exhausted { limit: boolean }

function probeOutputs(template: LoadedTemplate, options: ProbeOptions, exhausted: Exhausted = { limit: false }): Map<string, string> {
  const clock = { now: options.now ?? DETECT_NOW, ...(options.variables ? { variables: options.variables } : {}) };
  const outputs = new Map<string, string>();
  const attempt = (name: string, render: () => string) => {
    if (exhausted.limit) return;
    try {
      outputs.set(name, render());
    } catch (error) {
      // A template that rejects a probe simply gives no evidence for it; one past a sandbox limit gives none at all.
      if (error instanceof ChatfmtError && error.code === 'TEMPLATE_LIMIT') exhausted.limit = true;
    }
  };
  for (const probe of probeConversations) {
    attempt(probe.name, () => renderConversation(template, probe.conversation, clock).text);
  }
  const asked = { messages: [{ role: 'user' as const, content: 'Hi there' }] };
  attempt(GENERATION_PROMPT, () => {
    const before = renderConversation(template, asked, { ...clock, addGenerationPrompt: false }).text;
    const after = renderConversation(template, asked, { ...clock, addGenerationPrompt: true }).text;
    if (!after.startsWith(before)) throw new Error('the generation prompt rewrites the history');
    return after.slice(before.length);
  });
  return outputs;
}
