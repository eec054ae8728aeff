// How rare a key is in ordinary text, for choosing keys that stay selective on real logs.
//
// Rarity across the record set (how many records share a window) is not enough: with literals of
// common words, a key such as `request ` or `failed t` is unique among the records yet occurs on
// many lines of a real log, and every occurrence costs a verification. So each window of a literal
// also gets an estimate of its information in ordinary text, in bits, from the background word
// model (core/confidence/words.generated.ts: the most frequent words of this machine's manual
// pages, Vim help and logs, by rank; a word of rank r is worth about log2(r) bits). Per byte of a
// literal: a letter of a known word carries that word's bits / its length; digits, punctuation
// and bytes of other scripts carry fixed amounts; a space almost nothing. A window's bits are the
// sum over its bytes (prefix sums: O(1) per window).

import { rankBits, unknownWordBits, wordBits } from '../confidence';
import { WORDS_BY_RANK } from '../confidence/words.generated';

/** Bits of a byte that is not part of a word of letters. */
function otherBits(c: number): number {
  if (c === 0x20) return 0.3;
  if (c >= 0x30 && c <= 0x39) return 3.3;
  if (c === 0x5f) return 4;
  if (c >= 0x80) return 4;
  if (c === 0x2e || c === 0x2c || c === 0x3a || c === 0x2d || c === 0x2f || c === 0x27 || c === 0x22) return 2;
  return 3.5;
}

function isLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}

/** The background words by a hash of their lowercase ASCII bytes (no string per lookup). */
class WordTable {
  private readonly keys: Int32Array;
  private readonly bits: Float32Array;
  private readonly mask: number;
  constructor() {
    const words = WORDS_BY_RANK.split(' ');
    const size = 1 << Math.ceil(Math.log2(words.length * 2 + 1));
    this.keys = new Int32Array(size);
    this.bits = new Float32Array(size);
    this.mask = size - 1;
    const buf = new Uint8Array(64);
    for (let r = 0; r < words.length; r++) {
      const w = words[r]!;
      for (let i = 0; i < w.length; i++) buf[i] = w.charCodeAt(i);
      const h = hashLowerAt((i) => buf[i]!, 0, w.length) | 1; // 0 marks an empty slot
      let s = h & this.mask;
      while (this.keys[s] !== 0 && this.keys[s] !== h) s = (s + 1) & this.mask;
      if (this.keys[s] === h) continue;
      this.keys[s] = h;
      this.bits[s] = rankBits(r);
    }
  }
  /** Bits of the word of `len` letters (any case) whose codes `at(a)`, `at(a + 1)`, ... gives, as
   * wordBits gives them. */
  lookup(at: (i: number) => number, a: number, len: number): number {
    const h = hashLowerAt(at, a, len) | 1;
    let s = h & this.mask;
    for (;;) {
      const k = this.keys[s]!;
      if (k === h) return this.bits[s]!;
      if (k === 0) return unknownWordBits(len);
      s = (s + 1) & this.mask;
    }
  }
}

function hashLowerAt(at: (i: number) => number, a: number, len: number): number {
  let h = 0x811c9dc5 ^ len;
  for (let i = a; i < a + len; i++) h = Math.imul(h ^ (at(i) | 0x20), 0x01000193);
  return Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
}

let table: WordTable | undefined;

/**
 * Prefix sums of the background bits of the len codes at(0), at(1), ...: out[k] is the bits of the
 * first k, out has len + 1 entries. A window [s, e) carries out[e] - out[s] bits; a word cut by the
 * window's edge counts for its share of letters.
 */
function prefixOf(at: (i: number) => number, len: number, out?: Float64Array): Float64Array {
  table ??= new WordTable();
  const p = out && out.length >= len + 1 ? out : new Float64Array(len + 1);
  p[0] = 0;
  let i = 0;
  while (i < len) {
    const c = at(i);
    if (isLetter(c)) {
      let j = i + 1;
      while (j < len && isLetter(at(j))) j++;
      // camelCase and SHOUTING words are looked up as written (case-insensitively)
      const per = table.lookup(at, i, j - i) / (j - i);
      for (let k = i; k < j; k++) p[k + 1] = p[k]! + per;
      i = j;
    } else {
      p[i + 1] = p[i]! + otherBits(c);
      i++;
    }
  }
  return p;
}

/** prefixOf over the UTF-8 bytes b[off, off + len) (the byte index's literals). */
export function bitPrefix(b: Uint8Array, off: number, len: number, out?: Float64Array): Float64Array {
  return prefixOf((i) => b[off + i]!, len, out);
}

/** prefixOf over the UTF-16 units of s (the string prefilter's literals). */
export function stringBitPrefix(s: string, out?: Float64Array): Float64Array {
  return prefixOf((i) => s.charCodeAt(i), s.length, out);
}

let byteTable: Float64Array | undefined;

/** How rare a byte is in ordinary text (bits, higher is rarer): letters by their frequency in the
 * background words weighted by rank (Zipf), the space as the commonest byte, digits and
 * punctuation at fixed levels. For choosing which bytes of a short key to search for. */
export function byteRarity(c: number): number {
  if (!byteTable) {
    const f = new Float64Array(256);
    const words = WORDS_BY_RANK.split(' ');
    let total = 0;
    for (let r = 0; r < words.length; r++) {
      const w = words[r]!;
      const weight = 1 / (r + 1.5);
      for (let i = 0; i < w.length; i++) {
        f[w.charCodeAt(i)]! += weight;
        f[w.charCodeAt(i) - 32]! += weight / 20; // capitals: rarer
        total += weight * 1.05;
      }
    }
    const t = new Float64Array(256);
    for (let b = 0; b < 256; b++) {
      if (isLetter(b)) t[b] = f[b]! > 0 ? -Math.log2(f[b]! / total) + 2 : 14;
      else if (b === 0x20) t[b] = 2;
      else if (b >= 0x30 && b <= 0x39) t[b] = 7;
      else if (b >= 0x80) t[b] = 6;
      else t[b] = 8;
    }
    byteTable = t;
  }
  return byteTable[c & 255]!;
}

/** Bits of a whole string (for tests and diagnostics; the same model as bitPrefix). */
export function textRarityBits(s: string): number {
  return stringBitPrefix(s)[s.length]!;
}

/** For tests: the word model's bits of one word, as core/confidence gives them. */
export const backgroundWordBits = wordBits;
