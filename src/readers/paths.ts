// JSON paths in the style users read: messages[3].tool_calls[0].function.arguments

export type PathKey = string | number;

function isIdentifier(key: string): boolean {
  if (key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
    const digit = c >= 48 && c <= 57;
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

export function joinPath(base: string, ...keys: PathKey[]): string {
  let path = base;
  for (const key of keys) {
    if (typeof key === 'number') path += `[${key}]`;
    else if (isIdentifier(key)) path += path === '' ? key : `.${key}`;
    else path += `[${JSON.stringify(key)}]`;
  }
  return path;
}

/** ajv's `instancePath` (a JSON pointer, `/messages/3/role`) as a dotted path. Array indexes become `[n]`. */
export function pointerToPath(pointer: string, base = ''): string {
  if (pointer === '') return base;
  const keys: PathKey[] = pointer
    .slice(1)
    .split('/')
    .map((raw) => {
      const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      return /^(0|[1-9][0-9]{0,9})$/.test(key) ? Number(key) : key;
    });
  return joinPath(base, ...keys);
}
