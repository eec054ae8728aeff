// AssemblyScript source of the "are these raw lines surely quiet" test (compiled to WebAssembly by
// scripts/build-wasm.mjs into server/src/core/blocks/shapesWasm.generated.ts): `quiet` answers what
// core/blocks/quiet.ts quietnessJs answers of the same bytes, from the same tables:
//   - with an ESC in the bytes, their lines with the escape sequences removed (stripEscapeBytes,
//     core/blocks/quiet.ts; escapeLengthOf, core/text.ts), else the bytes as they are;
//   - then !mayHoldBlockShape (core/blocks/shapes.ts): a pytest line start (`_ > E = -`) or a
//     frame's `at ` at a line's start, after a blank at a line's start or after a tab, or one of
//     the shape tokens anywhere (TokenSearch.foundIn finds them by a Wu-Manber table; here, 16
//     places at a time, by nibble tables of three bytes of each: "Teddy", as the pair keys of
//     scan.ts);
//   - and, where they are quiet, whether their bytes as they are hold an exception header token
//     (shapes.ts HEADER_TOKENS: without one, exceptionHeader finds no header in any of their lines).
// The JS functions are the reference: unit tests compare the two on generated and real bytes.
//
// Memory is the JS side's (imported), laid out by quiet.ts:
//   TEDDY (96 bytes): the nibble tables of the tokens' windows (three bytes of each), eight
//     buckets (a bit each): L0, H0, L1, H1, L2, H2, 16 bytes each (a byte's low and high nibble at
//     a window's first, second and third byte);
//   TEDDY_HEADER (96 bytes, at 96): the same of the exception header tokens (shapes.ts
//     HEADER_TOKENS);
//   LANES (16 bytes, at 192): scratch;
//   BUCKETS (at 256): i32 per bucket k + 1: where bucket k's tokens start (bytes from BUCKETS), the
//     last one where they end; a token: [length (u8), its window's offset (u8), codes (u8 each: a
//     byte, or DIGIT, SPACE)];
//   BUCKETS_HEADER (at 2304): the same of the header tokens;
//   the input bytes and, after them, the stripped bytes (each at most as long as the input, with
//     64 bytes to spare: the token pass reads up to 18 bytes past the end).

import { nibbleBuckets } from './teddy';

/** The block tokens' nibble tables and buckets, and the exception header tokens' (quiet.ts lays
 * them out). */
const TEDDY: usize = 0;
const TEDDY_HEADER: usize = 96;
/** The candidate lanes' bucket bits of the 16 places looked at (scratch). */
const LANES: usize = 192;
const BUCKETS: usize = 256;
const BUCKETS_HEADER: usize = 2304;
/** quiet's answer: surely no block shape; and no exception header token either. */
const QUIET: i32 = 1;
const HEADER_FREE: i32 = 2;
/** Token codes that stand for a class (core/blocks/shapes.ts DIGIT, SPACE), as one byte each: no
 * token byte is either (the tokens are ASCII). */
const DIGIT: u8 = 0xfe;
const SPACE: u8 = 0xff;
const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;

/** A RegExp's \s among the bytes read as latin1 characters (shapes.ts isRegExpSpace up to 0xff). */
@inline function isSpace(c: u32): bool {
  return c == 0x20 || (c >= 0x09 && c <= 0x0d) || c == 0xa0;
}

/** `at ` or ` at ` at i (shapes.ts frameAt). */
@inline function frameAt(p: usize, i: i32, n: i32): bool {
  if (i < n && load<u8>(p + <usize>i) == 0x20) i++;
  return i + 2 < n && load<u8>(p + <usize>i) == 0x61 && load<u8>(p + <usize>i, 1) == 0x74 && load<u8>(p + <usize>i, 2) == 0x20;
}

/** Does the line starting at i start like a pytest line or a frame's `at `? (shapes.ts
 * lineStartMayHold) */
@inline function lineStartMayHold(p: usize, i: i32, n: i32): bool {
  if (i >= n) return false;
  const c = load<u8>(p + <usize>i);
  return c == 0x5f || c == 0x3e || c == 0x45 || c == 0x3d || c == 0x2d || frameAt(p, i, n);
}

/** Is the token at q ([length, offset of its window, codes]) in the bytes where its window is at
 * `w`? (shapes.ts holdsIn) */
function holds(p: usize, n: i32, w: i32, q: usize): bool {
  const len = <i32>load<u8>(q);
  const at = w - <i32>load<u8>(q, 1);
  if (at < 0 || at + len > n) return false;
  const codes = q + 2;
  const b = p + <usize>at;
  for (let j: i32 = 0; j < len; j++) {
    const want = load<u8>(codes + <usize>j);
    const c = <u32>load<u8>(b + <usize>j);
    if (want == DIGIT) {
      if (c - 0x30 > 9) return false;
    } else if (want == SPACE) {
      if (!isSpace(c)) return false;
    } else if (c != <u32>want) return false;
  }
  return true;
}

/** mayHoldBlockShape of the n bytes at p. */
function mayHold(p: usize, n: i32): bool {
  if (lineStartMayHold(p, 0, n)) return true;
  // line breaks and tabs, 16 bytes at a time
  const vLF = i8x16.splat(0x0a);
  const vCR = i8x16.splat(0x0d);
  const vTAB = i8x16.splat(0x09);
  let i: i32 = 0;
  for (; i + 16 <= n; i += 16) {
    const x = v128.load(p + <usize>i);
    let m = <u32>i8x16.bitmask(v128.or(v128.or(i8x16.eq(x, vLF), i8x16.eq(x, vCR)), i8x16.eq(x, vTAB)));
    while (m != 0) {
      const k = i + <i32>ctz(m);
      m &= m - 1;
      if (load<u8>(p + <usize>k) == 0x09 ? frameAt(p, k + 1, n) : lineStartMayHold(p, k + 1, n)) return true;
    }
  }
  for (; i < n; i++) {
    const c = load<u8>(p + <usize>i);
    if (c == 0x09) {
      if (frameAt(p, i + 1, n)) return true;
    } else if (c == 0x0a || c == 0x0d) {
      if (lineStartMayHold(p, i + 1, n)) return true;
    }
  }
  // the shape tokens (TokenSearch.foundIn finds the same)
  return tokensIn(p, n, TEDDY, BUCKETS);
}

/** Is one of the tokens of the tables at `teddy` and `buckets` in the n bytes at p? 16 places at
 * a time: where three bytes fit a bucket's nibble tables, each of the bucket's tokens is compared
 * around them (each token is looked for by three of its bytes, its window). */
function tokensIn(p: usize, n: i32, teddy: usize, buckets: usize): bool {
  const L0 = v128.load(teddy);
  const H0 = v128.load(teddy, 16);
  const L1 = v128.load(teddy, 32);
  const H1 = v128.load(teddy, 48);
  const L2 = v128.load(teddy, 64);
  const H2 = v128.load(teddy, 80);
  const ZERO = i8x16.splat(0);
  const last = n - 3;
  for (let at: i32 = 0; at <= last; at += 16) {
    const r = nibbleBuckets(p + <usize>at, L0, H0, L1, H1, L2, H2);
    if (!v128.any_true(r)) continue;
    v128.store(LANES, r);
    let m = <u32>i8x16.bitmask(v128.not(i8x16.eq(r, ZERO)));
    while (m != 0) {
      const lane = <i32>ctz(m);
      m &= m - 1;
      const w = at + lane;
      if (w > last) break;
      let bits = <u32>load<u8>(LANES + <usize>lane);
      while (bits != 0) {
        const k = <i32>ctz(bits);
        bits &= bits - 1;
        let t = buckets + <usize>load<i32>(buckets + (<usize>k << 2));
        const end = buckets + <usize>load<i32>(buckets + (<usize>(k + 1) << 2));
        while (t < end) {
          if (holds(p, n, w, t)) return true;
          t += 2 + <usize>load<u8>(t);
        }
      }
    }
  }
  return false;
}

/** Length of the escape sequence at p (an ESC) in a text that ends at n (text.ts escapeLengthOf). */
function escapeLength(v: usize, p: i32, n: i32): i32 {
  if (p + 1 >= n) return 1;
  const c = load<u8>(v + <usize>(p + 1));
  if (c == 0x5b) {
    // CSI: parameters 0x30-0x3F, intermediates 0x20-0x2F, one final byte 0x40-0x7E
    let j = p + 2;
    while (j < n && load<u8>(v + <usize>j) >= 0x30 && load<u8>(v + <usize>j) <= 0x3f) j++;
    while (j < n && load<u8>(v + <usize>j) >= 0x20 && load<u8>(v + <usize>j) <= 0x2f) j++;
    if (j < n && load<u8>(v + <usize>j) >= 0x40 && load<u8>(v + <usize>j) <= 0x7e) j++;
    return j - p;
  }
  if (c == 0x5d || c == 0x50 || c == 0x58 || c == 0x5e || c == 0x5f) {
    // a string ended by BEL or ST (ESC \)
    for (let j = p + 2; j < n; j++) {
      const d = load<u8>(v + <usize>j);
      if (d == BEL) return j + 1 - p;
      if (d == ESC && j + 1 < n && load<u8>(v + <usize>(j + 1)) == 0x5c) return j + 2 - p;
    }
    return n - p;
  }
  if (c >= 0x20 && c <= 0x2f) {
    // nF: intermediates then a final byte
    let j = p + 1;
    while (j < n && load<u8>(v + <usize>j) >= 0x20 && load<u8>(v + <usize>j) <= 0x2f) j++;
    if (j < n && load<u8>(v + <usize>j) >= 0x30 && load<u8>(v + <usize>j) <= 0x7e) j++;
    return j - p;
  }
  if (c >= 0x30 && c <= 0x7e) return 2;
  return 1;
}

/** The first k >= i with byte c at v + k, or n. */
function indexOf(v: usize, i: i32, n: i32, c: u8): i32 {
  const vc = i8x16.splat(c);
  for (; i + 16 <= n; i += 16) {
    const m = <u32>i8x16.bitmask(i8x16.eq(v128.load(v + <usize>i), vc));
    if (m != 0) return i + <i32>ctz(m);
  }
  for (; i < n; i++) if (load<u8>(v + <usize>i) == c) return i;
  return n;
}

/** The n bytes at v with their escape sequences removed line by line, at o (stripEscapeBytes);
 * returns their length. */
function strip(v: usize, n: i32, o: usize): i32 {
  const hasCr = indexOf(v, 0, n, 0x0d) < n;
  let w: i32 = 0;
  let i: i32 = 0;
  while (i < n) {
    const x = indexOf(v, i, n, ESC);
    // the run before it, its line ends as '\n'
    if (!hasCr) {
      memory.copy(o + <usize>w, v + <usize>i, <usize>(x - i));
      w += x - i;
    } else
      for (let k = i; k < x; k++) {
        const c = load<u8>(v + <usize>k);
        if (c != 0x0d) {
          store<u8>(o + <usize>w, c);
          w++;
        } else if (k + 1 >= n || load<u8>(v + <usize>(k + 1)) != 0x0a) {
          store<u8>(o + <usize>w, 0x0a);
          w++;
        }
      }
    if (x >= n) break;
    // the sequence at x, ended at the latest by its line's end
    let le = indexOf(v, x, n, 0x0a);
    if (hasCr) {
      const r = indexOf(v, x, n, 0x0d);
      if (r < le) le = r;
    }
    i = x + escapeLength(v, x, le);
  }
  return w;
}

/** QUIET: the n bytes at p surely hold no block shape (stripped of escape sequences first when
 * they have one), and then HEADER_FREE too when they hold none of the exception header tokens (as
 * they are: a line's text has its escape sequences); 0: they may hold a shape. `out`: room for n
 * bytes (the stripped ones). */
export function quiet(p: usize, n: i32, out: usize): i32 {
  if (indexOf(p, 0, n, ESC) < n) {
    if (mayHold(out, strip(p, n, out))) return 0;
  } else if (mayHold(p, n)) return 0;
  return tokensIn(p, n, TEDDY_HEADER, BUCKETS_HEADER) ? QUIET : QUIET | HEADER_FREE;
}
