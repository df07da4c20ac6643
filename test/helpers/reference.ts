import { parsePythonJson, pythonJsonDumps } from '../../src/index.js';

/** render_ref.py's `--args` forms: keep as given; string: object arguments → JSON text; dict: JSON text → object. */
export const ARGUMENT_FORMS = ['keep', 'string', 'dict'] as const;
export type ArgumentForm = (typeof ARGUMENT_FORMS)[number];

type Obj = Record<string, unknown>;

/** The same conversion render_ref.py applies, with Python's json.dumps / json.loads semantics. */
export function convertArguments<M>(messages: M[], form: ArgumentForm): M[] {
  if (form === 'keep') return messages;
  return messages.map((message) => {
    const calls = (message as Obj).tool_calls;
    if (!Array.isArray(calls) || calls.length === 0) return message;
    const converted = calls.map((call: Obj) => {
      const holder = (call.function ?? call) as Obj;
      const args = holder.arguments;
      let next = args;
      if (form === 'string' && args !== null && args !== undefined && typeof args !== 'string') next = pythonJsonDumps(args);
      else if (form === 'dict' && typeof args === 'string') next = parsePythonJson(args);
      if (next === args) return call;
      const updated = { ...holder, arguments: next };
      return call.function !== undefined ? { ...call, function: updated } : updated;
    });
    return { ...(message as Obj), tool_calls: converted } as M;
  });
}

/** The variables transformers (and render_ref.py) give the template: tokens, the four standard keys, then extras. */
export function referenceVariables(data: Obj, tokens: Obj, form: ArgumentForm): Obj {
  const { messages, tools, documents, add_generation_prompt, ...extra } = data;
  return {
    ...tokens,
    messages: convertArguments(messages as unknown[], form),
    tools: tools ?? null,
    documents: documents ?? null,
    add_generation_prompt: add_generation_prompt ?? false,
    ...extra,
  };
}
