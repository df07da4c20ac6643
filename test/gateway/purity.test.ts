// The gateway's pure parts (session, protocols, backends, codecs) also serve browsers and the AI SDK provider: no
// Node modules, process, console or Buffer in them. Only src/gateway/node/ is Node's.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/shared.js';

const pure = ['core', 'protocols', 'backends', 'wire'];
const forbidden = [/from 'node:/, /\bprocess\./, /\bconsole\./, /\bBuffer\b/, /require\(/];

describe('gateway core purity', () => {
  it.each(pure)('src/gateway/%s uses no Node-only API', (dir) => {
    const root = join(repoRoot, 'src', 'gateway', dir);
    const files = readdirSync(root).filter((file) => file.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const code = readFileSync(join(root, file), 'utf8');
      for (const pattern of forbidden) expect(pattern.test(code), `${dir}/${file}: ${pattern}`).toBe(false);
    }
  });
});
