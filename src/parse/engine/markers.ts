import { parseWork } from './work.js';

/** Below this many characters to search, indexOf per lead beats a regex call. */
const SHORT_SEARCH = 64;

/** The marker search's share of the engine's work count (work.ts). */
export const markerScanWork = parseWork;

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
  /** The same for ASCII leads, as a table: the streaming fast lane asks it for every character. */
  private readonly asciiLeads = new Uint8Array(128);
  /**
   * Markers of two or more code units by their first two (longest first). Text often holds the lead
   * without a marker (`<b>` in code arguments): one lookup rejects it instead of a startsWith per marker.
   */
  private readonly byPair = new Map<number, string[]>();
  /** One-unit markers by that unit. */
  private readonly single = new Map<number, string>();
  /**
   * All markers as one alternation, longest first (so the longest wins where several start): the
   * regex engine skips text without a lead in native code, and text with a stray lead (`<b>` in code
   * arguments) costs no call per occurrence. Literal alternatives only, so matching is linear.
   */
  private readonly pattern: RegExp | undefined;

  constructor(markers: Iterable<string>) {
    const unique = [...new Set(markers)].sort(longerFirst);
    // The empty string is no marker; sorted longest first, it can only be last. No filter or reduce callbacks: a
    // family's sets are built on its first parse, in V8's unoptimised tiers.
    if (unique.length > 0 && unique[unique.length - 1]!.length === 0) unique.pop();
    this.markers = unique;
    this.longest = unique.length > 0 ? unique[0]!.length : 0;
    this.byLead = new Map();
    for (const marker of unique) {
      const lead = marker[0]!;
      const list = this.byLead.get(lead);
      if (list) list.push(marker);
      else this.byLead.set(lead, [marker]);
    }
    this.leads = [...this.byLead.keys()];
    this.leadCodes = new Set(this.leads.map((lead) => lead.charCodeAt(0)));
    for (const code of this.leadCodes) if (code < 128) this.asciiLeads[code] = 1;
    this.pattern = unique.length === 0 ? undefined : new RegExp(unique.map(escapeRegExp).join('|'), 'g');
    for (const marker of unique) {
      if (marker.length === 1) this.single.set(marker.charCodeAt(0), marker);
      else {
        const key = pairKey(marker, 0);
        const list = this.byPair.get(key);
        if (list) list.push(marker);
        else this.byPair.set(key, [marker]);
      }
    }
  }

  /** The earliest complete marker at or after `from`, or undefined. */
  find(buf: string, from: number): MarkerHit | undefined {
    if (this.pattern === undefined) return undefined;
    // A few characters (small streamed chunks) are cheaper to search with indexOf than with a regex call.
    if (buf.length - from < SHORT_SEARCH) return this.findNear(buf, from);
    this.pattern.lastIndex = from;
    const match = this.pattern.exec(buf);
    markerScanWork.chars += (match === null ? buf.length : match.index + match[0].length) - from;
    return match === null ? undefined : { at: match.index, marker: match[0] };
  }

  /**
   * The earliest marker that starts at or after `from` and ends by `end`. Searches only that window, so a reader
   * that looks for a short header's delimiter never scans the rest of a long buffer (that made repeated call openers
   * quadratic).
   */
  findWithin(buf: string, from: number, end: number): MarkerHit | undefined {
    if (end >= buf.length) return this.find(buf, from);
    const hit = this.find(buf.slice(from, end), 0);
    return hit && { at: hit.at + from, marker: hit.marker };
  }

  private findNear(buf: string, from: number): MarkerHit | undefined {
    markerScanWork.chars += buf.length - from;
    let best: MarkerHit | undefined;
    const leads = this.leads;
    for (let k = 0; k < leads.length; k++) {
      const lead = leads[k]!;
      let i = buf.indexOf(lead, from);
      while (i >= 0 && (best === undefined || i < best.at)) {
        const marker = this.at(buf, i);
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
    if (at + 1 < buf.length) {
      // pairKey written out: the streaming lane and the marker search ask this for every lead they meet. An indexed
      // loop, not for-of: a first parse runs this in V8's unoptimised tiers, where for-of drives the iterator protocol
      // (a call per step), and every call and call close is read here.
      const candidates = this.byPair.get(buf.charCodeAt(at) * 0x10000 + buf.charCodeAt(at + 1));
      if (candidates) for (let k = 0; k < candidates.length; k++) if (buf.startsWith(candidates[k]!, at)) return candidates[k];
    }
    return this.single.get(buf.charCodeAt(at));
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

  /**
   * Whether a marker, or the start of one that more text could complete, begins somewhere in `text`: when not, `find`
   * finds nothing in it and `partialStart` holds nothing back. A lead that is text (`<b>` in code) does not count.
   */
  mayStartIn(text: string): boolean {
    const ascii = this.asciiLeads;
    const last = text.length - 1;
    for (let i = 0; i <= last; i++) {
      const c = text.charCodeAt(i);
      if (c < 128 ? ascii[c] === 0 : !this.leadCodes.has(c)) continue;
      // A lead at the end could begin a marker; before it, the pair of the lead and what follows must begin one (a
      // marker, or a proper prefix of one, two or more units long), or the lead be a one-unit marker. One lookup
      // rejects a lead that is text, like the `</` of `</b>` in code among `</parameter>`-like markers.
      if (i === last || this.single.has(c)) return true;
      const candidates = this.byPair.get(c * 0x10000 + text.charCodeAt(i + 1));
      if (candidates !== undefined && beginsAny(text, i, candidates)) return true;
    }
    return false;
  }

  /** True when buf[at..] is a proper prefix of some marker (more text could complete it). */
  couldStartAt(buf: string, at: number): boolean {
    const candidates = this.byLead.get(buf[at] ?? '');
    return candidates !== undefined && isPrefixOfAny(buf, at, candidates);
  }
}

function longerFirst(a: string, b: string): number {
  return b.length - a.length;
}

/** `text` as a regex that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|\/-]/g, '\\$&');
}

function pairKey(text: string, at: number): number {
  return text.charCodeAt(at) * 0x10000 + text.charCodeAt(at + 1);
}

function isPrefixOfAny(buf: string, at: number, candidates: readonly string[]): boolean {
  const tail = buf.length - at;
  for (let k = 0; k < candidates.length; k++) {
    const marker = candidates[k]!;
    if (marker.length > tail && sameUnits(marker, buf, at, tail)) return true;
  }
  return false;
}

/** Whether one of `candidates` starts at `buf[at]`, whole or cut off by the end of `buf`. */
function beginsAny(buf: string, at: number, candidates: readonly string[]): boolean {
  const tail = buf.length - at;
  for (let k = 0; k < candidates.length; k++) {
    const marker = candidates[k]!;
    if (sameUnits(marker, buf, at, Math.min(tail, marker.length))) return true;
  }
  return false;
}

/** Whether the first `count` code units of `marker` are `buf`'s from `at` (compared in place: no slice per test). */
function sameUnits(marker: string, buf: string, at: number, count: number): boolean {
  for (let i = 0; i < count; i++) if (marker.charCodeAt(i) !== buf.charCodeAt(at + i)) return false;
  return true;
}
