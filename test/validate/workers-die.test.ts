import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateDataset } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';
import { collect, root } from './helpers.js';

// Issue 17 item 8: a worker that runs out of heap costs the row it was on, not the run.
const built = existsSync(join(root, 'dist', 'validate', 'worker.js'));

describe.skipIf(!built)('validate --workers when a worker dies', () => {
  const tmp = tempDir();

  it('reports WORKER_DIED for the row that kills its worker and validates every other row on new workers', async () => {
    // For one row, the template writes 60,000 pieces of 1,000 characters: within every render budget (120 MB of values,
    // 60 M characters of output), and far past the workers' 16 MB heap, which fills piece by piece.
    const template = tmp.write(
      'greedy.jinja',
      "{%- for m in messages %}{{ m.role }}: {{ m.content }}\n{% if m.content == 'boom' %}" +
        "{% for i in range(60000) %}{{ 'x' * 1000 }}{{ i }}{% endfor %}{% endif %}{% endfor %}",
    );
    const row = (content: string) => JSON.stringify({ messages: [{ role: 'user', content }, { role: 'assistant', content: content === '' ? '' : 'ok' }] });
    async function* lines(): AsyncGenerator<string> {
      for (let i = 1; i <= 40; i++) yield row(i === 18 ? 'boom' : i === 31 ? '' : 'fine');
    }
    const validation = validateDataset(lines(), { workers: 2, batchSize: 8, workerHeapMb: 16, template, roundTrip: false });
    const issues = await collect(validation);
    expect(issues.map((issue) => [issue.row, issue.code])).toEqual([[18, 'WORKER_DIED'], [31, 'MSG_ASSISTANT_EMPTY']]);
    expect(issues[0]!.message).toContain('memory');
    const summary = await validation.summary();
    expect(summary.rows).toBe(40);
    expect(summary.errors).toBe(2);
  });
});
