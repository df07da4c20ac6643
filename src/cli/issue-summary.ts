import { formatIssue } from '../readers/issues.js';
import type { CodeCount, ValidationSummary } from '../validate/summary.js';
import { escapeLineBreaks, type IO } from './io.js';

/** Colours for a terminal; the identity when the stream is not one or NO_COLOR is set. */
export interface Paint {
  red(s: string): string;
  yellow(s: string): string;
  green(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

export function paint(io: IO, isTTY: boolean): Paint {
  const on = isTTY && io.env.NO_COLOR === undefined;
  const wrap = (open: number, close: number) => (s: string) => (on ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return { red: wrap(31, 39), yellow: wrap(33, 39), green: wrap(32, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

export const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/**
 * One block per issue code, error codes first: the count, then the examples kept for it. A flood of one warning is one
 * line and a few examples, never a screen of the same line; the full list is what --report and JSON output are for.
 */
export function issueCodeBlocks(summary: Pick<ValidationSummary, 'byCode' | 'examples'>, p: Paint): string[] {
  const lines: string[] = [];
  const codes = Object.entries(summary.byCode).sort(bySeverityThenCode);
  const width = Math.max(0, ...codes.map(([code]) => code.length));
  for (const [code, count] of codes) {
    const label = count.severity === 'error' ? p.red(code.padEnd(width)) : p.yellow(code.padEnd(width));
    lines.push('', `  ${label}  ${plural(count.count, count.severity)}`);
    for (const issue of summary.examples.filter((e) => e.code === code)) {
      const text = escapeLineBreaks(formatIssue(issue));
      const arrow = text.indexOf(' → ');
      const mark = issue.severity === 'error' ? p.red(text.slice(0, 1)) : p.yellow(text.slice(0, 1));
      lines.push(`    ${mark}${arrow === -1 ? text.slice(1) : text.slice(1, arrow) + p.dim(text.slice(arrow))}`);
    }
  }
  return lines;
}

function bySeverityThenCode([a, x]: [string, CodeCount], [b, y]: [string, CodeCount]): number {
  if (x.severity !== y.severity) return x.severity === 'error' ? -1 : 1;
  return a < b ? -1 : 1;
}

/** The error/warning tally that ends a summary. */
export function tallyLine(summary: Pick<ValidationSummary, 'errors' | 'warnings' | 'rowsWithErrors'>, p: Paint): string {
  const warnings = summary.warnings > 0 ? p.yellow(`, ${plural(summary.warnings, 'warning')}`) : '';
  if (summary.errors > 0) return p.red(`✖ ${plural(summary.errors, 'error')} in ${plural(summary.rowsWithErrors, 'row')}`) + warnings;
  return p.green(`✔ no errors`) + warnings;
}

/** validate's human summary. */
export function formatSummaryText(summary: ValidationSummary, p: Paint): string {
  const shards = summary.shards ? `, shard ${summary.shards.map((s) => `${s.index}/${s.count}`).join(' ')}` : '';
  const lines = [p.bold(`${summary.inputs.join(', ')}: ${plural(summary.rows, 'row')} (${summary.shape}${shards})`)];
  lines.push(...issueCodeBlocks(summary, p), '', tallyLine(summary, p));
  return `${lines.join('\n')}\n`;
}
