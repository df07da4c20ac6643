// chatfmt serve: the latency the gateway adds to each streamed chunk against the backend itself, chunks per second
// across 64 concurrent streams, and the gateway's memory across 10,000 requests. Backend, gateway and client run in
// three processes on 127.0.0.1 (the replay backend stamps each piece with its send time).
import { fork, spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { fmt, root, table } from './lib.mjs';

const now = () => performance.timeOrigin + performance.now();
const here = fileURLToPath(import.meta.url);

/** Child mode: a gateway in front of the given backend; reports its URL, answers memory probes after a GC. */
async function childGateway(backend) {
  const { createGateway, loadGatewayModel } = await import(join(root, 'dist', 'gateway', 'index.js'));
  const gateway = createGateway({ model: loadGatewayModel({ family: 'qwen3' }).model, backend: { url: backend, kind: 'llama.cpp' }, maxConcurrency: 256 });
  const { url } = await gateway.listen(0);
  process.on('message', (message) => {
    if (message !== 'memory') return;
    globalThis.gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    process.send({ heapUsed, rss });
  });
  process.send({ url });
}

function start(script, args, execArgv = []) {
  const child = fork(script, args, { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const first = new Promise((resolve) => child.once('message', resolve));
  return { child, ready: first };
}

const ask = (child) => new Promise((resolve) => { child.once('message', resolve); child.send('memory'); });

/** Streams one answer; calls `onContent(text, receivedAt)` per content delta. Reads llama.cpp SSE or OpenAI SSE. */
async function streamOnce(url, direct, onContent) {
  const response = direct
    ? await fetch(`${url}/completion`, { method: 'POST', body: JSON.stringify({ prompt: 'x', stream: true }) })
    : await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'Go' }], stream: true }) });
  const decoder = new TextDecoder();
  let buffer = '';
  let chunks = 0;
  for await (const bytes of response.body) {
    const at = now();
    buffer += decoder.decode(bytes, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
      const value = JSON.parse(event.slice(6));
      const text = direct ? value.content : value.choices?.[0]?.delta?.content;
      if (text) {
        chunks++;
        onContent(text, at);
      }
    }
  }
  return chunks;
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function latency(quick) {
  const backend = start(join(root, 'bench', 'gateway-replay.mjs'), ['--port', '0', '--stamp', '100', '--delay-ms', '2']);
  const { url: backendUrl } = await backend.ready;
  const gateway = start(here, ['--child-gateway', backendUrl]);
  const { url: gatewayUrl } = await gateway.ready;
  const measure = async (url, direct) => {
    const delays = [];
    for (let i = 0; i < (quick ? 5 : 20); i++) {
      await streamOnce(url, direct, (text, at) => {
        for (const match of text.matchAll(/\[(\d+\.\d+)\]/g)) delays.push(at - Number(match[1]));
      });
    }
    return delays;
  };
  await measure(gatewayUrl, false); // warm-up
  const direct = await measure(backendUrl, true);
  const through = await measure(gatewayUrl, false);
  backend.child.kill();
  gateway.child.kill();
  return { direct, through };
}

async function throughput(quick) {
  const backend = start(join(root, 'bench', 'gateway-replay.mjs'), ['--port', '0', '--stamp', quick ? '100' : '400']);
  const { url: backendUrl } = await backend.ready;
  const gateway = start(here, ['--child-gateway', backendUrl]);
  const { url: gatewayUrl } = await gateway.ready;
  await streamOnce(gatewayUrl, false, () => undefined);
  const started = performance.now();
  const counts = await Promise.all(Array.from({ length: 64 }, () => streamOnce(gatewayUrl, false, () => undefined)));
  const seconds = (performance.now() - started) / 1000;
  backend.child.kill();
  gateway.child.kill();
  const chunks = counts.reduce((a, b) => a + b, 0);
  return { chunks, seconds, rate: chunks / seconds };
}

async function memory(quick) {
  const backend = start(join(root, 'bench', 'gateway-replay.mjs'), ['--port', '0']);
  const { url: backendUrl } = await backend.ready;
  const gateway = start(here, ['--child-gateway', backendUrl], ['--expose-gc']);
  const { url: gatewayUrl } = await gateway.ready;
  const total = quick ? 2000 : 10_000;
  const samples = [{ after: 0, ...(await ask(gateway.child)) }];
  let sent = 0;
  while (sent < total) {
    const batch = total / 5;
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next++ < batch) {
          const response = await fetch(`${gatewayUrl}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `Request ${sent + next}` }] }) });
          await response.json();
        }
      }),
    );
    sent += batch;
    samples.push({ after: sent, ...(await ask(gateway.child)) });
  }
  backend.child.kill();
  gateway.child.kill();
  return samples;
}

const median = (values) => percentile(values, 50);

/**
 * `chatfmt serve` as users start it, with and without its warm-up (interleaved): wall ms from the spawn to the
 * line that says it listens, then the first request and the median of the next five (not streamed, with a tool; the
 * client's own HTTP stack is warmed beforehand so only the gateway's first-call costs show).
 */
async function firstRequest(quick) {
  const backend = start(join(root, 'bench', 'gateway-replay.mjs'), ['--port', '0', '--reply', '<think>\nok\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>']);
  const { url: backendUrl } = await backend.ready;
  await (await fetch(`${backendUrl}/health`)).arrayBuffer().catch(() => undefined);
  try {
    return await startUps(backendUrl, quick);
  } finally {
    backend.child.kill();
  }
}

async function startUps(backendUrl, quick) {
  const body = JSON.stringify({
    model: 'm',
    messages: [{ role: 'system', content: 'You are helpful.' }, { role: 'user', content: 'Weather in Paris?' }],
    tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
  });
  const modes = [['warm-up (default)', []], ['`--no-warm-up`', ['--no-warm-up']]];
  const runs = new Map(modes.map(([name]) => [name, { ready: [], first: [], later: [] }]));
  for (let round = 0; round < (quick ? 2 : 7); round++) {
    for (const [name, extra] of modes) {
      const started = performance.now();
      const child = spawn(process.execPath, [join(root, 'bin', 'chatfmt.js'), 'serve', '--family', 'qwen3', '--backend', backendUrl, '--backend-kind', 'llama.cpp', '--port', '0', '--no-log', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      const url = await new Promise((resolve, reject) => {
        child.stderr.on('data', (data) => {
          stderr += data;
          const found = / on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
          if (found) resolve(found[1]);
        });
        child.once('exit', () => reject(new Error(`chatfmt serve exited: ${stderr}`)));
      });
      const run = runs.get(name);
      run.ready.push(performance.now() - started);
      const times = [];
      try {
        for (let i = 0; i < 6; i++) {
          const sent = performance.now();
          const response = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          const answer = await response.json();
          if (answer.choices?.[0]?.message?.tool_calls?.length !== 1) throw new Error(`unexpected answer: ${JSON.stringify(answer).slice(0, 200)}`);
          times.push(performance.now() - sent);
        }
      } finally {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      run.first.push(times[0]);
      run.later.push(median(times.slice(1)));
    }
  }
  return [...runs].map(([name, run]) => ({ name, ready: median(run.ready), first: median(run.first), later: median(run.later), runs: run.ready.length }));
}

export async function gatewaySection({ quick = false } = {}) {
  const { direct, through } = await latency(quick);
  const flow = await throughput(quick);
  const samples = await memory(quick);
  // Last: its process starts and stops would otherwise be in the latency figures' neighbourhood.
  const first = await firstRequest(quick);
  const mb = (bytes) => fmt(bytes / 1024 / 1024, 1);
  // The backend's and the client's clocks differ by a constant offset: delays are shown over the direct median.
  const offset = percentile(direct, 50);
  const added = percentile(through, 99) - percentile(direct, 99);
  const growth = samples.at(-1).heapUsed - samples[1].heapUsed;
  return [
    '## Gateway (`chatfmt serve`)',
    '',
    'Backend (replay), gateway and client in three processes on 127.0.0.1; qwen3 template, llama.cpp `/completion` backend.',
    'Latency: each backend piece carries its send time; a chunk\'s delay is its arrival time at the client minus that,',
    'shown over the direct median (the two processes\' clocks differ by a constant).',
    '',
    table(
      ['per streamed chunk', 'p50 ms', 'p99 ms', 'chunks'],
      [
        ['backend direct', fmt(percentile(direct, 50) - offset, 3), fmt(percentile(direct, 99) - offset, 3), fmt(direct.length)],
        ['through the gateway', fmt(percentile(through, 50) - offset, 3), fmt(percentile(through, 99) - offset, 3), fmt(through.length)],
      ],
    ),
    '',
    `Added by the gateway at p99: **${fmt(added, 3)} ms** (goal ≤ 1 ms).`,
    '',
    `Throughput, 64 concurrent streams: **${fmt(flow.rate)} chunks/s** (${fmt(flow.chunks)} chunks in ${fmt(flow.seconds, 2)} s; goal ≥ 5,000).`,
    '',
    `Load average while measuring: ${loadavg().map((load) => fmt(load, 1)).join(', ')} on ${cpus().length} cores (other work shares the machine).`,
    '',
    table(['requests served', 'heap after GC (MB)', 'RSS (MB)'], samples.map((sample) => [fmt(sample.after), mb(sample.heapUsed), mb(sample.rss)])),
    '',
    `Heap growth from the first sample after warm-up to the last: ${mb(growth)} MB over ${fmt(samples.at(-1).after - samples[1].after)} requests.`,
    '',
    '### The first request',
    '',
    '`chatfmt serve --family qwen3` started as users start it, with its warm-up (the default) and without, interleaved;',
    'wall ms, medians of the runs: spawn to the line that says it listens, the first request (not streamed, one tool',
    'call in the answer), and the median of the next five. The client\'s own HTTP stack was warmed beforehand.',
    '',
    table(
      ['start-up', 'runs', 'to listening, ms', 'first request, ms', 'later requests, ms', 'first / later'],
      first.map((row) => [row.name, fmt(row.runs), fmt(row.ready, 0), fmt(row.first, 1), fmt(row.later, 1), `${fmt(row.first / row.later, 1)}×`]),
    ),
  ].join('\n');
}

if (process.argv[2] === '--child-gateway') await childGateway(process.argv[3]);
else if (import.meta.url === `file://${process.argv[1]}`) console.log(await gatewaySection({ quick: process.argv.includes('--quick') }));
