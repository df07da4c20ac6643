// What a render worker pool reports for rows whose worker died, and how a batch re-run a row at a time is put back
// together. Apart from render-rows.ts so that a render on one thread does not load it.
import { inContext } from '../errors.js';
import type { DatasetRecord } from '../readers/jsonl.js';
import { oneLine } from '../util/one-line.js';
import type { BatchOutcomes } from './pool.js';
import { rowPlace, type RenderBatchResult } from './render-rows.js';

export const renderOutcomes: BatchOutcomes<RenderBatchResult> = {
  died: (records: DatasetRecord[], why: string) => ({
    text: records.map((record) => `${JSON.stringify({ error: oneLine(inContext(rowPlace(record), `the render worker died on this row (${why})`)) })}\n`).join(''),
    failed: records.length,
    rewrites: { ids: 0, rows: 0, first: '' },
  }),
  merge: (results) => {
    const merged: RenderBatchResult = { text: '', failed: 0, rewrites: { ids: 0, rows: 0, first: '' } };
    for (const result of results) {
      merged.text += result.text;
      merged.failed += result.failed;
      merged.rewrites.ids += result.rewrites.ids;
      merged.rewrites.rows += result.rewrites.rows;
      merged.rewrites.first ||= result.rewrites.first;
      if (result.fatal) return { ...merged, fatal: result.fatal };
    }
    return merged;
  },
};
