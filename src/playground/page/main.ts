// The playground page's controller: editors → state → the library → the view, and state ↔ the URL's hash.
import { Tokenizer } from '@huggingface/tokenizers';
import { messageTokenCounts } from '../../convert/message-tokens.js';
import { buildTokenizer, chatTokenizerFrom, directCalls, type ChatTokenizer } from '../../convert/tokenizer-offsets.js';
import { familyIds, familyInfo, familyVariants, resolveFamilyId } from '../../families/info.js';
import { familyTemplateSources } from '../../families/templates.generated.js';
import { parse } from '../../parse/parse.js';
import type { ParseOptions } from '../../parse/stream.js';
import type { LoadedTemplate } from '../../render/types.js';
import type { Conversation, Delta, ParsedMessage } from '../../types.js';
import { attempt, loadChoice, readConversation, renderPrompt, specialStrings, templateFacts, type Outcome, type TemplateFacts } from './analysis.js';
import { folderConfig, readDroppedFiles, type NamedFile } from './folder.js';
import { wireFileInputs } from './drop.js';
import { markerShapedTokens } from './markers.js';
import { Replay } from './replay.js';
import { decodeState, defaultState, encodeState, MAX_HASH_CHARS, type FolderFiles, type PlaygroundState } from './state.js';
import { byId, diagnosticNote, showDetect, showNotes, showParsed, showPrompt, showTokenCounts, type Note } from './view.js';

const REFRESH_DELAY_MS = 150;
const REPLAY_INTERVAL_MS = 60;

let state: PlaygroundState = defaultState();
/** The last dropped folder, so switching modes and back keeps it. */
let lastFolder: FolderFiles | undefined;
let tokenizer: { chat: ChatTokenizer; added: string[]; name: string } | undefined;
let fileNotes: Note[] = [];
let replay: Replay | undefined;
let playing: ReturnType<typeof setInterval> | undefined;
let loadedCache: { key: string; loaded: Outcome<LoadedTemplate>; facts?: TemplateFacts } | undefined;

const editors = {
  messages: byId<HTMLTextAreaElement>('messages'),
  tools: byId<HTMLTextAreaElement>('tools'),
  template: byId<HTMLTextAreaElement>('template'),
  completion: byId<HTMLTextAreaElement>('completion'),
};
const familySelect = byId<HTMLSelectElement>('family');
const chunkInput = byId<HTMLInputElement>('chunk-size');
const generationPrompt = byId<HTMLInputElement>('gen-prompt');

function template(): { loaded: Outcome<LoadedTemplate>; facts?: TemplateFacts } {
  const key = JSON.stringify(state.template);
  if (loadedCache?.key !== key) loadedCache = { key, loaded: attempt(() => loadChoice(state.template)) };
  const cached = loadedCache;
  if ('ok' in cached.loaded && !cached.facts) cached.facts = templateFacts(cached.loaded.ok, state.template);
  return cached;
}

function familyHint(): string | undefined {
  return state.template.kind === 'family' ? state.template.family : state.template.kind === 'text' ? state.template.tokensOf : undefined;
}

/** Recomputes everything shown from the state. */
function refresh(): void {
  document.body.dataset.pending = '0';
  stopPlaying();
  replay = undefined;
  const notes: Note[] = [...fileNotes];
  const { loaded, facts } = template();
  const conversation = attempt(() => readConversation(state.messages, state.tools));
  const renderError = byId('render-error');
  renderError.textContent = '';
  byId('prompt').replaceChildren();
  byId('token-counts').replaceChildren(emptyNote(tokenizer ? '' : 'drop a tokenizer.json to count tokens'));
  if ('error' in loaded) renderError.textContent = `template: ${loaded.error}`;
  else if ('error' in conversation) renderError.textContent = conversation.error;
  else showRender(loaded.ok, conversation.ok, notes);
  if ('ok' in loaded && loaded.ok.responseTemplateError) notes.push({ severity: 'warning', text: loaded.ok.responseTemplateError });
  if (facts && 'ok' in facts.verdict) showDetect(byId('detect'), facts.verdict.ok);
  else byId('detect').textContent = facts && 'error' in facts.verdict ? facts.verdict.error : '';
  if (facts && 'ok' in facts.parser) {
    byId('parser-name').textContent = `parser: ${facts.parser.ok.label}`;
    if (facts.parser.ok.diagnostic) notes.push(diagnosticNote(facts.parser.ok.diagnostic));
  } else byId('parser-name').textContent = facts && 'error' in facts.parser ? `no parser: ${facts.parser.error}` : '';
  if (facts && 'ok' in facts.verdict && facts.verdict.ok.status !== 'found') notes.push({ severity: 'warning', text: `detect: ${facts.verdict.ok.reason}` });
  if (tokenizer) notes.push({ severity: 'warning', text: `${tokenizer.name} is used for counts but is not kept in the link` });
  showNotes(byId('warnings'), notes);
  parseWhole('ok' in conversation ? conversation.ok : undefined);
}

function showRender(loaded: LoadedTemplate, conversation: Conversation, notes: Note[]): void {
  const prompt = attempt(() => renderPrompt(loaded, conversation, state.addGenerationPrompt));
  if ('error' in prompt) {
    byId('render-error').textContent = prompt.error;
    return;
  }
  for (const warning of prompt.ok.warnings) notes.push({ severity: 'warning', text: `${warning.code} at ${warning.path}: ${warning.message}` });
  showPrompt(byId('prompt'), prompt.ok, specialStrings(loaded, familyHint(), [...(tokenizer?.added ?? []), ...markerShapedTokens(prompt.ok.text)]));
  if (!tokenizer) return;
  const counts = attempt(() => messageTokenCounts(loaded, conversation, tokenizer!.chat, { addGenerationPrompt: state.addGenerationPrompt, maxPrefixRenderChars: COUNT_BUDGET }));
  if ('ok' in counts) showTokenCounts(byId('token-counts'), counts.ok, conversation.messages);
  else byId('token-counts').replaceChildren(emptyNote(`cannot count tokens: ${counts.error}`));
}

/**
 * The page counts again on every edit, so a pasted conversation of thousands of messages gets "cannot count tokens"
 * after a fraction of a second (~0.25 s of rendering) rather than the library's ~10 s default.
 */
const COUNT_BUDGET = 100_000_000;

function emptyNote(text: string): HTMLElement {
  const note = document.createElement('span');
  note.className = 'empty';
  note.textContent = text;
  return note;
}

function parseOptions(conversation: Conversation | undefined): ParseOptions | { error: string } {
  const { facts } = template();
  if (!facts) return { error: 'no template' };
  if ('error' in facts.parser) return { error: facts.parser.error };
  const { family, prefix } = facts.parser.ok;
  return { family, tools: conversation?.tools ?? null, ...(prefix !== undefined ? { prefix } : {}) };
}

function currentConversation(): Conversation | undefined {
  const conversation = attempt(() => readConversation(state.messages, state.tools));
  return 'ok' in conversation ? conversation.ok : undefined;
}

function parseWhole(conversation = currentConversation()): void {
  stopPlaying();
  replay = undefined;
  const options = parseOptions(conversation);
  const parsed: Outcome<ParsedMessage> = 'error' in options ? options : attempt(() => parse(state.completion, options));
  showParseOutcome(parsed, [], 'whole completion');
}

function showParseOutcome(parsed: Outcome<ParsedMessage>, deltas: Delta[], status: string): void {
  byId('replay-status').textContent = status;
  if ('error' in parsed) {
    showParsed(undefined);
    showNotes(byId('diagnostics'), [{ severity: 'error', text: parsed.error }]);
  } else showParsed(parsed.ok);
  const held = status.startsWith('chunk') ? '(none: the parser holds this text until it can tell what it is)' : status.startsWith('finished') ? '(none)' : '';
  byId('last-deltas').textContent = deltas.length > 0 ? deltas.map((delta) => JSON.stringify(delta)).join('\n') : held;
}

/** One chunk more; starts a replay when none is running. False when the replay has finished. */
function step(): boolean {
  if (!replay) {
    const options = parseOptions(currentConversation());
    if ('error' in options) {
      showParseOutcome(options, [], 'no parser');
      return false;
    }
    replay = new Replay(state.completion, state.chunkSize, options);
  }
  const current = replay;
  const moved = attempt(() => current.step());
  if ('error' in moved) {
    showParseOutcome(moved, [], 'failed');
    return false;
  }
  const status = current.finished ? `finished: ${current.chunks} chunks of ${state.chunkSize}` : `chunk ${current.fed} of ${current.chunks}`;
  showParseOutcome({ ok: current.message() }, current.lastDeltas, status);
  return moved.ok && !current.finished;
}

function stopPlaying(): void {
  if (playing !== undefined) clearInterval(playing);
  playing = undefined;
  byId('play').textContent = 'Replay';
}

function play(): void {
  if (playing !== undefined) {
    stopPlaying();
    return;
  }
  if (!replay || replay.finished) replay = undefined;
  byId('play').textContent = 'Pause';
  playing = setInterval(() => {
    if (!step()) stopPlaying();
  }, REPLAY_INTERVAL_MS);
}

// ---- state ↔ editors and URL ----

let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let saveTimer: ReturnType<typeof setTimeout> | undefined;

function changed(): void {
  document.body.dataset.pending = '1';
  byId('share').textContent = 'saving the link…';
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, REFRESH_DELAY_MS);
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => void saveToUrl(), REFRESH_DELAY_MS * 2);
}

async function saveToUrl(): Promise<void> {
  const encoded = await encodeState(state);
  if (encoded.length > MAX_HASH_CHARS) {
    byId('share').textContent = `too large for a link (${encoded.length} characters): the URL keeps the last state that fit`;
    return;
  }
  history.replaceState(null, '', `#${encoded}`);
  byId('share').textContent = 'link up to date';
}

function fillEditors(): void {
  editors.messages.value = state.messages;
  editors.tools.value = state.tools;
  editors.completion.value = state.completion;
  chunkInput.value = String(state.chunkSize);
  generationPrompt.checked = state.addGenerationPrompt;
  const choice = state.template;
  byId<HTMLInputElement>(`mode-${choice.kind}`).checked = true;
  if (choice.kind === 'family') familySelect.value = choice.family;
  if (choice.kind === 'text') {
    familySelect.value = choice.tokensOf;
    editors.template.value = choice.text;
  }
  if (choice.kind === 'folder') lastFolder = choice.files;
  showMode();
}

function showMode(): void {
  const kind = state.template.kind;
  byId('template-pane').style.display = kind === 'text' ? '' : 'none';
  byId('load-official').style.display = kind === 'folder' ? 'none' : '';
  familySelect.disabled = kind === 'folder';
  byId('files-list').textContent = lastFolder && kind === 'folder' ? `folder: ${lastFolder.name} (${folderFileNames(lastFolder).join(', ')})` : '';
}

function folderFileNames(files: FolderFiles): string[] {
  const names = [files.config && 'tokenizer_config.json', files.chatTemplateJinja && 'chat_template.jinja', files.chatTemplateJson && 'chat_template.json'];
  return [...names.filter((name): name is string => Boolean(name)), ...Object.keys(files.additional ?? {}).map((name) => `additional_chat_templates/${name}.jinja`)];
}

function officialTemplate(name: string): string {
  const id = resolveFamilyId(name);
  return id ? (familyTemplateSources[familyInfo[id].templateFile] ?? '') : '';
}

function setMode(kind: PlaygroundState['template']['kind']): void {
  const family = familySelect.value;
  if (kind === 'family') state.template = { kind, family };
  if (kind === 'text') {
    if (editors.template.value.trim() === '') editors.template.value = officialTemplate(family);
    state.template = { kind, text: editors.template.value, tokensOf: family };
  }
  if (kind === 'folder') {
    if (lastFolder) state.template = { kind, files: lastFolder };
    else fileNotes = [{ severity: 'warning', text: 'drop a model folder (or its tokenizer_config.json / chat_template.jinja) first' }];
  }
  fillEditors();
  changed();
}

async function takeFiles(files: NamedFile[], folderName: string): Promise<void> {
  const dropped = await readDroppedFiles(files, folderName).catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
  if ('error' in dropped) {
    fileNotes = [{ severity: 'error', text: dropped.error }];
    changed();
    return;
  }
  fileNotes = dropped.skipped.map((text) => ({ severity: 'warning', text }));
  if (dropped.folder) {
    lastFolder = dropped.folder;
    state.template = { kind: 'folder', files: dropped.folder };
  }
  if (dropped.tokenizer) {
    const config = folderConfig(dropped.folder ?? lastFolder);
    const built = attempt(() => {
      const raw = buildTokenizer(Tokenizer, dropped.tokenizer!.json, config, dropped.tokenizer!.name);
      const added = [...raw.get_added_tokens_decoder().values()].map((token) => token.content);
      return { chat: chatTokenizerFrom(raw, directCalls(raw), config, dropped.tokenizer!.name), added, name: dropped.tokenizer!.name };
    });
    if ('ok' in built) tokenizer = built.ok;
    else fileNotes.push({ severity: 'error', text: built.error });
  }
  fillEditors();
  changed();
}

function wire(): void {
  for (const id of [...familyIds, ...familyVariants.map((variant) => variant.id)]) familySelect.append(new Option(id, id));
  editors.messages.addEventListener('input', () => ((state.messages = editors.messages.value), changed()));
  editors.tools.addEventListener('input', () => ((state.tools = editors.tools.value), changed()));
  editors.completion.addEventListener('input', () => ((state.completion = editors.completion.value), changed()));
  editors.template.addEventListener('input', () => {
    if (state.template.kind === 'text') state.template = { ...state.template, text: editors.template.value };
    changed();
  });
  generationPrompt.addEventListener('change', () => ((state.addGenerationPrompt = generationPrompt.checked), changed()));
  chunkInput.addEventListener('change', () => {
    const size = Number(chunkInput.value);
    state.chunkSize = Number.isInteger(size) && size > 0 ? Math.min(size, 1 << 20) : 1;
    chunkInput.value = String(state.chunkSize);
    changed();
  });
  familySelect.addEventListener('change', () => setMode(state.template.kind));
  for (const kind of ['family', 'text', 'folder'] as const) byId(`mode-${kind}`).addEventListener('change', () => setMode(kind));
  byId('load-official').addEventListener('click', () => {
    editors.template.value = officialTemplate(familySelect.value);
    setMode('text');
  });
  byId('parse-whole').addEventListener('click', () => parseWhole());
  byId('step').addEventListener('click', () => {
    stopPlaying();
    if (replay?.finished) replay = undefined;
    step();
  });
  byId('play').addEventListener('click', play);
  byId('reset').addEventListener('click', () => parseWhole());
  wireFileInputs(byId<HTMLInputElement>('files'), byId('drop'), (files, folderName) => void takeFiles(files, folderName));
}

async function start(): Promise<void> {
  wire();
  const hash = location.hash.slice(1);
  if (hash) {
    const decoded = await decodeState(hash);
    if ('error' in decoded) fileNotes = [{ severity: 'error', text: decoded.error }];
    else state = decoded;
  }
  fillEditors();
  refresh();
  byId('share').textContent = hash ? 'opened from the link' : '';
  document.body.dataset.ready = '1';
}

void start();
