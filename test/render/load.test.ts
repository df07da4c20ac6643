import { describe, expect, it } from 'vitest';
import { ChatfmtError, loadTemplate, renderConversation } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';

const tmp = tempDir();
const chat = { messages: [{ role: 'user', content: 'hi' }] };
const show = '{{ bos_token }}|{{ eos_token }}|{% for m in messages %}{{ m.content }}{% endfor %}';

function renderText(spec: Parameters<typeof loadTemplate>[0], conversation: Record<string, unknown> = chat): string {
  return renderConversation(loadTemplate(spec), conversation as never).text;
}

describe('where templates come from', () => {
  it('reads a .jinja file', () => {
    const file = tmp.write('plain.jinja', 'A{{ messages[0].content }}');
    expect(renderText({ template: file })).toBe('Ahi');
  });

  it('reads a tokenizer_config.json string template and its special tokens, including {content} objects', () => {
    const file = tmp.write('cfg1/tokenizer_config.json', JSON.stringify({
      chat_template: show,
      bos_token: { content: '<s>', lstrip: false },
      eos_token: '</s>',
    }));
    expect(renderText({ template: file })).toBe('<s>|</s>|hi');
  });

  it('picks tool_use when tools are given, else default, and honours --template-name', () => {
    const file = tmp.write('cfg2/tokenizer_config.json', JSON.stringify({
      chat_template: [
        { name: 'default', template: 'DEFAULT' },
        { name: 'tool_use', template: 'TOOLS' },
        { name: 'rag', template: 'RAG' },
      ],
    }));
    expect(renderText({ template: file })).toBe('DEFAULT');
    expect(renderText({ template: file }, { ...chat, tools: [{ type: 'function', function: { name: 'f' } }] })).toBe('TOOLS');
    expect(renderText({ template: file, templateName: 'rag' })).toBe('RAG');
    expect(() => loadTemplate({ template: file, templateName: 'nope' })).toThrow(/no chat template named "nope".*default, tool_use, rag/);
  });

  it('in a model folder, chat_template.jinja wins over the config and additional templates are named', () => {
    const dir = tmp.path + '/model';
    tmp.write('model/tokenizer_config.json', JSON.stringify({ chat_template: 'FROM CONFIG', eos_token: '<eos>' }));
    tmp.write('model/chat_template.jinja', 'FROM FILE {{ eos_token }}');
    tmp.write('model/additional_chat_templates/tool_use.jinja', 'EXTRA TOOLS');
    expect(renderText({ template: dir })).toBe('FROM FILE <eos>');
    expect(renderText({ template: dir }, { ...chat, tools: [{ type: 'function', function: { name: 'f' } }] })).toBe('EXTRA TOOLS');
  });

  it('gives coded errors for missing files, folders without templates and unknown families', () => {
    const codeOf = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return (error as ChatfmtError).code;
      }
      return 'no error';
    };
    expect(codeOf(() => loadTemplate({ template: tmp.path + '/missing.jinja' }))).toBe('TEMPLATE_SOURCE');
    tmp.write('empty-model/README.md', 'nothing');
    expect(codeOf(() => loadTemplate({ template: tmp.path + '/empty-model' }))).toBe('TEMPLATE_SOURCE');
    expect(codeOf(() => loadTemplate({ family: 'llama-9' }))).toBe('UNKNOWN_FAMILY');
    expect(codeOf(() => loadTemplate({}))).toBe('TEMPLATE_SOURCE');
  });

  it('resolves family aliases to the family template and its special tokens', () => {
    const loaded = loadTemplate({ family: 'harmony' });
    expect(loaded.family).toBe('gpt-oss');
    expect(loaded.specialTokens.eos_token).toBe('<|return|>');
  });
});
