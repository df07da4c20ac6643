import { familyIds, type FamilyId } from '../families/info.js';
import { loadTemplate } from '../render/load.js';
import { renderConversation } from '../render/render.js';
import type { LoadedTemplate } from '../render/types.js';
import { matchFingerprints } from './fingerprints.js';
import { probeConversations } from './probes.js';

export interface FamilyMatch {
  family: FamilyId;
  /** 1 = renders every probe conversation identically to the family template. */
  score: number;
  method: 'render-equivalence' | 'markers';
  evidence: string[];
}

const DETECT_NOW = new Date('2025-01-15T12:00:00Z');

/**
 * Which family a template belongs to, best first: render-equivalence on probe conversations
 * (node-llama-cpp's idea), then template markers as a fallback. Empty when nothing fits.
 */
export function detectFamily(template: LoadedTemplate): FamilyMatch[] {
  const matches: FamilyMatch[] = [];
  const ownTokens = Object.keys(template.specialTokens).length > 0;
  const candidateOutputs = ownTokens ? probeOutputs(template) : undefined;
  for (const id of familyIds) {
    const family = loadTemplate({ family: id });
    // Both sides render with the same special tokens: the candidate's own (a model folder or config),
    // or, for a bare .jinja file that brings none, the family's.
    const tokens = ownTokens ? template.specialTokens : family.specialTokens;
    const candidate = candidateOutputs ?? probeOutputs({ ...template, specialTokens: tokens });
    const reference = probeOutputs({ ...family, specialTokens: tokens });
    const evidence: string[] = [];
    let same = 0;
    let compared = 0;
    for (const probe of probeConversations) {
      const mine = candidate.get(probe.name);
      const theirs = reference.get(probe.name);
      if (mine === undefined || theirs === undefined) continue;
      compared++;
      if (mine === theirs) {
        same++;
        evidence.push(`renders the "${probe.name}" probe byte-identically to templates/${id}.jinja`);
      }
    }
    if (same > 0) matches.push({ family: id, score: same / Math.max(compared, 1), method: 'render-equivalence', evidence });
  }
  if (matches.length > 0) return matches.sort((a, b) => b.score - a.score);
  const source = template.select(false).source;
  return matchFingerprints(source).map((family) => ({
    family,
    score: 0.5,
    method: 'markers',
    evidence: [`template source contains the ${family} markers (no probe rendered identically)`],
  }));
}

function probeOutputs(template: LoadedTemplate): Map<string, string> {
  const outputs = new Map<string, string>();
  for (const probe of probeConversations) {
    try {
      outputs.set(probe.name, renderConversation(template, probe.conversation, { now: DETECT_NOW }).text);
    } catch {
      // A template that rejects a probe simply gives no evidence for it.
    }
  }
  return outputs;
}
