// AssemblyScript source of the record loader's prose reducer (compiled to WebAssembly by
// scripts/build-wasm.mjs into server/src/core/load/proseWasm.generated.ts; the JS side is
// server/src/core/load/reduce.ts, which lays out the memory).
//
// A load that keeps no prose (a scan that prints no explanations) still has to read and validate
// every record, but the values of the free-text fields (validate.ts FREE_TEXT_FIELDS and
// FREE_TEXT_LISTS) are checked for their type, well-formedness and line count only, and then
// dropped. This pass copies a record file's bytes and shortens each such string value on the way:
// a string of those fields, directly in a record (or in the record of an envelope, or an item of
// one of those lists), whose contents are valid (UTF-8, no control byte, escapes of \" \\ \/ \b \f
// \n \r \t only, so no \u escape and no lone surrogate) keeps its quotes, every \n escape and its
// last character, and loses the rest. The shortened string passes the same checks as the whole one;
// the JSON is valid exactly when the original is (only string contents change); line ends and
// every other byte stay. Each shortening is reported as (UTF-16 offset of the closing quote in the
// output, UTF-16 units removed), so that positions can be given in the original text.
//
// State carries across calls (a file comes in pieces): the nesting, the string being read, and a
// shortening candidate's bytes so far (kept at the start of the output for the next call).

const QUOTE: u8 = 0x22;
const BSLASH: u8 = 0x5c;

/** What the values at one nesting level are. */
const R_NONE: u8 = 0;
/** A top-level array (its objects are entries). */
const R_ROOTARR: u8 = 1;
/** An entry: a record or an envelope. */
const R_ENTRY: u8 = 2;
/** The record object of an envelope ("record"). */
const R_RECORD: u8 = 3;
/** The array value of a free-text list field. */
const R_LIST: u8 = 4;

/** Key kinds (the key table's first byte per key). */
const K_OTHER: u8 = 0;
const K_RECORD: u8 = 1;
const K_TEXT: u8 = 2;
const K_LIST: u8 = 3;

/** The string being read: something else, a key of an entry or record, a candidate. */
const S_PLAIN: u8 = 0;
const S_KEY: u8 = 1;
const S_CAND: u8 = 2;

/** Levels kept on the stack (deeper ones are counted only: nothing is shortened there). */
const MAXD: i32 = 256;
/** A candidate's bytes held across calls at most (a longer string is kept whole). */
const PENDING_CAP: i32 = 256 << 10;
const KEY_MAX: i32 = 32;

let keys: usize = 0;
let stack: usize = 0;
let keyBuf: usize = 0;

let depth: i32 = 0;
let over: i32 = 0;
let isObj: bool = false;
let role: u8 = R_NONE;
let expectKey: bool = false;
let curKey: u8 = K_OTHER;

let inStr: bool = false;
let esc: bool = false;
let kind: u8 = S_PLAIN;
let keyLen: i32 = 0;
let keyBad: bool = false;

let candStart: i32 = 0;
let candUnits: i32 = 0;
let nlCount: i32 = 0;
let lastStart: i32 = -1;
let lastUnits: i32 = 0;
let lastIsNl: bool = false;
let candBad: bool = false;
let utfNeed: i32 = 0;
let utfLo: u32 = 0x80;
let utfHi: u32 = 0xbf;

/** UTF-16 units of everything written to the output so far (a candidate's bytes included). */
let units: i32 = 0;
/** End of the output written (the next call starts by moving a pending candidate to the front). */
let outEnd: i32 = 0;
let blankCount: i32 = 0;

/** Start of a file. `keyTable`: [count u8] then per key [kind u8][length u8][bytes]; `stackAt`:
 * MAXD bytes * 4; `keyAt`: KEY_MAX bytes. */
export function init(keyTable: usize, stackAt: usize, keyAt: usize): void {
  keys = keyTable;
  stack = stackAt;
  keyBuf = keyAt;
  depth = 0;
  over = 0;
  isObj = false;
  role = R_NONE;
  expectKey = false;
  curKey = K_OTHER;
  inStr = false;
  esc = false;
  kind = S_PLAIN;
  units = 0;
  outEnd = 0;
  blankCount = 0;
}

/** Shortenings reported by the last call (pairs of i32 at its `blanks`). */
export function blanks(): i32 {
  return blankCount;
}

/** The kind of the key of `len` bytes at `p` (`bad`: it has an escape or is too long). */
function lookupKey(key: usize, keyLen: i32, bad: bool): u8 {
  if (bad) return K_OTHER;
  const count = <i32>load<u8>(keys);
  let p = keys + 1;
  for (let k = 0; k < count; k++) {
    const kk = load<u8>(p);
    const len = <i32>load<u8>(p, 1);
    if (len == keyLen) {
      let same = true;
      for (let j = 0; j < len; j++) {
        if (load<u8>(p + 2 + <usize>j) != load<u8>(key + <usize>j)) {
          same = false;
          break;
        }
      }
      if (same) return kk;
    }
    p += 2 + <usize>len;
  }
  return K_OTHER;
}

@inline function unitsOf(c: u32): i32 {
  // a lead or ASCII byte starts a character (a 4-byte one is two UTF-16 units); continuation bytes none
  return (c & 0xc0) == 0x80 ? 0 : c >= 0xf0 ? 2 : 1;
}

/** The candidate ends at its closing quote (not yet written) at output offset o: shortened when
 * its contents were valid. Returns the new output end. */
function endCandidate(out: usize, o: i32, bl: usize): i32 {
  // (longer than PENDING_CAP: kept whole however the file is cut, as one held across calls is)
  if (candBad || utfNeed != 0 || o - candStart > PENDING_CAP) return o;
  // the last character's bytes (an escape: 2; UTF-8: up to 4), kept unless it is a \n escape
  let w = candStart;
  let kept: i32 = 2 * nlCount;
  const keepLast = lastStart >= candStart && !lastIsNl;
  let lastLen: i32 = 0;
  let last: u32 = 0;
  if (keepLast) {
    lastLen = o - lastStart;
    if (lastLen > 4) return o; // (cannot happen: a character or an escape)
    for (let j = 0; j < lastLen; j++) last |= <u32>load<u8>(out + <usize>(lastStart + j)) << (8 * j);
    kept += lastUnits;
  }
  const removed = candUnits - kept;
  if (removed <= 0) return o;
  for (let k = 0; k < nlCount; k++) {
    store<u8>(out + <usize>w, BSLASH);
    store<u8>(out + <usize>w, 0x6e, 1);
    w += 2;
  }
  for (let j = 0; j < lastLen; j++) store<u8>(out + <usize>(w + j), <u8>(last >> (8 * j)));
  w += lastLen;
  units -= removed;
  const at = bl + (<usize>blankCount << 3);
  store<i32>(at, units);
  store<i32>(at, removed, 4);
  blankCount++;
  return w;
}

function push(c: u8): void {
  let next: u8 = R_NONE;
  if (c == 0x7b) {
    if (depth == 0 && over == 0) next = R_ENTRY;
    else if (role == R_ROOTARR) next = R_ENTRY;
    else if (isObj && role == R_ENTRY && !expectKey && curKey == K_RECORD) next = R_RECORD;
  } else {
    if (depth == 0 && over == 0) next = R_ROOTARR;
    else if (isObj && (role == R_ENTRY || role == R_RECORD) && !expectKey && curKey == K_LIST) next = R_LIST;
  }
  if (over > 0 || depth >= MAXD) {
    over++;
    role = R_NONE;
    isObj = c == 0x7b;
    expectKey = isObj;
    curKey = K_OTHER;
    return;
  }
  const s = stack + (<usize>depth << 2);
  store<u8>(s, isObj ? 1 : 0);
  store<u8>(s, role, 1);
  store<u8>(s, expectKey ? 1 : 0, 2);
  store<u8>(s, curKey, 3);
  depth++;
  isObj = c == 0x7b;
  role = next;
  expectKey = isObj;
  curKey = K_OTHER;
}

function pop(): void {
  if (over > 0) {
    // back towards the deepest kept level, whose state was not kept: nothing is shortened there
    over--;
    if (over == 0) role = R_NONE;
    return;
  }
  if (depth == 0) return; // (a stray closer: the JSON is invalid, JSON.parse says so)
  depth--;
  const s = stack + (<usize>depth << 2);
  isObj = load<u8>(s) != 0;
  role = load<u8>(s, 1);
  expectKey = load<u8>(s, 2) != 0;
  curKey = load<u8>(s, 3);
}

/**
 * Copy the n bytes at `inp` to `out`, shortening candidates; reports shortenings at `bl` (at most
 * n / 2 of them). Returns how many bytes at `out` are final; the rest (a candidate not yet closed)
 * is moved to the front of `out` by the next call. `out` must hold PENDING_CAP + n + 16 bytes.
 */
export function run(inp: usize, n: i32, out: usize, bl: usize): i32 {
  let o: i32 = 0;
  if (inStr && kind == S_CAND) {
    // the pending candidate: to the front
    const len = outEnd - candStart;
    memory.copy(out, out + <usize>candStart, <usize>len);
    if (lastStart >= 0) lastStart -= candStart;
    candStart = 0;
    o = len;
  }
  blankCount = 0;
  const vCtl = i8x16.splat(0x20);
  const vQ = i8x16.splat(0x22);
  const vB = i8x16.splat(0x5c);
  let i: i32 = 0;
  while (i < n) {
    if (inStr) {
      // runs of plain ASCII 16 bytes at a time
      if (!esc && utfNeed == 0 && kind != S_KEY) {
        const from = i;
        while (i + 16 <= n) {
          const v = v128.load(inp + <usize>i);
          v128.store(out + <usize>o, v);
          const m = <u32>i8x16.bitmask(v128.or(i8x16.lt_s(v, vCtl), v128.or(i8x16.eq(v, vQ), i8x16.eq(v, vB))));
          if (m != 0) {
            const k = <i32>ctz(m);
            o += k;
            i += k;
            break;
          }
          o += 16;
          i += 16;
        }
        const k = i - from;
        if (k > 0) {
          units += k;
          if (kind == S_CAND) {
            candUnits += k;
            lastStart = o - 1;
            lastUnits = 1;
            lastIsNl = false;
          }
        }
      }
      if (i >= n) break;
      const c = load<u8>(inp + <usize>i);
      i++;
      if (esc) {
        esc = false;
        store<u8>(out + <usize>o, c);
        o++;
        units += unitsOf(c);
        if (kind == S_CAND) {
          candUnits += unitsOf(c);
          if (c == 0x6e) {
            nlCount++;
            lastIsNl = true;
          } else if (c == QUOTE || c == BSLASH || c == 0x2f || c == 0x62 || c == 0x66 || c == 0x72 || c == 0x74) lastIsNl = false;
          else candBad = true; // \u, or not an escape at all
          lastStart = o - 2;
          lastUnits = 2;
        } else if (kind == S_KEY) keyBad = true;
        continue;
      }
      if (c == QUOTE) {
        if (kind == S_CAND) o = endCandidate(out, o, bl);
        store<u8>(out + <usize>o, c);
        o++;
        units++;
        inStr = false;
        if (kind == S_KEY) {
          curKey = lookupKey(keyBuf, keyLen, keyBad || keyLen > KEY_MAX);
          expectKey = false;
        }
        kind = S_PLAIN;
        continue;
      }
      store<u8>(out + <usize>o, c);
      o++;
      const u = unitsOf(c);
      units += u;
      if (kind == S_KEY) {
        if (c == BSLASH || c >= 0x80 || keyLen >= KEY_MAX) keyBad = true;
        else store<u8>(keyBuf + <usize>keyLen, c);
        keyLen++;
        if (c == BSLASH) esc = true;
        continue;
      }
      if (c == BSLASH) {
        esc = true;
        if (kind == S_CAND) {
          if (utfNeed != 0) candBad = true;
          candUnits++;
        }
        continue;
      }
      if (kind != S_CAND) continue;
      candUnits += u;
      if (c < 0x20) {
        candBad = true;
      } else if (c < 0x80) {
        if (utfNeed != 0) candBad = true;
        lastStart = o - 1;
        lastUnits = 1;
        lastIsNl = false;
      } else if ((c & 0xc0) == 0x80) {
        if (utfNeed == 0 || <u32>c < utfLo || <u32>c > utfHi) candBad = true;
        else {
          utfNeed--;
          utfLo = 0x80;
          utfHi = 0xbf;
        }
      } else {
        if (utfNeed != 0) candBad = true;
        utfLo = 0x80;
        utfHi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf) utfNeed = 1;
        else if (c == 0xe0) {
          utfNeed = 2;
          utfLo = 0xa0;
        } else if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef) utfNeed = 2;
        else if (c == 0xed) {
          utfNeed = 2;
          utfHi = 0x9f;
        } else if (c == 0xf0) {
          utfNeed = 3;
          utfLo = 0x90;
        } else if (c >= 0xf1 && c <= 0xf3) utfNeed = 3;
        else if (c == 0xf4) {
          utfNeed = 3;
          utfHi = 0x8f;
        } else candBad = true;
        lastStart = o - 1;
        lastUnits = u;
        lastIsNl = false;
      }
      continue;
    }
    // outside strings
    const c = load<u8>(inp + <usize>i);
    i++;
    store<u8>(out + <usize>o, c);
    o++;
    units += unitsOf(c);
    if (c == QUOTE) {
      inStr = true;
      esc = false;
      kind = S_PLAIN;
      if (over == 0) {
        if (isObj && expectKey) {
          if (role == R_ENTRY || role == R_RECORD) {
            // a key: read at once when it ends in the next 32 bytes without an escape (else byte by byte)
            if (i + 32 <= n) {
              const v0 = v128.load(inp + <usize>i);
              const v1 = v128.load(inp + <usize>i, 16);
              const m = <u32>i8x16.bitmask(v128.or(i8x16.lt_s(v0, vCtl), v128.or(i8x16.eq(v0, vQ), i8x16.eq(v0, vB)))) | (<u32>i8x16.bitmask(v128.or(i8x16.lt_s(v1, vCtl), v128.or(i8x16.eq(v1, vQ), i8x16.eq(v1, vB)))) << 16);
              const k = <i32>ctz(m);
              if (m != 0 && load<u8>(inp + <usize>(i + k)) == QUOTE) {
                v128.store(out + <usize>o, v0);
                v128.store(out + <usize>o, v1, 16);
                curKey = lookupKey(inp + <usize>i, k, false);
                expectKey = false;
                store<u8>(out + <usize>(o + k), QUOTE);
                o += k + 1;
                i += k + 1;
                units += k + 1;
                inStr = false;
                continue;
              }
            }
            kind = S_KEY;
            keyLen = 0;
            keyBad = false;
          }
        } else if ((isObj && (role == R_ENTRY || role == R_RECORD) && curKey == K_TEXT) || (!isObj && role == R_LIST)) {
          kind = S_CAND;
          candStart = o;
          candUnits = 0;
          nlCount = 0;
          lastStart = -1;
          lastIsNl = false;
          candBad = false;
          utfNeed = 0;
          utfLo = 0x80;
          utfHi = 0xbf;
        }
      }
    } else if (c == 0x7b || c == 0x5b) push(c);
    else if (c == 0x7d || c == 0x5d) pop();
    else if (c == 0x2c) {
      if (isObj) expectKey = true;
    }
  }
  outEnd = o;
  if (inStr && kind == S_CAND) {
    if (o - candStart > PENDING_CAP) kind = S_PLAIN; // too long to hold: kept whole
    else return candStart;
  }
  return o;
}

/** End of the file: the bytes still held (an unclosed string, kept whole), moved to the front of
 * `out`; returns their length. */
export function flush(out: usize): i32 {
  if (!(inStr && kind == S_CAND)) return 0;
  const len = outEnd - candStart;
  memory.copy(out, out + <usize>candStart, <usize>len);
  kind = S_PLAIN;
  outEnd = 0;
  return len;
}
