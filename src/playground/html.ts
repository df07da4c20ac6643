// The playground's page: markup and style only. Everything it does is the bundled script (page/main.ts), which the
// server hands out as /playground.js; nothing is fetched from anywhere else.

const STYLE = `
:root { --bg: #f6f7f9; --panel: #fff; --line: #d8dce3; --ink: #1d2330; --muted: #667085; --accent: #2f5bd3;
  --special: #8a3ffc; --assistant: #dff3e4; --assistant-line: #2e9d57; --prompt: #fff1cc; --prompt-line: #c98a00;
  --bad: #b42318; --warn: #9a6700; --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); font: 14px/1.45 system-ui, sans-serif; }
header { display: flex; align-items: baseline; gap: 16px; padding: 10px 18px; background: var(--ink); color: #fff; }
header h1 { margin: 0; font-size: 17px; font-weight: 600; }
header .hint { color: #b8c0cc; font-size: 12px; }
header #share { margin-left: auto; font-size: 12px; color: #b8c0cc; }
main { display: grid; grid-template-columns: minmax(300px, 1fr) minmax(360px, 1.3fr) minmax(300px, 1fr); gap: 12px; padding: 12px; }
section { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; min-width: 0; }
h2 { margin: 0 0 8px; font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
h3 { margin: 12px 0 4px; font-size: 12px; color: var(--muted); font-weight: 600; }
label { font-size: 12px; color: var(--muted); }
textarea { width: 100%; font: 12px/1.4 var(--mono); border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; resize: vertical; background: #fbfcfd; color: var(--ink); }
textarea:focus, select:focus, input:focus { outline: 2px solid #c7d5fb; border-color: var(--accent); }
#messages { height: 220px; } #tools { height: 130px; } #template { height: 160px; } #completion { height: 150px; }
.row { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 6px 0; }
.tabs { display: flex; gap: 0; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; width: fit-content; }
.tabs label { padding: 4px 10px; cursor: pointer; color: var(--ink); }
.tabs input { display: none; }
.tabs label:has(input:checked) { background: var(--accent); color: #fff; }
select, input[type=number] { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
input[type=number] { width: 70px; }
button { font: inherit; font-size: 13px; padding: 4px 10px; border: 1px solid var(--line); border-radius: 6px; background: #fff; cursor: pointer; }
button:hover { border-color: var(--accent); color: var(--accent); }
button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
#drop { border: 2px dashed var(--line); border-radius: 8px; padding: 10px; text-align: center; color: var(--muted); font-size: 12px; }
#drop.over { border-color: var(--accent); background: #eef2fd; }
#files-list { font: 11px var(--mono); color: var(--muted); margin-top: 4px; }
pre { margin: 0; font: 12px/1.5 var(--mono); white-space: pre-wrap; word-break: break-word; }
#prompt { border: 1px solid var(--line); border-radius: 6px; padding: 8px; background: #fbfcfd; max-height: 560px; overflow: auto; }
#prompt .special { color: var(--special); font-weight: 600; }
#prompt mark { background: none; color: inherit; }
#prompt mark.assistant { background: var(--assistant); box-shadow: inset 2px 0 0 var(--assistant-line); }
#prompt mark.gen-prompt { background: var(--prompt); box-shadow: inset 2px 0 0 var(--prompt-line); }
.legend { display: flex; gap: 12px; font-size: 11px; color: var(--muted); margin: 4px 0 8px; }
.legend span::before { content: ''; display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: -1px; border-radius: 2px; }
.legend .l-special::before { background: var(--special); } .legend .l-assistant::before { background: var(--assistant-line); }
.legend .l-prompt::before { background: var(--prompt-line); }
table { border-collapse: collapse; width: 100%; font-size: 12px; }
td, th { text-align: left; padding: 2px 6px; border-bottom: 1px solid #eef0f3; }
td.count, th.count { text-align: right; font-variant-numeric: tabular-nums; }
#detect { font-size: 13px; }
#detect .status { font-weight: 600; padding: 1px 6px; border-radius: 4px; margin-right: 6px; }
#detect .found { background: #dff3e4; color: #1e6b3a; } #detect .ambiguous, #detect .unknown { background: #fdf0d5; color: var(--warn); }
ul { margin: 4px 0; padding-left: 18px; }
#warnings li, #diagnostics li { font-size: 12px; }
li.error, .error { color: var(--bad); } li.warning { color: var(--warn); }
.field { border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; background: #fbfcfd; min-height: 28px; }
.empty { color: var(--muted); font-style: italic; }
.call { border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; margin: 4px 0; list-style: none; background: #fbfcfd; }
#parsed-calls { padding: 0; }
.call-name { font: 600 12px var(--mono); color: var(--accent); }
#replay-status, #parser-name { font-size: 12px; color: var(--muted); }
#last-deltas { max-height: 120px; overflow: auto; font-size: 11px; color: var(--muted); }
@media (max-width: 1100px) { main { grid-template-columns: 1fr; } }
`;

const BODY = `
<header><h1>chatfmt playground</h1><span class="hint">render · detect · count · parse, all in this page</span><span id="share"></span></header>
<main>
<section id="input">
  <h2>Template</h2>
  <div class="tabs" role="radiogroup">
    <label><input type="radio" name="mode" id="mode-family" value="family">Family</label>
    <label><input type="radio" name="mode" id="mode-text" value="text">Template text</label>
    <label><input type="radio" name="mode" id="mode-folder" value="folder">Model folder</label>
  </div>
  <div class="row"><label for="family">family</label><select id="family"></select>
    <button id="load-official" title="Put this family's template in the editor, to change it">Edit its template</button></div>
  <div id="template-pane"><textarea id="template" spellcheck="false"></textarea></div>
  <div id="drop">Drop model files here (tokenizer_config.json, chat_template.jinja, chat_template.json, tokenizer.json)<br>
    or <input type="file" id="files" multiple></div>
  <div id="files-list"></div>
  <h2 style="margin-top:12px">Messages <label>(JSON array)</label></h2>
  <textarea id="messages" spellcheck="false"></textarea>
  <h2 style="margin-top:8px">Tools <label>(JSON array, or empty)</label></h2>
  <textarea id="tools" spellcheck="false"></textarea>
  <div class="row"><label><input type="checkbox" id="gen-prompt"> add_generation_prompt</label></div>
</section>
<section id="output">
  <h2>Prompt</h2>
  <div class="legend"><span class="l-special">special token</span><span class="l-assistant">assistant output ({% generation %})</span><span class="l-prompt">generation prompt</span></div>
  <pre id="prompt"></pre>
  <div id="render-error" class="error"></div>
  <h3>Tokens per message</h3>
  <div id="token-counts"><span class="empty">drop a tokenizer.json to count tokens</span></div>
  <h3>Detect</h3>
  <div id="detect"></div>
  <h3>Warnings</h3>
  <ul id="warnings"></ul>
</section>
<section id="parse">
  <h2>Completion</h2>
  <textarea id="completion" spellcheck="false" placeholder="paste what the model wrote"></textarea>
  <div class="row">
    <button id="parse-whole" class="primary">Parse whole</button>
    <label for="chunk-size">chunk</label><input type="number" id="chunk-size" min="1" value="8">
    <button id="step">Step</button><button id="play">Replay</button><button id="reset">Reset</button>
    <span id="replay-status"></span>
  </div>
  <div id="parser-name"></div>
  <h3>content</h3><div class="field"><pre id="parsed-content"></pre></div>
  <h3>reasoning_content</h3><div class="field"><pre id="parsed-reasoning"></pre></div>
  <h3>tool_calls</h3><ul id="parsed-calls"></ul>
  <h3>Diagnostics</h3><ul id="diagnostics"></ul>
  <h3>Last deltas</h3><pre id="last-deltas"></pre>
</section>
</main>
`;

/** The page, loading its script from `scriptPath` on the same server. */
export function playgroundHtml(scriptPath = '/playground.js'): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>chatfmt playground</title><style>${STYLE}</style></head>
<body>${BODY}<script type="module" src="${scriptPath}"></script></body></html>
`;
}
