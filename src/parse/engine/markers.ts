/** A marker found in a buffer. */
export interface MarkerHit {
  at: number;
  marker: string;
}

/**
 * A fixed set of literal markers, searched with indexOf on each marker's first character. Matching is
 * exact (code points are never normalised). When several markers start at the same place the longest wins.
 */
export class MarkerSet {
  readonly markers: readonly string[];
  readonly longest: number;
  private readonly leads: string[];
  private readonly byLead: Map<string, string[]>;
  /** First code units of the markers, for a quick reject before any string work. */
  private readonly leadCodes: Set<number>;

  constructor(markers: Iterable<string>) {
    const unique = [...new Set([...markers].filter((m) => m.length > 0))].sort((a, b) => b.length - a.length);
    this.markers = unique;
    this.longest = unique.reduce((max, m) => Math.max(max, m.length), 0);
    this.byLead = new Map();
    for (const marker of unique) {
      const lead = marker[0]!;
      const list = this.byLead.get(lead);
      if (list) list.push(marker);
      else this.byLead.set(lead, [marker]);
    }
    this.leads = [...this.byLead.keys()];
    this.leadCodes = new Set(this.leads.map((lead) => lead.charCodeAt(0)));
  }

  /** The earliest complete marker at or after `from`, or undefined. */
  find(buf: string, from: number): MarkerHit | undefined {
    let best: MarkerHit | undefined;
    for (const lead of this.leads) {
      const candidates = this.byLead.get(lead)!;
      let i = buf.indexOf(lead, from);
      while (i >= 0 && (best === undefined || i < best.at)) {
        const marker = matchAt(buf, i, candidates);
        if (marker !== undefined) {
          best = { at: i, marker };
          break;
        }
        i = buf.indexOf(lead, i + 1);
      }
    }
    return best;
  }

  /** The marker that starts exactly at `at`, if any. */
  at(buf: string, at: number): string | undefined {
    const candidates = this.byLead.get(buf[at] ?? '');
    return candidates ? matchAt(buf, at, candidates) : undefined;
  }

  /**
   * Where a possible partial marker starts in the tail of `buf` (a suffix that is a proper prefix of some
   * marker), or buf.length when the tail cannot begin a marker. Text before it is safe to release.
   */
  partialStart(buf: string, from: number): number {
    const start = Math.max(from, buf.length - this.longest + 1);
    for (let i = start; i < buf.length; i++) {
      if (!this.leadCodes.has(buf.charCodeAt(i))) continue;
      if (isPrefixOfAny(buf, i, this.byLead.get(buf[i]!)!)) return i;
    }
    return buf.length;
  }

  /** True when buf[at..] is a proper prefix of some marker (more text could complete it). */
  couldStartAt(buf: string, at: number): boolean {
    const candidates = this.byLead.get(buf[at] ?? '');
    return candidates !== undefined && isPrefixOfAny(buf, at, candidates);
  }
}

function matchAt(buf: string, at: number, candidates: readonly string[]): string | undefined {
  for (const marker of candidates) if (buf.startsWith(marker, at)) return marker;
  return undefined;
}

function isPrefixOfAny(buf: string, at: number, candidates: readonly string[]): boolean {
  const tail = buf.length - at;
  for (const marker of candidates) {
    if (marker.length > tail && marker.startsWith(buf.slice(at))) return true;
  }
  return false;
}
