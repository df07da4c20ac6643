// "What the client got" for the Anthropic and Responses front-ends, in the shape test/gateway/helpers/answers.ts
// uses for chatfmt's parse, so an SDK's message, an SDK's response and the parse compare with toEqual. Arguments are
// compared as JSON values: Anthropic hands the client an input object, never the model's text.
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import type { Answer } from './helpers/answers.js';

type Comparable = Omit<Answer, 'diagnostics' | 'finish'>;

const orNull = (texts: string[]) => (texts.length === 0 ? null : texts.join(''));

export function fromAnthropic(message: Anthropic.Message): Comparable {
  const texts: string[] = [];
  const thoughts: string[] = [];
  const calls: Answer['calls'] = [];
  for (const block of message.content) {
    if (block.type === 'text') texts.push(block.text);
    else if (block.type === 'thinking') thoughts.push(block.thinking);
    else if (block.type === 'tool_use') calls.push({ name: block.name, arguments: JSON.stringify(block.input) });
  }
  return { content: orNull(texts), reasoning: orNull(thoughts), calls };
}

export function fromResponse(response: OpenAI.Responses.Response): Comparable {
  const texts: string[] = [];
  const thoughts: string[] = [];
  const calls: Answer['calls'] = [];
  for (const item of response.output) {
    if (item.type === 'message') for (const part of item.content) texts.push(part.type === 'output_text' ? part.text : part.refusal);
    else if (item.type === 'reasoning') for (const part of item.content ?? []) thoughts.push(part.text);
    else if (item.type === 'function_call') calls.push({ name: item.name, arguments: JSON.stringify(JSON.parse(item.arguments)) });
  }
  return { content: orNull(texts), reasoning: orNull(thoughts), calls };
}

/** A parse result with its arguments as JSON values, to compare with the two above. */
export function comparableParse(answer: Answer): Comparable {
  return {
    content: answer.content,
    reasoning: answer.reasoning,
    calls: answer.calls.map((call) => ({ name: call.name, arguments: JSON.stringify(JSON.parse(call.arguments)) })),
  };
}
