import { ChatfmtError } from '../errors.js';
import type { FamilyInfo } from '../families/family.js';
import { familyIds, familyInfo, resolveFamilyId, type FamilyId } from '../families/info.js';
import { familyTemplateSources } from '../families/templates.generated.js';
import { parserFamilies } from './parser-table.js';
import type { ParserFamily } from './parsers.js';

/** One family as every part of chatfmt sees it: its facts, its template and its parser. */
export interface Family extends FamilyInfo<FamilyId> {
  /** The bundled template's source (templates/<id>.jinja, built in: no file is read). */
  templateSource: string;
  parser: ParserFamily;
}

// The facts sit below the parse grammars (which read their tokens and stop strings), and the parser column has a
// module of its own (parser-table.ts), which loads no template text: this row joins facts, template and parser.
function family(id: FamilyId): Family {
  const facts = familyInfo[id];
  return { ...facts, templateSource: familyTemplateSources[facts.templateFile]!, parser: parserFamilies[id] };
}

/** The typed registry: render, parse, detect and convert all read this one table. */
export const families = Object.fromEntries(familyIds.map((id): [FamilyId, Family] => [id, family(id)])) as unknown as {
  readonly [Id in FamilyId]: Family;
};

/** A family by id or alias; unknown → ChatfmtError UNKNOWN_FAMILY. */
export function getFamily(name: string): Family {
  const id = resolveFamilyId(name);
  if (id === undefined) throw new ChatfmtError('UNKNOWN_FAMILY', `unknown family "${name}" (known: ${familyIds.join(', ')})`);
  return families[id];
}
