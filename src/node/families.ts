import { families as coreFamilies, getFamily as getCoreFamily, type Family as CoreFamily } from '../registry/index.js';
import { familyIds, type FamilyId } from '../families/info.js';
import { familyTemplatePath } from './load.js';

/** A family as Node sees it: the core's descriptor plus where its template file lies. */
export interface Family extends CoreFamily {
  /** Absolute path of the bundled template (templates/<id>.jinja). */
  templatePath: string;
}

/** The typed registry with template paths (Node only; the core's has the templates built in). */
export const families = Object.fromEntries(
  familyIds.map((id): [FamilyId, Family] => [id, { ...coreFamilies[id], templatePath: familyTemplatePath(id) }]),
) as unknown as { readonly [Id in FamilyId]: Family };

/** A family by id or alias; unknown → ChatfmtError UNKNOWN_FAMILY. */
export function getFamily(name: string): Family {
  return families[getCoreFamily(name).id];
}
