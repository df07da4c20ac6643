/** What a family's template expects in `function.arguments` (see ../shared/JINJA.md). */
export type ArgumentsForm = 'string' | 'object' | 'either';

/**
 * A family descriptor: the facts of one wire format. Render reads the template and tokens;
 * parse reads the grammar (added by src/parse); detect reads all of it.
 */
export interface FamilyInfo<Id extends string = string> {
  id: Id;
  aliases: readonly string[];
  /** One line: how calls and reasoning look on the wire. */
  format: string;
  /** Model families this descriptor covers. */
  models: readonly string[];
  /** File name under the package's templates/ folder. */
  templateFile: string;
  /** The official template this family's template must match, relative to ../shared/templates/official. */
  officialTemplate: string;
  /** Special tokens passed to the template, as transformers passes the tokenizer's special_tokens_map. */
  specialTokens: Readonly<Record<string, string>>;
  /** Strings that end generation. */
  stopStrings: readonly string[];
  /** The argument form the family template is written for. */
  argumentsForm: ArgumentsForm;
  /** A short completion in this format, for `--help` and docs. */
  example: string;
}
