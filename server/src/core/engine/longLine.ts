// One line too long for a block (a 100 MB minified dump, a base64 blob): matched to its end in
// bytes, in constant memory. The line arrives in segments (core/lineBlocks.ts LongLineSink):
//  1. each window of it (with the key length's overlap) goes through the byte index: the patterns
//     whose key occurs anywhere in the line are its candidates; its bytes are spilled to a
//     temporary file, with a UTF-16 count every CHECKPOINT bytes (columns are UTF-16 units);
//  2. at its end, the candidates are matched over the spilled line, window by window: a literal
//     chain exactly as ChainMatcher does it (each literal's first occurrence after the previous one,
//     holes of at least one character, a trailing hole to the line's end less trailing whitespace),
//     a general regex within each window (as RegexMatcher does on any long text: a match longer
//     than a window is not found).
// Offsets are exact UTF-16 columns of the whole line; the text of a span or capture is cut at
// VALUE_MAX bytes (with '…'). Limits, documented in the README: the line's views are not made (no
// ANSI stripping or JSON values on such a line), and U+2028 / U+2029 inside it do not split holes.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SlotHost } from './blocks';
import type { RawMatch } from './matchers';
import { type Capture, type LineMatch, hasToken } from './types';
import { parseSimplePattern } from '../pattern';

export interface LongLineHost extends SlotHost {
  patternOf(slot: number): string;
  isSimple(slot: number): boolean;
  matcherOf(slot: number): { match(t: string, terms: number[] | null): RawMatch | null };
}

/** Bytes per window of the line. */
const WINDOW = 4 << 20;
/** A UTF-16 count is kept every this many bytes. */
const CHECKPOINT = 1 << 20;
/** Longest text of a span or capture value (bytes) kept in a LineMatch of such a line. */
export const VALUE_MAX = 4096;
/** The line's text handed to callers: its first bytes. */
export const PREFIX_BYTES = 64 * 1024;
/** Overlap of regex windows (characters of RegexMatcher's own window, as bytes). */
const REGEX_OVERLAP = 4 * 2048;

const utf8 = new TextDecoder('utf-8');

function isCont(b: number): boolean {
  return (b & 0xc0) === 0x80;
}

/** UTF-16 units of the UTF-8 bytes b[a, e) (4-byte sequences are two). */
function units(b: Uint8Array, a: number, e: number): number {
  let n = 0;
  for (let i = a; i < e; i++) {
    const c = b[i]!;
    if (!isCont(c)) n += c >= 0xf0 ? 2 : 1;
  }
  return n;
}

export class LongLine {
  private fd: number;
  private file: string;
  private size = 0;
  private units = 0;
  /** UTF-16 count at byte k * CHECKPOINT. */
  private readonly checkpoints: number[] = [0];
  private carry = new Uint8Array(0);
  private readonly cand: Uint8Array;
  private scratch = new Uint8Array(0);
  /** The line's first bytes and last bytes (the prefix for callers, the tail for trailing space). */
  private prefix = new Uint8Array(PREFIX_BYTES);
  private prefixLen = 0;
  private tail = new Uint8Array(64);
  private tailLen = 0;

  constructor(
    private readonly host: LongLineHost,
    private readonly done: (matches: LineMatch[], prefix: string) => void,
  ) {
    this.cand = new Uint8Array(host.memberStart.length);
    this.file = path.join(os.tmpdir(), `error-explainer-line-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`);
    this.fd = fs.openSync(this.file, 'w+', 0o600);
  }

  segment(bytes: Uint8Array): void {
    for (let a = 0; a < bytes.length; a += WINDOW) this.window(bytes.subarray(a, Math.min(bytes.length, a + WINDOW)));
  }

  private window(b: Uint8Array): void {
    // spill, count UTF-16 units with checkpoints, keep the prefix and the tail
    fs.writeSync(this.fd, b, 0, b.length, this.size);
    let at = 0;
    while (at < b.length) {
      const nextCk = this.checkpoints.length * CHECKPOINT;
      const upto = Math.min(b.length, at + (nextCk - this.size));
      this.units += units(b, at, upto);
      this.size += upto - at;
      at = upto;
      if (this.size === nextCk) this.checkpoints.push(this.units);
    }
    if (this.prefixLen < PREFIX_BYTES) {
      const take = Math.min(PREFIX_BYTES - this.prefixLen, b.length);
      this.prefix.set(b.subarray(0, take), this.prefixLen);
      this.prefixLen += take;
    }
    if (b.length >= 64) {
      this.tail.set(b.subarray(b.length - 64));
      this.tailLen = 64;
    } else {
      const keep = Math.min(this.tailLen, 64 - b.length);
      this.tail.copyWithin(0, this.tailLen - keep, this.tailLen);
      this.tail.set(b, keep);
      this.tailLen = keep + b.length;
    }
    // the byte scan over carry + window (keys are at most 19 bytes: 32 bytes of overlap)
    const n = this.carry.length + b.length;
    if (this.scratch.length < n + 32) this.scratch = new Uint8Array(n + 64);
    const buf = this.scratch;
    buf.set(this.carry, 0);
    buf.set(b, this.carry.length);
    buf.fill(0, n, n + 32);
    const hits = this.host.index.scan(buf, n);
    for (let i = 0; i < hits.count; i++) this.cand[hits.rec[i]!] = 1;
    this.carry = buf.slice(Math.max(0, n - 32), n);
  }

  end(): void {
    try {
      const matches = this.size > 0 ? this.match() : [];
      let p = this.prefixLen;
      while (p > 0 && p < this.size && isCont(this.prefix[p]!)) p--;
      this.done(matches, utf8.decode(this.prefix.subarray(0, p)));
    } finally {
      fs.closeSync(this.fd);
      fs.rmSync(this.file, { force: true });
    }
  }

  private read(pos: number, len: number): Buffer {
    const out = Buffer.allocUnsafe(Math.max(0, Math.min(len, this.size - pos)));
    let got = 0;
    while (got < out.length) {
      const r = fs.readSync(this.fd, out, got, out.length - got, pos + got);
      if (r <= 0) break;
      got += r;
    }
    return got === out.length ? out : out.subarray(0, got);
  }

  /** UTF-16 column of byte position p of the line. */
  private column(p: number): number {
    const k = Math.min(Math.floor(p / CHECKPOINT), this.checkpoints.length - 1);
    const base = k * CHECKPOINT;
    return this.checkpoints[k]! + units(this.read(base, p - base), 0, p - base);
  }

  /** The text of bytes [a, e), cut at VALUE_MAX bytes with '…'. */
  private text(a: number, e: number): string {
    if (e - a <= VALUE_MAX) return this.read(a, e - a).toString('utf8');
    let cut = VALUE_MAX;
    const b = this.read(a, VALUE_MAX + 4);
    while (cut > 0 && isCont(b[cut]!)) cut--;
    return b.subarray(0, cut).toString('utf8') + '…';
  }

  /** Byte length of the UTF-8 character starting at p. */
  private charLen(p: number): number {
    const c = this.read(p, 1)[0] ?? 0;
    return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
  }

  private match(): LineMatch[] {
    const host = this.host;
    const chains: { slot: number; lits: Buffer[]; leading: boolean; trailing: boolean; at: number[]; from: number; done: boolean; failed: boolean }[] = [];
    const regexes: number[] = [];
    let overlap = 0;
    for (let s = 0; s < this.cand.length; s++) {
      if (!this.cand[s]) continue;
      if (!host.isSimple(s)) {
        regexes.push(s);
        continue;
      }
      const p = parseSimplePattern(host.patternOf(s))!;
      const lits = p.literals.map((l) => Buffer.from(l, 'utf8'));
      for (const l of lits) overlap = Math.max(overlap, l.length);
      // a leading hole holds one character at least: the first literal starts at byte 1 or later
      chains.push({ slot: s, lits, leading: p.leadingHole, trailing: p.trailingHole, at: [], from: p.leadingHole ? 1 : 0, done: false, failed: false });
    }
    const results: { slot: number; start: number; end: number; caps: number[] }[] = [];
    // chains: window by window, each candidate's next literal from where it may start
    if (chains.length) {
      for (let w = 0; w < this.size && chains.some((c) => !c.done); w += WINDOW) {
        const win = this.read(w, WINDOW + overlap);
        const wEnd = w + Math.min(WINDOW, this.size - w);
        for (const c of chains) {
          while (!c.done) {
            const lit = c.lits[c.at.length]!;
            let p: number;
            if (lit.length === 0) {
              if (c.from >= this.size) {
                c.done = c.failed = true;
                break;
              }
              p = c.from;
            } else {
              if (c.from >= wEnd) break; // the next window
              const q = win.indexOf(lit, Math.max(0, c.from - w));
              if (q < 0 || w + q >= wEnd) break; // no occurrence starting in this window
              p = w + q;
            }
            c.at.push(p);
            const litEnd = p + lit.length;
            // the next literal after a hole of one character at least
            c.from = litEnd >= this.size ? this.size + 1 : litEnd + this.charLen(litEnd);
            if (c.at.length === c.lits.length) c.done = true;
          }
        }
      }
      for (const c of chains) {
        if (!c.done || c.failed) continue;
        const spans: number[] = [];
        if (c.leading) spans.push(0, c.at[0]!);
        for (let i = 1; i < c.at.length; i++) spans.push(c.at[i - 1]! + c.lits[i - 1]!.length, c.at[i]!);
        const lastEnd = c.at[c.at.length - 1]! + c.lits[c.lits.length - 1]!.length;
        let end = lastEnd;
        if (c.trailing) {
          if (lastEnd >= this.size) continue;
          end = this.trimmedEnd(lastEnd + this.charLen(lastEnd));
          spans.push(lastEnd, end);
        }
        results.push({ slot: c.slot, start: c.leading ? 0 : c.at[0]!, end, caps: spans });
      }
    }
    // regexes: within each window of the line (decoded at character boundaries)
    for (const s of regexes) {
      const m = host.matcherOf(s);
      for (let w = 0; w < this.size; w += WINDOW) {
        let a = w;
        while (a > 0 && isCont(this.read(a, 1)[0]!)) a--;
        const bytes = this.read(a, WINDOW + REGEX_OVERLAP);
        let e = bytes.length;
        while (e > 0 && e < this.size - a && isCont(bytes[e]!)) e--;
        const text = bytes.subarray(0, e).toString('utf8');
        const r = m.match(text, null);
        if (!r) continue;
        // back to byte offsets of the line
        const toByte = (u: number): number => a + Buffer.byteLength(text.slice(0, u));
        results.push({ slot: s, start: toByte(r.start), end: toByte(r.end), caps: r.caps.map((x) => (x < 0 ? -1 : toByte(x))) });
        break;
      }
    }
    const prefixText = utf8.decode(this.prefix.subarray(0, this.prefixLen));
    const out: LineMatch[] = [];
    for (const r of results) {
      const start = this.column(r.start);
      const end = this.column(r.end);
      const text = this.text(r.start, r.end);
      for (let k = host.memberStart[r.slot]!; k < host.memberStart[r.slot + 1]!; k++) {
        const rec = host.members[k]!;
        const entry = host.entries[rec]!;
        const captures: Capture[] = [];
        for (let g = 0; g * 2 < r.caps.length; g++) {
          const s = r.caps[2 * g]!;
          const e = r.caps[2 * g + 1]!;
          if (s < 0) continue;
          captures.push({ name: entry.captureNames[g] ?? String(g + 1), value: this.text(s, e), start: this.column(s), end: this.column(e) });
        }
        // (an error code is looked for in the line's first bytes)
        out.push({ entry: rec, start, end, text, captures, literalLength: host.literalLengths[r.slot]!, codeInLine: entry.errorCode ? hasToken(prefixText, entry.errorCode) : false });
      }
    }
    if (out.length > 1) out.sort(host.compare);
    return out;
  }

  /** The line's end less trailing whitespace (space, tab, VT, FF, NBSP), never before minEnd. */
  private trimmedEnd(minEnd: number): number {
    let e = this.size;
    const t = this.tail;
    let k = this.tailLen;
    while (e > minEnd && k > 0) {
      const c = t[k - 1]!;
      if (c === 32 || c === 9 || c === 11 || c === 12) {
        e--;
        k--;
      } else if (c === 0xa0 && k >= 2 && t[k - 2] === 0xc2 && e - 2 >= minEnd) {
        e -= 2;
        k -= 2;
      } else break;
    }
    return e;
  }
}
