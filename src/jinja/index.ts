// Public surface of src/jinja; being written by its owner (helper J). Interface fixed by the lead.
export interface CompileOptions { name?: string }
export interface JinjaRenderOptions { now?: Date }
export interface JinjaRenderResult { text: string; generationSpans: Array<[number, number]> }
export interface CompiledTemplate {
  readonly name: string;
  readonly source: string;
  readonly hasGenerationBlocks: boolean;
  render(variables: Record<string, unknown>, options?: JinjaRenderOptions): JinjaRenderResult;
}
export declare function compileTemplate(source: string, options?: CompileOptions): CompiledTemplate;
export declare function parsePythonJson(text: string): unknown;
