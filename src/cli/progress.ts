import type { ValidationProgress } from '../validate/index.js';
import type { IO } from './io.js';

/** Progress on stderr (TTY only): rows, rows/s, issues, ETA from the input size; redrawn at most 10×/s. */
export class ProgressBar {
  private readonly started = Date.now();
  private lastDraw = 0;
  private drawn = false;
  constructor(private readonly io: IO) {}

  update(p: ValidationProgress): void {
    const now = Date.now();
    if (now - this.lastDraw < 100) return;
    this.lastDraw = now;
    const seconds = Math.max(0.001, (now - this.started) / 1000);
    const rate = Math.round(p.rows / seconds);
    let head = '';
    let eta = '';
    if (p.totalBytes && p.bytesRead > 0) {
      const fraction = Math.min(1, p.bytesRead / p.totalBytes);
      const width = 24;
      const full = Math.round(fraction * width);
      head = `[${'#'.repeat(full)}${'.'.repeat(width - full)}] ${(fraction * 100).toFixed(0).padStart(3)}% `;
      eta = fraction > 0 ? `  ETA ${clock((seconds / fraction) * (1 - fraction))}` : '';
    }
    const issues = `${p.errors.toLocaleString('en-US')} errors, ${p.warnings.toLocaleString('en-US')} warnings`;
    this.io.stderr.write(`\r\x1b[2K${head}${p.rows.toLocaleString('en-US')} rows  ${rate.toLocaleString('en-US')} rows/s  ${issues}${eta}`);
    this.drawn = true;
  }

  clear(): void {
    if (this.drawn) this.io.stderr.write('\r\x1b[2K');
  }
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}
