// The block driver of the file scan (MatchEngine.scanBytes): a block of UTF-8 lines goes through
// the byte index (engine/bytes.ts: the WebAssembly scan and line walk when available, else the
// same in JS), and only the lines that hold a key occurrence (or an ESC / JSON escape, whose views
// differ from the raw bytes) are decoded and matched. A line's matches are handed over as a
// LineHits: the records and spans, read without making objects; captures and ranking made only
// when asked for (a log where every line matches must not pay for objects it does not print).

import type { ByteIndex, NativeLines, StagedBlock } from './bytes';
import { LINE_ESCAPED, LINE_MATCHED } from './lineStatus';
import { type Capture, type EngineEntry, type LineMatch, type SlotResult, type SlotResults, hasToken, resultEnd } from './types';
import { copyBytes, escapeLengthOf, lineViews, type LineView } from '../text';

/** The engine's pattern slots and byte index, as the file-scan drivers (this one, longLine.ts) read them. */
export interface SlotHost {
  readonly index: ByteIndex;
  /** Records of pattern slot s: members[memberStart[s] .. memberStart[s + 1]). */
  readonly members: Int32Array;
  readonly memberStart: Int32Array;
  /** The record of slot s when it is the slot's only one, else -1 (soleMembers): a file scan's
   * matches take one load each, where a slot's two bounds and its member were two or three
   * scattered loads (at 500k records those arrays are 2 MB each, past the second-level cache). */
  readonly soleMember: Int32Array;
  readonly entries: readonly EngineEntry[];
  readonly literalLengths: Int32Array;
  readonly compare: (a: LineMatch, b: LineMatch) => number;
}

/** What the driver needs of the engine. */
export interface BlockHost extends SlotHost {
  /** Match the line with these candidate slots for its first view; its other views are
   * prefiltered by `prefilter`. The slot results, before LineMatches are made of them
   * (LineHits.setSlots makes them when they are asked for). */
  slotResultsWith(line: string, slots: readonly number[], views: LineView[] | undefined, prefilter: (text: string, out: number[]) => void): SlotResults;
  /** Record rec's LineMatch of result r (as matchLine makes it). */
  lineMatchOf(rec: number, r: SlotResult, line: string, base: string): LineMatch;
  /** Match the line from scratch (string prefilter). */
  matchAll(line: string): LineMatch[];
}

/** SlotHost.soleMember of a slot table: each slot's record when it has one, else -1. */
export function soleMembers(members: Int32Array, memberStart: Int32Array): Int32Array {
  const slots = memberStart.length - 1;
  const sole = new Int32Array(Math.max(0, slots)).fill(-1);
  for (let s = 0; s < slots; s++) if (memberStart[s + 1]! - memberStart[s]! === 1) sole[s] = members[memberStart[s]!]!;
  return sole;
}

const utf8 = new TextEncoder();

/** UTF-8 bytes b[a, e) as a string (Node's fast native slice when present). */
function utf8Slice(b: Buffer, a: number, e: number): string {
  const fast = (b as unknown as { utf8Slice?: (a: number, e: number) => string }).utf8Slice;
  return fast ? fast.call(b, a, e) : b.toString('utf8', a, e);
}

/** One line's matches (valid during the onLine call only: the object is reused). */
export class LineHits {
  /** Matches (one per record); entry(i), start(i), end(i) for i < count. */
  count = 0;
  private ents: Int32Array = new Int32Array(64);
  private starts: Int32Array = new Int32Array(64);
  private ends: Int32Array = new Int32Array(64);
  /** Native matches: where each one's [slot, start, end, caps, spans] is in `results`; slot
   * results' matches: which of `slots.results` each one is. */
  private at: Int32Array = new Int32Array(64);
  private results: Int32Array = new Int32Array(0);
  private slots: SlotResults | undefined;
  private js: LineMatch[] | undefined;
  private made: LineMatch[] | undefined;
  private decoded: string | undefined;
  private bytes!: Buffer;
  private lineStart = 0;
  private lineEnd = 0;

  /** (host: undefined for lines whose matches are always given as LineMatches) */
  constructor(private readonly host: BlockHost | undefined) {}

  entry(i: number): number {
    return this.ents[i]!;
  }
  start(i: number): number {
    return this.starts[i]!;
  }
  end(i: number): number {
    return this.ends[i]!;
  }

  /** Where the line starts in the block's bytes (buf[0, n) of scanBytes). */
  byteStart(): number {
    return this.lineStart;
  }

  /** The line (without its line end). */
  text(): string {
    return (this.decoded ??= utf8Slice(this.bytes, this.lineStart, this.lineEnd));
  }

  /** The matches as LineMatches, ranked (made on the first call). */
  matches(): LineMatch[] {
    if (this.made) return this.made;
    if (this.js) return (this.made = this.js);
    const line = this.text();
    const out: LineMatch[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.make(i, line));
    if (out.length > 1) out.sort(this.host!.compare);
    return (this.made = out);
  }

  /** The matches i with keep(i), as LineMatches, ranked (the same order as in matches()); only
   * those are made (a scan that prints some matches of a line builds only what it prints). */
  matchesWhere(keep: (i: number) => boolean): LineMatch[] {
    if (this.made || this.js) return (this.made ?? this.js!).filter((m) => keep(this.indexOf(m)));
    const line = this.text();
    const out: LineMatch[] = [];
    for (let i = 0; i < this.count; i++) if (keep(i)) out.push(this.make(i, line));
    if (out.length > 1) out.sort(this.host!.compare);
    return out;
  }

  /** Index i of a made match (one match per record: its entry says which). */
  private indexOf(m: LineMatch): number {
    for (let i = 0; i < this.count; i++) if (this.ents[i] === m.entry) return i;
    return -1;
  }

  /** Match i as a LineMatch (native or slot results). */
  private make(i: number, line: string): LineMatch {
    if (this.slots) return this.host!.lineMatchOf(this.ents[i]!, this.slots.results[this.at[i]!]!, line, this.slots.base);
    const r = this.results;
    const rec = this.ents[i]!;
    const o = this.at[i]!;
    const slot = r[o]!;
    const start = r[o + 1]!;
    const end = r[o + 2]!;
    const caps = r[o + 3]!;
    const host = this.host!;
    const entry = host.entries[rec]!;
    const names = entry.captureNames;
    const captures: Capture[] = [];
    for (let g = 0; g < caps; g++) {
      const s = r[o + 4 + 2 * g]!;
      const e = r[o + 5 + 2 * g]!;
      captures.push({ name: names[g] ?? String(g + 1), value: line.slice(s, e), start: s, end: e });
    }
    const code = entry.errorCode;
    return { entry: rec, start, end, text: line.slice(start, end), captures, literalLength: host.literalLengths[slot]!, codeInLine: code ? hasToken(line, code) : false };
  }

  /** The line bytes[start, end) (its end excluded), with JS-made matches. */
  setJs(bytes: Buffer, start: number, end: number, text: string, ms: LineMatch[]): void {
    this.reset(bytes, start, end);
    this.decoded = text;
    this.js = ms;
    this.room(ms.length);
    for (let i = 0; i < ms.length; i++) {
      this.ents[i] = ms[i]!.entry;
      this.starts[i] = ms[i]!.start;
      this.ends[i] = ms[i]!.end;
    }
    this.count = ms.length;
  }

  /** The line bytes[start, end) (its end excluded, its text `text`) with the slot results of
   * host.slotResultsWith, one match per record of each slot: their LineMatches are made only
   * when asked for (matches(), matchesWhere()), as for the module's matches. */
  setSlots(bytes: Buffer, start: number, end: number, text: string, slots: SlotResults): void {
    this.reset(bytes, start, end);
    this.decoded = text;
    this.slots = slots;
    const rs = slots.results;
    for (let k = 0; k < rs.length; k++) this.addSlot(rs[k]!.slot, rs[k]!.start, resultEnd(rs[k]!), k);
  }

  /** The line with the module's matches results[from, to) (per slot: [slot, start, end, caps,
   * spans]), one per record of each slot. */
  setNative(bytes: Buffer, start: number, end: number, results: Int32Array, from: number, to: number): void {
    this.reset(bytes, start, end);
    this.results = results;
    for (let o = from; o < to; o += 4 + 2 * results[o + 3]!) this.addSlot(results[o]!, results[o + 1]!, results[o + 2]!, o);
  }

  /** A match [start, end) of pattern slot `slot` for each of its records (`at`: where the match is
   * kept, for make()). */
  private addSlot(slot: number, start: number, end: number, at: number): void {
    const { members, memberStart, soleMember } = this.host!;
    const sole = soleMember[slot]!;
    const m0 = sole >= 0 ? 0 : memberStart[slot]!;
    const m1 = sole >= 0 ? 1 : memberStart[slot + 1]!;
    let c = this.count;
    this.room(c + (m1 - m0));
    for (let k = m0; k < m1; k++, c++) {
      this.ents[c] = sole >= 0 ? sole : members[k]!;
      this.starts[c] = start;
      this.ends[c] = end;
      this.at[c] = at;
    }
    this.count = c;
  }

  private reset(bytes: Buffer, start: number, end: number): void {
    this.bytes = bytes;
    this.lineStart = start;
    this.lineEnd = end;
    this.decoded = undefined;
    this.js = undefined;
    this.slots = undefined;
    this.made = undefined;
    this.count = 0;
  }

  private room(n: number): void {
    if (n <= this.ents.length) return;
    const size = Math.max(n, this.ents.length * 2);
    const grow = (a: Int32Array): Int32Array => {
      const b = new Int32Array(size);
      b.set(a);
      return b;
    };
    this.ents = grow(this.ents);
    this.starts = grow(this.starts);
    this.ends = grow(this.ends);
    this.at = grow(this.at);
  }
}

/** What the file scan did (for the benchmark): lines, key hits, the lines that were candidates
 * (held a hit), the candidate patterns tried on them (in the module or in JS), matched lines. */
export interface ScanStats {
  lines: number;
  hits: number;
  candidateLines: number;
  candidates: number;
  matchedLines: number;
}

/** Per-host scratch: the dedup stamps, the copy area for unaligned blocks, the line object. */
class Scratch {
  stats: ScanStats = emptyStats();
  lastVerified = 0;
  seen: Int32Array;
  stamp = 0;
  copy: Uint8Array | undefined;
  /** UTF-8 of decoded views to byte-scan (4-byte aligned: offset 0 of its own buffer). */
  text: Uint8Array<ArrayBuffer> = new Uint8Array(4096);
  hits: LineHits;
  /** escapedCandidates' (listed index, start, end) triples. */
  spans: number[] = [];
  constructor(host: BlockHost) {
    this.seen = new Int32Array(host.memberStart.length);
    this.hits = new LineHits(host);
  }
  /** Grow `text` to at least `size` bytes, keeping its first `keep`. */
  growText(keep: number, size: number): Uint8Array<ArrayBuffer> {
    const grown = new Uint8Array(Math.max(size, this.text.length * 2));
    grown.set(this.text.subarray(0, keep));
    this.text = grown;
    return grown;
  }
}
const scratchOf = new WeakMap<BlockHost, Scratch>();

function scratch(host: BlockHost): Scratch {
  let s = scratchOf.get(host);
  if (!s) {
    s = new Scratch(host);
    scratchOf.set(host, s);
  }
  return s;
}

function emptyStats(): ScanStats {
  return { lines: 0, hits: 0, candidateLines: 0, candidates: 0, matchedLines: 0 };
}

/** The statistics since the last call (and start again). */
export function takeScanStats(host: BlockHost): ScanStats {
  const sc = scratch(host);
  const s = sc.stats;
  sc.stats = emptyStats();
  return s;
}

/** Append to out each slot of recs[from], recs[from + step], ... before `to`, once. */
function uniqueSlots(sc: Scratch, recs: Int32Array, from: number, to: number, step: number, out: number[]): number[] {
  if (++sc.stamp >= 0x3fffffff) {
    sc.seen.fill(0);
    sc.stamp = 1;
  }
  const st = sc.stamp;
  for (let i = from; i < to; i += step) {
    const rec = recs[i]!;
    if (sc.seen[rec] !== st) {
      sc.seen[rec] = st;
      out.push(rec);
    }
  }
  return out;
}

/** The slots whose byte key occurs in a text (a decoded view: an ANSI line's stripped text, a JSON
 * value with escapes): the byte scan over its UTF-8 bytes, instead of the string prefilter. */
function byteCandidates(host: BlockHost, sc: Scratch, text: string, out: number[]): void {
  const room = text.length * 3 + 32;
  if (sc.text.length < room) sc.text = new Uint8Array(Math.max(room, sc.text.length * 2));
  const buf = sc.text;
  const n = utf8.encodeInto(text, buf).written;
  buf.fill(0, n, n + 32);
  const hits = host.index.scan(buf, n);
  uniqueSlots(sc, hits.rec, 0, hits.count, 1, out);
}

/** The LINE_ESCAPED lines of a listed block (ANSI sequences) that must be matched, by listed index:
 * the candidate slots of the line's stripped text (its first view), or an empty list for a line
 * with other views (a JSON value with escapes: looked in by slotResultsWith's prefilter); undefined for
 * the others (no key in the stripped text: no match). The stripped texts are byte-scanned at once,
 * joined by '\n' (a key never holds a line break, so each text gets exactly its own hits): one
 * scan per block, not one per line, as a coloured CI log has ESC on every line. */
function escapedCandidates(host: BlockHost, sc: Scratch, bytes: Buffer, entries: Int32Array, count: number): (number[] | undefined)[] {
  const out = new Array<number[] | undefined>(count).fill(undefined);
  const spans = sc.spans;
  spans.length = 0;
  let buf = sc.text;
  let n = 0;
  const code = (i: number): number => bytes[i]!;
  // the next ESC and '{' at or after the lines looked at so far (native searches, each carried to
  // the lines after: the block's bytes are searched once, not once per line)
  let esc = -1;
  let open = -1;
  for (let i = 0; i < count; i++) {
    const o = i * 8;
    if (entries[o + 5] !== LINE_ESCAPED) continue;
    const start = entries[o + 1]!;
    const end = textEnd(bytes, start, entries[o + 2]!);
    if (buf.length < n + (end - start) + 1 + 32) buf = sc.growText(n, n + (end - start) + 1 + 32);
    // the stripped text (the first view, less trailing CRs, which no key holds) from the bytes: the
    // escape grammar is ASCII, so it cuts UTF-8 where it cuts the decoded text. The escapes are
    // found natively and the runs between them copied whole (copyBytes): a coloured line is a few
    // runs, and a byte loop over every byte of every line was a third of a coloured log's scan
    const a = n;
    for (let p = start; p < end; ) {
      if (esc < p) {
        esc = bytes.indexOf(0x1b, p);
        if (esc < 0) esc = bytes.length;
      }
      const stop = esc < end ? esc : end;
      if (stop > p) n += copyBytes(bytes, p, stop, buf, n);
      if (stop === end) break;
      p = esc + escapeLengthOf(code, esc, end);
    }
    spans.push(i, a, n);
    buf[n++] = 10;
    // a JSON-structured line has other views (its string values): matched in JS whatever its keys
    // (a '{' in the line's bytes; one inside an escape sequence only costs the look)
    if (open < start) {
      open = bytes.indexOf(0x7b, start);
      if (open < 0) open = bytes.length;
    }
    if (open < end && lineViews(utf8Slice(bytes, start, end)).length > 1) out[i] = [];
  }
  if (spans.length === 0) return out;
  buf.fill(0, n, n + 32);
  const hits = host.index.scan(buf, n);
  let h = 0;
  for (let k = 0; k < spans.length && h < hits.count; k += 3) {
    const a = spans[k + 1]!;
    const b = spans[k + 2]!;
    while (h < hits.count && hits.pos[h]! < a) h++;
    const from = h;
    while (h < hits.count && hits.pos[h]! < b) h++;
    if (h > from) uniqueSlots(sc, hits.rec, from, h, 1, (out[spans[k]!] ??= []));
  }
  return out;
}

/** A line with ESC (ANSI sequences): its keys are looked for in its stripped text (the first view). */
function matchEscaped(host: BlockHost, sc: Scratch, line: string): SlotResults {
  const views = lineViews(line);
  const cands: number[] = [];
  byteCandidates(host, sc, views[0]!.text, cands);
  return host.slotResultsWith(line, cands, views, (t, out) => byteCandidates(host, sc, t, out));
}

/** Line ends: \n, or a CR not followed by \n. The next one at or after `from`, or -1. */
function nextBreak(bytes: Buffer, n: number, from: number, cr: { at: number }): number {
  const nl = bytes.indexOf(10, from);
  const end = nl < 0 || nl >= n ? n : nl;
  if (cr.at < from) {
    const c = bytes.indexOf(13, from);
    cr.at = c < 0 || c >= n ? n : c;
  }
  while (cr.at < end) {
    if (cr.at + 1 >= n || bytes[cr.at + 1] !== 10) return cr.at;
    const c = bytes.indexOf(13, cr.at + 1);
    cr.at = c < 0 || c >= n ? n : c;
  }
  return end < n ? end : -1;
}

/** The end of the text of the line [start, end): without a CRLF's CR. */
function textEnd(bytes: Buffer, start: number, end: number): number {
  return end > start && bytes[end - 1] === 0x0d ? end - 1 : end;
}

/**
 * MatchEngine.scanBytes: see there. buf[0, n) holds whole lines; lines are numbered from 0.
 */
export function scanBlock(host: BlockHost, buf: Uint8Array, n: number, onLine: (lineIndex: number, hits: LineHits) => void, staged?: StagedBlock): number {
  const sc = scratch(host);
  if ((buf.byteOffset & 3) !== 0 || buf.length < n + 32) {
    if (!sc.copy || sc.copy.length < n + 32) sc.copy = new Uint8Array(Math.max(n + 32, 1 << 16));
    sc.copy.set(buf.subarray(0, n));
    buf = sc.copy;
  }
  // the scan reads up to 32 bytes past n: zero them for it, and give the caller's bytes back after
  const saved = buf.slice(n, n + 32);
  buf.fill(0, n, n + 32);
  try {
    const st = sc.stats;
    return walk(
      host,
      sc,
      buf,
      n,
      (i, h) => {
        st.matchedLines++;
        onLine(i, h);
      },
      staged,
    );
  } finally {
    buf.set(saved, n);
  }
}

function walk(host: BlockHost, sc: Scratch, buf: Uint8Array, n: number, onLine: (lineIndex: number, hits: LineHits) => void, staged: StagedBlock | undefined): number {
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, n + 32);
  const index = host.index;
  const hits = sc.hits;
  const cr = { at: -1 };
  if (index.unkeyed.length > 0) {
    // patterns without any literal byte: every line is a candidate (only such patterns: a literal
    // of control characters; every other pattern has a key)
    let lineNo = 0;
    let pos = 0;
    while (pos < n) {
      let br = nextBreak(bytes, n, pos, cr);
      if (br < 0) br = n;
      const e = textEnd(bytes, pos, br);
      const line = utf8Slice(bytes, pos, e);
      const ms = host.matchAll(line);
      if (ms.length > 0) {
        hits.setJs(bytes, pos, e, line, ms);
        onLine(lineNo, hits);
      }
      lineNo++;
      pos = br + 1;
    }
    return lineNo;
  }
  const parts = index.scanParts(buf, n, staged);
  if (parts) {
    // the parts one after another (a helper thread scans each while the ones before are walked)
    let total = 0;
    for (let p = parts.next(); p; p = parts.next()) {
      if (p.lines) {
        walkListed(host, sc, bytes, p.lines, total, p.start, onLine);
        total += p.lines.total;
      } else total += jsWalk(host, sc, buf, bytes, p.end, p.start, total, onLine);
    }
    return total;
  }
  return jsWalk(host, sc, buf, bytes, n, 0, 0, onLine);
}

/** The native walk's listed lines of a part of the block: its lines are numbered from lineBase,
 * its positions from byteBase. */
function walkListed(host: BlockHost, sc: Scratch, bytes: Buffer, listed: NativeLines, lineBase: number, byteBase: number, onLine: (lineIndex: number, hits: LineHits) => void): void {
  const st = sc.stats;
  const hits = sc.hits;
  const bytePrefilter = (t: string, out: number[]): void => byteCandidates(host, sc, t, out);
  st.lines += listed.total;
  st.hits += listed.pairs.length >> 1;
  st.candidateLines += listed.lines;
  st.candidates += listed.verified - sc.lastVerified;
  sc.lastVerified = listed.verified;
  // copies: the module's memory is reused by the scans of decoded views below
  const entries = listed.entries.slice();
  if (byteBase > 0) {
    for (let o = 0; o < entries.length; o += 8) {
      entries[o + 1] = entries[o + 1]! + byteBase;
      entries[o + 2] = entries[o + 2]! + byteBase;
    }
  }
  const pairs = listed.pairs.slice();
  const results = listed.results.slice();
  const escaped = escapedCandidates(host, sc, bytes, entries, listed.lines);
  const cands: number[] = [];
  const emitJs = (lineNo: number, start: number, end: number, got: SlotResults, text: string): void => {
    if (got.results.length === 0) return;
    hits.setSlots(bytes, start, end, text, got);
    onLine(lineNo, hits);
  };
  for (let i = 0; i < listed.lines; i++) {
    const o = i * 8;
    const lineNo = lineBase + entries[o]!;
    const start = entries[o + 1]!;
    const end = textEnd(bytes, start, entries[o + 2]!);
    const status = entries[o + 5]!;
    if (status === LINE_MATCHED) {
      hits.setNative(bytes, start, end, results, entries[o + 6]!, entries[o + 7]!);
      onLine(lineNo, hits);
      continue;
    }
    if (status === LINE_ESCAPED) {
      const ec = escaped[i];
      if (!ec) continue; // no key in its stripped text, no other view to look in
      const line = utf8Slice(bytes, start, end);
      emitJs(lineNo, start, end, host.slotResultsWith(line, ec, lineViews(line), bytePrefilter), line);
      continue;
    }
    const line = utf8Slice(bytes, start, end);
    cands.length = 0;
    // slots at the odd words of the (position, slot) pairs
    uniqueSlots(sc, pairs, 2 * entries[o + 3]! + 1, 2 * entries[o + 4]! + 1, 2, cands);
    st.candidates += cands.length;
    emitJs(lineNo, start, end, host.slotResultsWith(line, cands, undefined, bytePrefilter), line);
  }
}

/**
 * The same walk in JS (no WebAssembly, or a block the module gives up on) over bytes[from, n),
 * whose first line is line lineBase of the block; returns its number of lines. Copies of the
 * hits: the scans of decoded views below (ANSI lines, JSON values with escapes) reuse the index's
 * arrays.
 */
function jsWalk(host: BlockHost, sc: Scratch, buf: Uint8Array, bytes: Buffer, n: number, from: number, lineBase: number, onLine: (lineIndex: number, hits: LineHits) => void): number {
  const index = host.index;
  const st = sc.stats;
  const hits = sc.hits;
  const bytePrefilter = (t: string, out: number[]): void => byteCandidates(host, sc, t, out);
  const emitJs = (lineNo: number, start: number, end: number, got: SlotResults, text: string): void => {
    if (got.results.length === 0) return;
    hits.setSlots(bytes, start, end, text, got);
    onLine(lineNo, hits);
  };
  const cr = { at: -1 };
  // (the second part of a split block: copied to a buffer of its own, 4-aligned and zero-padded)
  const part = from > 0 ? new Uint8Array(n - from + 32) : buf;
  if (from > 0) part.set(buf.subarray(from, n));
  const scanned = index.scan(part, n - from);
  const found = { pos: scanned.pos.slice(0, scanned.count), rec: scanned.rec.slice(0, scanned.count), count: scanned.count };
  if (from > 0) for (let i = 0; i < found.count; i++) found.pos[i] = found.pos[i]! + from;
  st.hits += found.count;
  // lines whose views differ from their bytes: ANSI escapes and JSON escapes
  const special: number[] = [];
  for (const needle of [0x1b, 0x5c]) {
    let p = bytes.indexOf(needle, from);
    while (p >= 0 && p < n) {
      special.push(p);
      p = bytes.indexOf(needle, p + 1);
    }
  }
  if (special.length > 1) special.sort((a, b) => a - b);
  const cands: number[] = [];
  let lineNo = lineBase;
  let pos = from; // start of line lineNo
  let br = nextBreak(bytes, n, from, cr);
  let hi = 0;
  let si = 0;
  for (;;) {
    const nextHit = hi < found.count ? found.pos[hi]! : n;
    const nextSpecial = si < special.length ? special[si]! : n;
    const target = Math.min(nextHit, nextSpecial);
    if (target >= n) break;
    while (br >= 0 && br < target) {
      lineNo++;
      pos = br + 1;
      br = nextBreak(bytes, n, pos, cr);
    }
    const lineEnd = br < 0 ? n : br;
    let esc = false;
    while (si < special.length && special[si]! < lineEnd) if (bytes[special[si++]!] === 0x1b) esc = true;
    const first = hi;
    while (hi < found.count && found.pos[hi]! < lineEnd) hi++;
    const e = textEnd(bytes, pos, lineEnd);
    const line = utf8Slice(bytes, pos, e);
    if (esc) emitJs(lineNo, pos, e, matchEscaped(host, sc, line), line);
    else {
      cands.length = 0;
      uniqueSlots(sc, found.rec, first, hi, 1, cands);
      st.candidateLines++;
      st.candidates += cands.length;
      emitJs(lineNo, pos, e, host.slotResultsWith(line, cands, undefined, bytePrefilter), line);
    }
    if (br < 0) {
      st.lines += lineNo + 1 - lineBase;
      return lineNo + 1 - lineBase;
    }
    lineNo++;
    pos = br + 1;
    br = nextBreak(bytes, n, pos, cr);
  }
  // count the remaining lines
  while (br >= 0) {
    lineNo++;
    pos = br + 1;
    br = nextBreak(bytes, n, pos, cr);
  }
  const total = (pos < n ? lineNo + 1 : lineNo) - lineBase;
  st.lines += total;
  return total;
}
