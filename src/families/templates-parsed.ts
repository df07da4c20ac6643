// What the CLI's bundles know about the family templates ahead of a run. Nothing here: scripts/bundle-cli.mjs puts
// in this module's place one made at build time from the same family templates it bundles (templates.generated.ts),
// so a run that renders a family neither lexes and parses its template nor probes it.
import type { ArgumentsForm } from './family.js';

export interface TemplateForms {
  /** The parsed form (jinja/parsed-form.ts) of a template under templates/, read from a file beside the bundle. */
  get(templateFile: string): string | undefined;
}

/** What `--args auto` probing finds in a family's template (render/probe.ts), by family id. */
export interface ProbedNeeds {
  argumentsForm: ArgumentsForm;
  nullContentNeedsString: boolean;
  nineCharCallIds: boolean;
}

/**
 * A form that is missing, damaged or made from another text is ignored: the template's text is parsed, as it is
 * here. Forms are files and so read as untrusted; the probe results are code of the bundle.
 */
export const familyTemplateForms: TemplateForms = { get: () => undefined };
export const familyTemplateNeeds: ReadonlyMap<string, ProbedNeeds> = new Map();
