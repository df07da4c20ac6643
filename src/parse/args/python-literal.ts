// A reader for Python literals as models and templates print them (`{'a': True, 'b': (1, 2)}`):
// Seed-OSS/Qwen3-Coder history renders non-strings with Python's str(), so models echo that form.
// A data parser only; nothing is ever evaluated. One pass, bounded nesting.

export type PythonLiteralResult = { ok: true; value: unknown } | { ok: false };

type PyNode =
  | { kind: 'string'; value: string }
  | { kind: 'number'; json: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' }
  | { kind: 'array'; items: PyNode[] }
  | { kind: 'object'; entries: Map<string, PyNode> };

const maxDepth = 64;

class Unparsable extends Error {}

/** Parses a Python literal (dict/list/tuple/str/int/float/True/False/None; JSON keywords too). */
export function parsePythonLiteral(text: string): PythonLiteralResult {
  const node = readPythonLiteral(text);
  return node ? { ok: true, value: toValue(node) } : { ok: false };
}

/**
 * The literal as compact JSON text, with number spelling kept (`10**20`-sized ints stay exact),
 * plus its kind; undefined when `text` is not a literal.
 */
export function pythonLiteralToJson(text: string): { json: string; kind: PyNode['kind'] } | undefined {
  const node = readPythonLiteral(text);
  return node ? { json: toJson(node), kind: node.kind } : undefined;
}

function readPythonLiteral(text: string): PyNode | undefined {
  const reader = new Reader(text);
  try {
    reader.skipSpace();
    const node = reader.value(0);
    reader.skipSpace();
    return reader.atEnd() ? node : undefined;
  } catch (error) {
    if (error instanceof Unparsable) return undefined;
    throw error;
  }
}

function toValue(node: PyNode): unknown {
  switch (node.kind) {
    case 'string':
    case 'boolean':
      return node.value;
    case 'number':
      return Number(node.json);
    case 'null':
      return null;
    case 'array':
      return node.items.map(toValue);
    case 'object':
      // fromEntries defines own properties, so a `__proto__` key stays data.
      return Object.fromEntries([...node.entries].map(([key, item]) => [key, toValue(item)]));
  }
}

function toJson(node: PyNode): string {
  switch (node.kind) {
    case 'string':
      return JSON.stringify(node.value);
    case 'number':
      return node.json;
    case 'boolean':
      return node.value ? 'true' : 'false';
    case 'null':
      return 'null';
    case 'array':
      return `[${node.items.map(toJson).join(',')}]`;
    case 'object':
      return `{${[...node.entries].map(([key, item]) => `${JSON.stringify(key)}:${toJson(item)}`).join(',')}}`;
  }
}

const keywords: Record<string, PyNode> = {
  True: { kind: 'boolean', value: true },
  False: { kind: 'boolean', value: false },
  None: { kind: 'null' },
  true: { kind: 'boolean', value: true },
  false: { kind: 'boolean', value: false },
  null: { kind: 'null' },
};

const simpleEscapes: Record<string, string> = {
  '\n': '',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

class Reader {
  private i = 0;
  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.i >= this.text.length;
  }

  skipSpace(): void {
    while (this.i < this.text.length) {
      const c = this.text.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 12) this.i++;
      else break;
    }
  }

  value(depth: number): PyNode {
    if (depth > maxDepth) throw new Unparsable();
    const ch = this.text[this.i];
    if (ch === undefined) throw new Unparsable();
    if (ch === '{') return this.dict(depth);
    if (ch === '[') return this.sequence(']', depth);
    if (ch === '(') return this.sequence(')', depth);
    if (ch === "'" || ch === '"') return this.string(false);
    if (ch === '-' || ch === '+' || ch === '.' || (ch >= '0' && ch <= '9')) return this.number();
    return this.word();
  }

  private expect(ch: string): void {
    if (this.text[this.i] !== ch) throw new Unparsable();
    this.i++;
  }

  private dict(depth: number): PyNode {
    this.i++;
    const entries = new Map<string, PyNode>();
    this.skipSpace();
    while (this.text[this.i] !== '}') {
      const key = dictKey(this.value(depth + 1));
      this.skipSpace();
      this.expect(':');
      this.skipSpace();
      const item = this.value(depth + 1);
      // Python keeps the first position and the last value of a repeated key.
      entries.set(key, item);
      this.skipSpace();
      if (this.text[this.i] === ',') {
        this.i++;
        this.skipSpace();
      } else if (this.text[this.i] !== '}') throw new Unparsable();
    }
    this.i++;
    return { kind: 'object', entries };
  }

  /** A list, or a tuple (→ array); `(x)` without a comma is just x. */
  private sequence(close: ']' | ')', depth: number): PyNode {
    this.i++;
    const items: PyNode[] = [];
    let sawComma = false;
    this.skipSpace();
    while (this.text[this.i] !== close) {
      items.push(this.value(depth + 1));
      this.skipSpace();
      if (this.text[this.i] === ',') {
        sawComma = true;
        this.i++;
        this.skipSpace();
      } else if (this.text[this.i] !== close) throw new Unparsable();
    }
    this.i++;
    if (close === ')' && items.length === 1 && !sawComma) return items[0]!;
    return { kind: 'array', items };
  }

  private word(): PyNode {
    const start = this.i;
    while (this.i < this.text.length && /[A-Za-z_]/.test(this.text[this.i]!)) this.i++;
    const word = this.text.slice(start, this.i);
    const next = this.text[this.i];
    if ((next === "'" || next === '"') && (word === 'u' || word === 'U')) return this.string(false);
    if ((next === "'" || next === '"') && (word === 'r' || word === 'R')) return this.string(true);
    const node = keywords[word];
    if (!node) throw new Unparsable();
    return node;
  }

  private string(raw: boolean): PyNode {
    const quote = this.text[this.i]!;
    const text = this.text;
    this.i++;
    // Triple-quoted strings never come out of repr(); refuse rather than misread.
    if (text[this.i] === quote && text[this.i + 1] === quote) throw new Unparsable();
    let value = '';
    let runStart = this.i;
    for (;;) {
      const ch = text[this.i];
      if (ch === undefined || ch === '\n' || ch === '\r') throw new Unparsable();
      if (ch === quote) break;
      if (ch !== '\\') {
        this.i++;
        continue;
      }
      value += text.slice(runStart, this.i);
      const next = text[this.i + 1];
      if (next === undefined) throw new Unparsable();
      if (raw) {
        // In a raw string a backslash only protects the next character; both are kept.
        value += '\\' + next;
        this.i += 2;
      } else {
        value += this.escape(next);
      }
      runStart = this.i;
    }
    value += text.slice(runStart, this.i);
    this.i++;
    return { kind: 'string', value };
  }

  /** Decodes the escape at `this.i` (the backslash) and advances past it. */
  private escape(next: string): string {
    const simple = simpleEscapes[next];
    if (simple !== undefined) {
      this.i += 2;
      return simple;
    }
    if (next === 'x' || next === 'u' || next === 'U') {
      const width = next === 'x' ? 2 : next === 'u' ? 4 : 8;
      const hex = this.text.slice(this.i + 2, this.i + 2 + width);
      if (hex.length !== width || !/^[0-9A-Fa-f]+$/.test(hex)) throw new Unparsable();
      const codePoint = parseInt(hex, 16);
      if (codePoint > 0x10ffff) throw new Unparsable();
      this.i += 2 + width;
      return String.fromCodePoint(codePoint);
    }
    if (next >= '0' && next <= '7') {
      let end = this.i + 1;
      while (end < this.i + 4 && this.text[end]! >= '0' && this.text[end]! <= '7') end++;
      const codePoint = parseInt(this.text.slice(this.i + 1, end), 8);
      this.i = end;
      return String.fromCodePoint(codePoint);
    }
    // `\N{NAME}` needs the Unicode name table; refuse it.
    if (next === 'N') throw new Unparsable();
    // Python keeps unknown escapes literally.
    this.i += 2;
    return '\\' + next;
  }

  /** Python int/float syntax (no underscores, no hex), converted to JSON number text. */
  private number(): PyNode {
    const text = this.text;
    let sign = '';
    if (text[this.i] === '-' || text[this.i] === '+') {
      if (text[this.i] === '-') sign = '-';
      this.i++;
      this.skipSpace();
    }
    const intStart = this.i;
    while (this.i < text.length && text[this.i]! >= '0' && text[this.i]! <= '9') this.i++;
    let integer = text.slice(intStart, this.i);
    let fraction = '';
    let isFloat = false;
    if (text[this.i] === '.') {
      isFloat = true;
      const start = ++this.i;
      while (this.i < text.length && text[this.i]! >= '0' && text[this.i]! <= '9') this.i++;
      fraction = text.slice(start, this.i);
    }
    if (integer === '' && fraction === '') throw new Unparsable();
    let exponent = '';
    if (text[this.i] === 'e' || text[this.i] === 'E') {
      isFloat = true;
      let j = this.i + 1;
      let expSign = '';
      if (text[j] === '-' || text[j] === '+') expSign = text[j++] === '-' ? '-' : '';
      const start = j;
      while (j < text.length && text[j]! >= '0' && text[j]! <= '9') j++;
      if (j === start) throw new Unparsable();
      exponent = 'e' + expSign + text.slice(start, j);
      this.i = j;
    }
    if (/[A-Za-z0-9_]/.test(text[this.i] ?? '')) throw new Unparsable();
    const trimmed = integer.replace(/^0+(?=\d)/, '');
    // Python 3 rejects `007` but accepts `0`, `00` and floats like `007.5`.
    if (!isFloat && trimmed !== integer && !/^0+$/.test(integer)) throw new Unparsable();
    integer = trimmed === '' ? '0' : trimmed;
    const json = sign + integer + (isFloat && fraction === '' && exponent === '' ? '.0' : fraction ? '.' + fraction : '') + exponent;
    return { kind: 'number', json };
  }
}

function dictKey(node: PyNode): string {
  // json.dumps turns scalar keys into strings the same way.
  switch (node.kind) {
    case 'string':
      return node.value;
    case 'number':
      return node.json;
    case 'boolean':
      return node.value ? 'true' : 'false';
    case 'null':
      return 'null';
    default:
      throw new Unparsable();
  }
}
