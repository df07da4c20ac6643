import { describe, expect, it } from 'vitest';
import { ChatfmtError, loadTemplate, render, renderConversation } from '../../src/index.js';

const user = { role: 'user', content: 'hi' };

function errorOf(f: () => unknown): ChatfmtError {
  try {
    f();
  } catch (error) {
    return error as ChatfmtError;
  }
  throw new Error('expected an error');
}

describe('transformers semantics', () => {
  it('passes special tokens, then messages/tools/documents/add_generation_prompt, then extra variables that override', () => {
    const source = '{{ eos_token }}|{{ tools is none }}|{{ documents is none }}|{{ add_generation_prompt }}|{{ flavour }}';
    const loaded = { ...loadTemplate({ source }), specialTokens: { eos_token: '<e>', flavour: 'token' } };
    expect(renderConversation(loaded, { messages: [user] }).text).toBe('<e>|True|True|False|token');
    expect(renderConversation(loaded, { messages: [user], flavour: 'conversation' }).text).toBe('<e>|True|True|False|conversation');
    expect(renderConversation(loaded, { messages: [user], flavour: 'conversation' }, { variables: { flavour: 'option', eos_token: 'E' }, addGenerationPrompt: true }).text)
      .toBe('E|True|True|True|option');
  });

  it('takes the four named variables from the conversation as transformers does, whatever else the row holds', () => {
    const source = '{{ messages | length }}|{{ tools is none }}|{{ documents is none }}|{{ add_generation_prompt }}|{{ eos_token }}|{{ flavour }}';
    const loaded = { ...loadTemplate({ source }), specialTokens: { eos_token: '<e>', messages: 'token' } };
    const row = { messages: [user, user], tools: undefined, documents: null, add_generation_prompt: true, eos_token: '<row>', flavour: 'row' };
    expect(renderConversation(loaded, row).text).toBe('2|True|True|True|<row>|row');
    expect(renderConversation(loaded, row, { addGenerationPrompt: false, variables: { flavour: 'option' } }).text).toBe('2|True|True|False|<row>|option');
    const withProto = JSON.parse('{"messages": [{"role": "user", "content": "hi"}], "__proto__": {"flavour": "inherited"}, "eos_token": "<p>"}');
    expect(renderConversation(loaded, withProto).text).toBe('1|True|True|False|<p>|');
  });

  it('turns raise_exception into a TEMPLATE_RAISED error naming the template and its message', () => {
    const error = errorOf(() => render({ source: '{{ raise_exception("Only user and assistant roles!") }}', messages: [user] }));
    expect(error.code).toBe('TEMPLATE_RAISED');
    expect(error.message).toContain('<inline>');
    expect(error.message).toContain('Only user and assistant roles!');
  });

  it('formats strftime_now with the injected clock', () => {
    const out = render({ source: '{{ strftime_now("%Y-%m-%d %H:%M %d %b %Y") }}', messages: [user], now: new Date('2024-02-29T23:05:00Z') });
    expect(out.text).toBe('2024-02-29 23:05 29 Feb 2024');
  });

  it('records {% generation %} blocks as UTF-16 spans of the output', () => {
    const source = '{% for m in messages %}[{% if m.role == "assistant" %}{% generation %}{{ m.content }}!{% endgeneration %}{% else %}{{ m.content }}{% endif %}]{% endfor %}';
    const out = render({ source, messages: [user, { role: 'assistant', content: 'yo 😀' }, user, { role: 'assistant', content: 'ok' }] });
    expect(out.text).toBe('[hi][yo 😀!][hi][ok!]');
    expect(out.generationSpans.map(([s, e]) => out.text.slice(s, e))).toEqual(['yo 😀!', 'ok!']);
  });

  it('continue_final_message cuts right after the final message content', () => {
    const source = '{% for m in messages %}<{{ m.role }}>{{ m.content }}</end>\n{% endfor %}';
    const out = render({ source, messages: [user, { role: 'assistant', content: 'The answer is' }], continueFinalMessage: true });
    expect(out.text).toBe('<user>hi</end>\n<assistant>The answer is');
    const both = errorOf(() => render({ source, messages: [user], continueFinalMessage: true, addGenerationPrompt: true }));
    expect(both.code).toBe('INPUT_INVALID');
  });
});

describe('--args auto', () => {
  const call = (args: unknown) => ({ role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }] });
  const concatenating = '{% for m in messages %}{% if m.tool_calls %}{% for t in m.tool_calls %}{{ "CALL " + t.function.arguments }}{% endfor %}{% endif %}{% endfor %}';
  const serialising = '{% for m in messages %}{% if m.tool_calls %}{% for t in m.tool_calls %}{{ t.function.arguments | tojson }}{% endfor %}{% endif %}{% endfor %}';
  const iterating = '{% for m in messages %}{% if m.tool_calls %}{% for t in m.tool_calls %}{% for k, v in t.function.arguments | items %}{{ k }}={{ v }};{% endfor %}{% endfor %}{% endif %}{% endfor %}';

  it('gives a concatenating template JSON text, where keep raises a TypeError as jinja2 does', () => {
    const auto = render({ source: concatenating, messages: [user, call({ city: 'Paris', days: 2 })] });
    expect(auto.text).toBe('CALL {"city": "Paris", "days": 2}');
    expect(auto.warnings.map((w) => [w.code, w.path])).toEqual([['ARGS_CONVERTED', 'messages[1].tool_calls[0].function.arguments']]);
    const keep = errorOf(() => render({ source: concatenating, messages: [user, call({ city: 'Paris' })], args: 'keep' }));
    expect(keep.code).toBe('TEMPLATE_RUNTIME');
    expect(keep.message).toContain('TypeError');
  });

  it('gives a tojson template an object instead of double-encoding a JSON string, keeping 1.0', () => {
    const auto = render({ source: serialising, messages: [user, call('{"x": 1.0, "y": "z"}')] });
    expect(auto.text).toBe('{"x": 1.0, "y": "z"}');
    const keep = render({ source: serialising, messages: [user, call('{"x": 1.0}')], args: 'keep' });
    expect(keep.text).toBe('"{\\"x\\": 1.0}"');
  });

  it('gives an |items template an object and leaves either-form templates alone', () => {
    expect(render({ source: iterating, messages: [user, call('{"a": "b"}')] }).text).toBe('a=b;');
    const either = '{% for m in messages %}{% for t in m.tool_calls or [] %}{{ t.function.arguments if t.function.arguments is string else t.function.arguments | tojson }}{% endfor %}{% endfor %}';
    const out = render({ source: either, messages: [user, call('{"a":1}')] });
    expect(out.text).toBe('{"a":1}');
    expect(out.warnings).toEqual([]);
  });

  it('turns content null into "" only where the template would print None', () => {
    const printing = '{% for m in messages %}[{{ m.content }}]{% endfor %}';
    const auto = render({ source: printing, messages: [user, { role: 'assistant', content: null }] });
    expect(auto.text).toBe('[hi][]');
    expect(auto.warnings[0]?.code).toBe('NULL_CONTENT_CONVERTED');
    expect(render({ source: printing, messages: [user, { role: 'assistant', content: null }], args: 'keep' }).text).toBe('[hi][None]');
    const missing = render({ source: '{% for m in messages %}[{{ m.content | trim }}]{% endfor %}', messages: [user, { role: 'assistant' }] });
    expect(missing.text).toBe('[hi][]');
    expect(missing.warnings[0]?.message).toContain('content missing');
    const careful = '{% for m in messages %}[{{ m.content if m.content is not none else "" }}]{% endfor %}';
    expect(render({ source: careful, messages: [user, { role: 'assistant', content: null }] }).warnings).toEqual([]);
  });
});
