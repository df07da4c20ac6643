import type { Conversation } from '../types.js';

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get the weather for a city.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' }, days: { type: 'integer' } },
      required: ['city'],
    },
  },
};

/**
 * Small canned conversations for render-equivalence: plain chat, a tool loop, and reasoning.
 * Kept few on purpose: every probe is rendered once per family.
 */
export const probeConversations: ReadonlyArray<{ name: string; conversation: Conversation }> = [
  {
    name: 'chat',
    conversation: {
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hi there' },
        { role: 'assistant', content: 'Hello.' },
        { role: 'user', content: 'Bye' },
      ],
      add_generation_prompt: true,
    },
  },
  {
    name: 'tool-loop',
    conversation: {
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'functions.get_weather:0', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris', days: 2 } } }],
        },
        { role: 'tool', tool_call_id: 'functions.get_weather:0', name: 'get_weather', content: '{"temp": 21}' },
        { role: 'assistant', content: 'It is 21 degrees.' },
        { role: 'user', content: 'Thanks' },
      ],
      tools: [weatherTool],
      add_generation_prompt: true,
    },
  },
  {
    name: 'reasoning',
    conversation: {
      messages: [
        { role: 'user', content: 'What is 2+2?' },
        { role: 'assistant', reasoning_content: 'Simple sum.', content: '4' },
      ],
      add_generation_prompt: false,
    },
  },
];
