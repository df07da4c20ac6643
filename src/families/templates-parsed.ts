// The parsed form (jinja/parsed-form.ts) of each family template, by its file name under templates/. None here: the
// CLI's bundles (scripts/bundle-cli.mjs) put in this module's place one that reads the form made at build time from
// a file beside the bundle, so a run that renders a family builds its template without lexing and parsing it. A
// form that is missing, damaged or made from another text is ignored: the template's text is parsed as it is here.
export interface TemplateForms {
  get(templateFile: string): string | undefined;
}

export const familyTemplateForms: TemplateForms = { get: () => undefined };
