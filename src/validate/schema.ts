import type { ErrorObject, ValidateFunction } from 'ajv';
import { loadAjv } from '../node/dependencies.js';
import { isDatasetIssueCode, makeIssue, type DatasetIssue, type DatasetIssueCode } from '../readers/issues.js';
import { pointerToPath } from '../readers/paths.js';

// chatfmt's own JSON schemas for dataset rows. `x-code` / `x-message` annotate a node with the issue
// code (and fixed message) its failures map to; failures elsewhere map by ajv keyword.

const nonEmptyString = { type: 'string', minLength: 1 };

const contentPart = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' } },
  if: { properties: { type: { const: 'text' } } },
  then: { required: ['text'], properties: { text: { type: 'string' } } },
};

const toolCall = {
  type: 'object',
  required: ['function'],
  properties: {
    id: { type: 'string' },
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      // `arguments` may be anything here: the argument checks say what is wrong with a non-object.
      properties: { name: nonEmptyString },
    },
  },
};

const functionDeclaration = {
  type: 'object',
  required: ['name'],
  properties: { name: nonEmptyString, description: { type: 'string' }, parameters: { type: 'object' } },
};

const roleIs = (...roles: string[]) => ({ properties: { role: { enum: roles } }, required: ['role'] });

const message = {
  type: 'object',
  required: ['role'],
  properties: {
    role: {
      type: 'string',
      enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'],
      'x-code': 'MSG_BAD_ROLE',
    },
    content: { type: ['string', 'array', 'null'], items: contentPart },
    reasoning_content: { type: ['string', 'null'] },
    name: { type: 'string' },
    tool_calls: { type: 'array', items: toolCall },
    tool_call_id: { type: 'string' },
    function_call: { type: 'object', required: ['name', 'arguments'], properties: { name: nonEmptyString } },
    weight: { enum: [0, 1] },
  },
  allOf: [
    { if: roleIs('system', 'developer', 'user'), then: { required: ['content'], properties: { content: { type: ['string', 'array'] } } } },
    { if: roleIs('tool', 'function'), then: { required: ['content'] } },
    {
      if: roleIs('assistant'),
      then: {
        'x-code': 'MSG_ASSISTANT_EMPTY',
        'x-message': 'assistant message has neither content nor tool_calls',
        anyOf: [
          { required: ['content'], properties: { content: { anyOf: [nonEmptyString, { type: 'array', minItems: 1 }] } } },
          { required: ['tool_calls'], properties: { tool_calls: { type: 'array', minItems: 1 } } },
          { required: ['function_call'] },
        ],
      },
    },
  ],
};

const tool = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' } },
  if: { properties: { type: { const: 'function' } } },
  then: { required: ['function'], properties: { function: functionDeclaration } },
};

const openaiRowSchema = {
  type: 'object',
  required: ['messages'],
  properties: {
    messages: {
      type: 'array',
      minItems: 1,
      items: message,
    },
    tools: { type: ['array', 'null'], items: tool },
    functions: { type: 'array', items: functionDeclaration },
    parallel_tool_calls: { type: 'boolean' },
  },
};

const sharegptRowSchema = {
  type: 'object',
  required: ['conversations'],
  properties: {
    conversations: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['from', 'value'],
        properties: {
          from: {
            type: 'string',
            enum: ['human', 'gpt', 'function_call', 'observation', 'system'],
            'x-code': 'MSG_BAD_ROLE',
          },
          value: { type: 'string' },
        },
      },
    },
    system: { type: 'string' },
    tools: { type: ['string', 'array'] },
  },
};

export type RowShape = 'openai' | 'sharegpt';

let compiled: Record<RowShape, ValidateFunction> | undefined;

function validators(): Record<RowShape, ValidateFunction> {
  if (compiled) return compiled;
  const { Ajv } = loadAjv();
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, strictTypes: false, strictRequired: false, logger: false });
  ajv.addKeyword({ keyword: 'x-code', schemaType: 'string' });
  ajv.addKeyword({ keyword: 'x-message', schemaType: 'string' });
  compiled = { openai: ajv.compile(openaiRowSchema), sharegpt: ajv.compile(sharegptRowSchema) };
  return compiled;
}

const MAX_STRUCTURE_ISSUES = 50;

/** Structure issues of one row (already known to be a JSON object), in document order. */
export function checkStructure(row: unknown, shape: RowShape, line: number): DatasetIssue[] {
  const validate = validators()[shape];
  if (validate(row)) return [];
  const errors = relevantErrors(validate.errors ?? []);
  const issues: DatasetIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const issue = toIssue(error, line, shape);
    const key = `${issue.code} ${issue.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
    if (issues.length >= MAX_STRUCTURE_ISSUES) break;
  }
  return issues;
}

/**
 * Drops ajv's bookkeeping errors: `if` failures, the branch failures under an anyOf (reported as one issue),
 * and an anyOf failure that a more specific error inside the same object already explains.
 */
function relevantErrors(errors: ErrorObject[]): ErrorObject[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const inside = (e: ErrorObject, u: ErrorObject) => e.instancePath === u.instancePath || e.instancePath.startsWith(`${u.instancePath}/`);
  const branchOf = (e: ErrorObject, u: ErrorObject) => e.schemaPath.startsWith(`${u.schemaPath}/`) && inside(e, u);
  const kept = errors.filter((e) => e.keyword !== 'if' && !unions.some((u) => u !== e && branchOf(e, u)));
  return kept.filter((e) => !unions.includes(e) || !kept.some((other) => other !== e && !unions.includes(other) && other.instancePath.startsWith(`${e.instancePath}/`)));
}

function toIssue(error: ErrorObject, line: number, shape: RowShape): DatasetIssue {
  const annotated = (error.parentSchema as Record<string, unknown> | undefined) ?? {};
  const explicitCode = typeof annotated['x-code'] === 'string' && isDatasetIssueCode(annotated['x-code']) ? annotated['x-code'] : undefined;
  let path = pointerToPath(error.instancePath);
  let code: DatasetIssueCode;
  let text: string;
  const target = path === '' ? 'row' : path;
  switch (error.keyword) {
    case 'required': {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      path = pointerToPath(`${error.instancePath}/${missing}`);
      code = 'MSG_MISSING_FIELD';
      text = `missing required field "${missing}"${path.includes('.') || path.includes('[') ? ` in ${target}` : ''}`;
      break;
    }
    case 'type':
      code = 'MSG_WRONG_TYPE';
      text = `${target} must be ${String((error.params as { type: string | string[] }).type).replaceAll(',', ' or ')}, not ${typeName(error.data)}`;
      break;
    case 'minItems':
      code = error.instancePath === '/messages' || error.instancePath === '/conversations' ? 'MSG_EMPTY_MESSAGES' : 'MSG_BAD_VALUE';
      text = code === 'MSG_EMPTY_MESSAGES' ? `${target} is empty` : `${target} must not be empty`;
      break;
    case 'enum':
    case 'const': {
      const allowed = error.keyword === 'enum' ? (error.params as { allowedValues: unknown[] }).allowedValues : [(error.params as { allowedValue: unknown }).allowedValue];
      code = 'MSG_BAD_VALUE';
      text = `${target} is ${JSON.stringify(error.data)}; expected ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
      break;
    }
    case 'minLength':
      code = 'MSG_BAD_VALUE';
      text = `${target} must not be empty`;
      break;
    default:
      code = 'MSG_BAD_VALUE';
      text = `${target} ${error.message ?? 'is invalid'}`;
  }
  if (explicitCode) code = explicitCode;
  if (code === 'MSG_BAD_ROLE') text = roleMessage(error.data, shape);
  const fixed = annotated['x-message'];
  if (typeof fixed === 'string') text = fixed;
  return makeIssue(line, code, path, text);
}

function roleMessage(role: unknown, shape: RowShape): string {
  if (shape === 'sharegpt') {
    return `unknown "from" tag ${JSON.stringify(role)}: LLaMA-Factory's default tags are human, gpt, function_call, observation, system (other tags are dropped unless dataset_info.json maps them)`;
  }
  return `unknown role ${JSON.stringify(role)}: expected system, developer, user, assistant or tool`;
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
