// What a link reproduces: every editor, the template choice and the replay settings, as JSON in the URL's hash,
// deflated when the browser has CompressionStream. A tokenizer.json is never put in a link (megabytes): the page says so.

/** Template files dropped as a model folder, as text. */
export interface FolderFiles {
  name: string;
  config?: string;
  chatTemplateJinja?: string;
  chatTemplateJson?: string;
  /** additional_chat_templates/<name>.jinja, by name. */
  additional?: Record<string, string>;
}

export type TemplateChoice =
  | { kind: 'family'; family: string }
  /** Template text, rendered with `tokensOf`'s special tokens (a bare template brings none). */
  | { kind: 'text'; text: string; tokensOf: string }
  | { kind: 'folder'; files: FolderFiles };

export interface PlaygroundState {
  template: TemplateChoice;
  messages: string;
  tools: string;
  addGenerationPrompt: boolean;
  completion: string;
  chunkSize: number;
}

/** Longest hash the page writes or reads; a larger state stays in the page and the link is not updated. */
export const MAX_HASH_CHARS = 1024 * 1024;
/** Largest state JSON a hash may inflate to (a deflated hash can expand a thousandfold). */
export const MAX_STATE_BYTES = 8 * 1024 * 1024;

const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

export function defaultState(): PlaygroundState {
  return {
    template: { kind: 'family', family: 'qwen3' },
    messages: JSON.stringify(
      [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: 'Is it raining in Paris?' },
      ],
      null,
      2,
    ),
    tools: JSON.stringify([WEATHER_TOOL], null, 2),
    addGenerationPrompt: true,
    completion: '<think>\nThe user wants the weather; I will call the tool.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    chunkSize: 8,
  };
}

export async function encodeState(state: PlaygroundState): Promise<string> {
  const bytes: Uint8Array<ArrayBuffer> = new TextEncoder().encode(JSON.stringify(state));
  if (typeof CompressionStream === 'function') {
    const deflated = await drain(new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw')), Infinity);
    return `z${toBase64Url(deflated)}`;
  }
  return `j${toBase64Url(bytes)}`;
}

/** The state a hash holds, or an error message for a hash that is not one (hand-edited, cut short, too large). */
export async function decodeState(hash: string): Promise<PlaygroundState | { error: string }> {
  if (hash.length > MAX_HASH_CHARS) return { error: `the link's state is longer than ${MAX_HASH_CHARS} characters` };
  try {
    const kind = hash[0];
    const raw: Uint8Array<ArrayBuffer> = fromBase64Url(hash.slice(1));
    let bytes: Uint8Array;
    if (kind === 'z') {
      if (typeof DecompressionStream !== 'function') return { error: 'this browser cannot inflate the link (no DecompressionStream)' };
      bytes = await drain(new Blob([raw]).stream().pipeThrough(new DecompressionStream('deflate-raw')), MAX_STATE_BYTES);
    } else if (kind === 'j') {
      bytes = raw;
    } else {
      return { error: 'the link does not hold a playground state' };
    }
    return checkState(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)));
  } catch (error) {
    return { error: `the link's state cannot be read (${error instanceof Error ? error.message : String(error)})` };
  }
}

/** Keeps what is well-formed and takes the default for the rest, so an old or edited link still opens. */
function checkState(value: unknown): PlaygroundState | { error: string } {
  if (!value || typeof value !== 'object') return { error: 'the link\'s state is not an object' };
  const given = value as Partial<Record<keyof PlaygroundState, unknown>>;
  const state = defaultState();
  if (typeof given.messages === 'string') state.messages = given.messages;
  if (typeof given.tools === 'string') state.tools = given.tools;
  if (typeof given.completion === 'string') state.completion = given.completion;
  if (typeof given.addGenerationPrompt === 'boolean') state.addGenerationPrompt = given.addGenerationPrompt;
  if (typeof given.chunkSize === 'number' && Number.isInteger(given.chunkSize) && given.chunkSize > 0) state.chunkSize = given.chunkSize;
  const template = given.template as Partial<{ kind: string; family: unknown; text: unknown; tokensOf: unknown; files: unknown }> | undefined;
  if (template?.kind === 'family' && typeof template.family === 'string') state.template = { kind: 'family', family: template.family };
  if (template?.kind === 'text' && typeof template.text === 'string' && typeof template.tokensOf === 'string') {
    state.template = { kind: 'text', text: template.text, tokensOf: template.tokensOf };
  }
  if (template?.kind === 'folder' && template.files && typeof template.files === 'object') {
    state.template = { kind: 'folder', files: folderFilesOf(template.files as Record<string, unknown>) };
  }
  return state;
}

function folderFilesOf(files: Record<string, unknown>): FolderFiles {
  const text = (key: string) => (typeof files[key] === 'string' ? (files[key] as string) : undefined);
  const out: FolderFiles = { name: text('name') ?? 'model' };
  for (const key of ['config', 'chatTemplateJinja', 'chatTemplateJson'] as const) {
    const value = text(key);
    if (value !== undefined) out[key] = value;
  }
  const additional = files.additional;
  if (additional && typeof additional === 'object') {
    out.additional = Object.fromEntries(Object.entries(additional).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  }
  return out;
}

async function drain(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`it inflates past ${limit} bytes`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
