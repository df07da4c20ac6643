// What a gateway's first request would otherwise pay for: the template's first render, the parser's first parse and
// the session's and protocols' code run once, unoptimised, while compiling. Run at start-up instead, against a
// stand-in backend, so a client's first request costs what later ones do.
import { formatTurn } from '../../format/completion.js';
import type { Tool } from '../../types.js';
import type { BackendChunk } from '../backends/types.js';
import { runSession, type GatewayModel } from './session.js';
import type { GatewayEvent, GatewayRequest, Protocol, ResponseMeta } from './types.js';

const TOOLS: Tool[] = [{
  type: 'function',
  function: { name: 'get_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
}];

/**
 * One streamed exchange with a tool call (plain text when the family is unknown), its events written by every
 * protocol as a stream and as a whole body. Never throws: a template that rejects this conversation simply leaves
 * its first real request to warm up.
 */
export async function warmUpModel(model: GatewayModel, protocols: Iterable<Protocol>): Promise<void> {
  const request: GatewayRequest = {
    model: model.name,
    messages: [{ role: 'system', content: 'You are a helpful assistant.' }, { role: 'user', content: 'What is the weather in Paris?' }],
    tools: TOOLS,
    toolsSent: true,
    toolChoice: 'auto',
    parallelToolCalls: true,
    stream: true,
    sampling: {},
    templateVariables: {},
    continueFinalMessage: false,
  };
  const events: GatewayEvent[] = [];
  try {
    const reply = completion(model);
    const complete = async () => chunks(reply);
    for await (const event of runSession(request, { model, complete }, new AbortController().signal)) events.push(event);
    const meta: ResponseMeta = { model: model.name, includeUsage: true, reasoningField: 'reasoning_content' };
    for (const protocol of protocols) {
      const write = protocol.createWriter(meta);
      for (const event of events) write(event);
      protocol.aggregate(events, meta);
    }
  } catch {
    // Warming up is an optimisation only.
  }
}

function completion(model: GatewayModel): string {
  if (!model.familyId) return 'It is sunny in Paris.';
  try {
    const call = { id: 'call_0', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city": "Paris"}' } };
    return formatTurn({ role: 'assistant', content: 'Let me check.', tool_calls: [call] }, { family: model.familyId, tools: TOOLS }).completion;
  } catch {
    return 'It is sunny in Paris.';
  }
}

/** The completion in a few pieces, as a backend streams it. */
async function* chunks(text: string): AsyncGenerator<BackendChunk> {
  const size = Math.max(1, Math.ceil(text.length / 8));
  for (let at = 0; at < text.length; at += size) yield { text: text.slice(at, at + size) };
  yield { stop: { reason: 'stop', raw: 'stop' }, usage: { promptTokens: 1, completionTokens: 1 } };
}
