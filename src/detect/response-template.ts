import { familyIds, familyInfo, type FamilyId } from '../families/info.js';
import { parse } from '../parse/parse.js';
import type { LoadedTemplate } from '../render/types.js';
import { exportResponseTemplate } from '../export/response-template.js';
import type { ParsedMessage } from '../types.js';

/** What a template's own response template says about its family. */
export interface ResponseTemplateMatch {
  /** Where it came from in tokenizer_config.json. */
  key: 'response_template' | 'response_schema';
  /** The family whose exported template is exactly this one. */
  exported?: FamilyId;
  /** Families whose parser and this template agree on every probe completion (the family's example call, plain text). */
  agrees: FamilyId[];
  evidence: string[];
}

/**
 * Reads a template's response template against chatfmt's families: equal to a family's export, or parsing each family's
 * probe completions as the family's own parser does. Undefined when the template has none; a response template that
 * fails to load agrees with nothing (its error is in the evidence).
 */
export function matchResponseTemplate(template: LoadedTemplate): ResponseTemplateMatch | undefined {
  const responseTemplate = template.responseTemplate;
  if (!responseTemplate) return undefined;
  const key = template.responseTemplateKey ?? 'response_template';
  const evidence: string[] = [];
  const exported = familyIds.find((id) => sameJson(exportResponseTemplate(id).template, responseTemplate));
  if (exported) evidence.push(`its ${key} is chatfmt's exported ${exported} template`);
  const agrees: FamilyId[] = [];
  for (const id of familyIds) {
    const probes = probesOf(id);
    try {
      if (probes.every((probe) => sameMessage(parse(probe, { responseTemplate, output: 'openai' }), parse(probe, { family: id })))) agrees.push(id);
    } catch (error) {
      evidence.push(`its ${key} cannot be used: ${(error as Error).message}`);
      return { key, ...(exported ? { exported } : {}), agrees: [], evidence };
    }
  }
  if (agrees.length > 0) evidence.push(`its ${key} parses the probe completions of ${agrees.join(', ')} as chatfmt does`);
  else evidence.push(`its ${key} parses no family's probe completions as chatfmt does`);
  return { key, ...(exported ? { exported } : {}), agrees, evidence };
}

/** The family's example call (a call must come out) and plain text ended by its first stop string. */
function probesOf(id: FamilyId): string[] {
  const info = familyInfo[id];
  return [info.example, `Hello there.${info.stopStrings[0] ?? ''}`];
}

function sameMessage(mine: ParsedMessage, theirs: ParsedMessage): boolean {
  if (mine.diagnostics.some((d) => d.severity === 'error') || theirs.diagnostics.some((d) => d.severity === 'error')) return false;
  return (
    mine.content === theirs.content &&
    mine.reasoning_content === theirs.reasoning_content &&
    mine.tool_calls.length === theirs.tool_calls.length &&
    mine.tool_calls.every((call, i) => {
      const other = theirs.tool_calls[i]!;
      return call.function.name === other.function.name && sameJson(parseJson(call.function.arguments), parseJson(other.function.arguments));
    })
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Structural equality of JSON values (key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, i) => sameJson(item, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
