import { ChatfmtError } from '../errors.js';
import type { Severity } from '../types.js';
import { isDatasetIssueCode, issueRow, makeIssue, type DatasetIssue } from '../readers/issues.js';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export interface CodeCount {
  severity: Severity;
  count: number;
}

/** What `chatfmt validate --format json` prints and `--merge` combines. Deterministic: no timings. */
export interface ValidationSummary {
  version: 1;
  /** Input name(s): a path, '<stdin>', ... */
  inputs: string[];
  /** Row shape used ('openai' | 'sharegpt'; 'mixed' after merging different ones). */
  shape: string;
  /** Rows read (blank lines excluded). With a shard: rows of this shard only. */
  rows: number;
  rowsWithErrors: number;
  errors: number;
  warnings: number;
  /** Counts per issue code, keys sorted. */
  byCode: Record<string, CodeCount>;
  /** The first few issues of each code, in input order. */
  examples: DatasetIssue[];
  /** The shards this summary covers (absent when the whole input was validated). */
  shards?: Shard[];
  /** First lines using JSON-string / object arguments (0 = none): lets --merge redo the dataset-wide ARGS_MIXED_FORMS check. */
  argumentForms?: ArgumentForms;
}

export interface ArgumentForms {
  firstStringLine: number;
  firstObjectLine: number;
}

/** The dataset-wide warning for rows that disagree on the argument form; undefined when they agree. */
export function mixedFormsIssue(forms: ArgumentForms): DatasetIssue | undefined {
  const { firstStringLine, firstObjectLine } = forms;
  if (firstStringLine === 0 || firstObjectLine === 0) return undefined;
  const line = Math.max(firstStringLine, firstObjectLine);
  const [now, before, other] = line === firstStringLine ? ['JSON strings', 'objects', firstObjectLine] : ['objects', 'JSON strings', firstStringLine];
  return makeIssue(line, 'ARGS_MIXED_FORMS', '', `this row passes tool-call arguments as ${now}, line ${other} as ${before}: HF datasets cannot type a column with both (store all as JSON strings)`);
}

export const DEFAULT_EXAMPLES_PER_CODE = 5;

/** Accumulates issues (in input order) into a summary. */
export class SummaryBuilder {
  rows = 0;
  private errors = 0;
  private warnings = 0;
  private rowsWithErrors = 0;
  private lastErrorRow = -1;
  private readonly byCode = new Map<string, CodeCount>();
  private readonly examples: DatasetIssue[] = [];

  constructor(private readonly examplesPerCode = DEFAULT_EXAMPLES_PER_CODE) {}

  add(issue: DatasetIssue): void {
    if (issue.severity === 'error') {
      this.errors++;
      const row = issueRow(issue);
      if (row !== this.lastErrorRow) {
        this.lastErrorRow = row;
        if (row > 0) this.rowsWithErrors++;
      }
    } else {
      this.warnings++;
    }
    const entry = this.byCode.get(issue.code);
    if (entry) entry.count++;
    else this.byCode.set(issue.code, { severity: issue.severity, count: 1 });
    if ((entry?.count ?? 1) <= this.examplesPerCode) this.examples.push(issue);
  }

  get errorCount(): number {
    return this.errors;
  }

  get warningCount(): number {
    return this.warnings;
  }

  build(inputs: string[], shape: string, shard?: Shard, argumentForms?: ArgumentForms): ValidationSummary {
    return {
      version: 1,
      inputs,
      shape,
      rows: this.rows,
      rowsWithErrors: this.rowsWithErrors,
      errors: this.errors,
      warnings: this.warnings,
      byCode: sortedCounts(this.byCode),
      examples: [...this.examples],
      ...(shard ? { shards: [shard] } : {}),
      ...(argumentForms ? { argumentForms: { ...argumentForms } } : {}),
    };
  }
}

function sortedCounts(counts: Map<string, CodeCount>): Record<string, CodeCount> {
  const out: Record<string, CodeCount> = {};
  for (const code of [...counts.keys()].sort()) out[code] = { ...counts.get(code)! };
  return out;
}

/**
 * Combines the JSON summaries of shards (or of separate files). Shards must come from one split: each
 * index of 1..n exactly once; anything else is an error, since a partial merge would look clean.
 */
export function mergeSummaries(summaries: unknown[], examplesPerCode = DEFAULT_EXAMPLES_PER_CODE): ValidationSummary {
  if (summaries.length === 0) throw new ChatfmtError('INPUT_INVALID', 'nothing to merge');
  const checked = summaries.map((s, k) => asSummary(s, k));
  checkShardCoverage(checked);
  // ARGS_MIXED_FORMS spans rows of every part: drop the parts' own verdicts and decide again from their first lines.
  const forms = checked.every((s) => s.argumentForms) ? mergeForms(checked.map((s) => s.argumentForms!)) : undefined;
  const redo = forms !== undefined;
  const byCode = new Map<string, CodeCount>();
  let examples: DatasetIssue[] = [];
  let dropped = 0;
  for (const s of checked) {
    for (const [code, count] of Object.entries(s.byCode)) {
      if (redo && code === 'ARGS_MIXED_FORMS') {
        dropped += count.count;
        continue;
      }
      const entry = byCode.get(code);
      if (entry) entry.count += count.count;
      else byCode.set(code, { ...count });
    }
    examples.push(...s.examples.filter((issue) => !(redo && issue.code === 'ARGS_MIXED_FORMS')));
  }
  const mixed = forms ? mixedFormsIssue(forms) : undefined;
  if (mixed) {
    byCode.set(mixed.code, { severity: mixed.severity, count: 1 });
    examples.push(mixed);
  }
  examples = examples.sort((a, b) => issueRow(a) - issueRow(b));
  const perCode = new Map<string, number>();
  examples = examples.filter((issue) => {
    const n = (perCode.get(issue.code) ?? 0) + 1;
    perCode.set(issue.code, n);
    return n <= examplesPerCode;
  });
  const shapes = new Set(checked.map((s) => s.shape));
  const shards = checked.flatMap((s) => s.shards ?? []).sort((a, b) => a.index - b.index);
  const sum = (key: 'rows' | 'rowsWithErrors' | 'errors' | 'warnings') => checked.reduce((total, s) => total + s[key], 0);
  return {
    version: 1,
    inputs: [...new Set(checked.flatMap((s) => s.inputs))],
    shape: shapes.size === 1 ? [...shapes][0]! : 'mixed',
    rows: sum('rows'),
    rowsWithErrors: sum('rowsWithErrors'),
    errors: sum('errors'),
    warnings: sum('warnings') - dropped + (mixed ? 1 : 0),
    byCode: sortedCounts(byCode),
    examples,
    ...(shards.length > 0 ? { shards } : {}),
    ...(forms ? { argumentForms: forms } : {}),
  };
}

function mergeForms(all: ArgumentForms[]): ArgumentForms {
  const first = (lines: number[]) => Math.min(...lines.filter((line) => line > 0), Infinity);
  const orZero = (line: number) => (line === Infinity ? 0 : line);
  return {
    firstStringLine: orZero(first(all.map((f) => f.firstStringLine))),
    firstObjectLine: orZero(first(all.map((f) => f.firstObjectLine))),
  };
}

function checkShardCoverage(summaries: ValidationSummary[]): void {
  const sharded = summaries.filter((s) => s.shards);
  if (sharded.length === 0) return;
  if (sharded.length !== summaries.length) throw new ChatfmtError('INPUT_INVALID', 'cannot merge sharded and unsharded summaries');
  const all = sharded.flatMap((s) => s.shards!);
  const count = all[0]!.count;
  if (all.some((s) => s.count !== count)) throw new ChatfmtError('INPUT_INVALID', 'summaries come from different shard splits');
  const seen = new Set<number>();
  for (const shard of all) {
    if (seen.has(shard.index)) throw new ChatfmtError('INPUT_INVALID', `shard ${shard.index}/${count} is given twice`);
    seen.add(shard.index);
  }
  const missing = Array.from({ length: count }, (_, k) => k + 1).filter((k) => !seen.has(k));
  if (missing.length > 0) throw new ChatfmtError('INPUT_INVALID', `missing shard(s) ${missing.map((k) => `${k}/${count}`).join(', ')}`);
}

function asSummary(value: unknown, index: number): ValidationSummary {
  const s = value as Partial<ValidationSummary> | null;
  const ok =
    s !== null && typeof s === 'object' && s.version === 1 && Array.isArray(s.inputs) && typeof s.rows === 'number' &&
    typeof s.errors === 'number' && typeof s.warnings === 'number' && typeof s.rowsWithErrors === 'number' &&
    typeof s.byCode === 'object' && s.byCode !== null && Array.isArray(s.examples) &&
    Object.keys(s.byCode).every(isDatasetIssueCode);
  if (!ok) throw new ChatfmtError('INPUT_INVALID', `summary ${index + 1} is not a chatfmt validate JSON summary (version 1)`);
  return s as ValidationSummary;
}
