// "Do these raw lines surely hold no block shape?" for the CLI scan's error-block context
// (cli/blockContext.ts quietAround): the NEAR lines around a matched line, or a run of lines ahead
// of it, looked at in their bytes at once instead of decoding and classifying each line. Lines
// with escape sequences (coloured lines) are looked at as a block's test reads each: with the
// sequences removed (stripEscapeBytes). Where they are quiet, also: do they hold no exception
// header token, so that no line of them is an exception header (the context's other question of a
// matched line). quietness runs the WebAssembly form of the test (server/wasm/shapes.ts, embedded
// as shapesWasm.generated.ts, with tables of shapes.ts's tokens); quietnessJs is the reference it
// must equal (unit tests compare them), and the answer where WebAssembly is unavailable.
import { copyBytes, escapeLengthOf } from '../text';
import { HEADER_TOKENS, blockShapeTokens, mayHoldBlockShape } from './shapes';
import { SHAPES_WASM_BASE64 } from './shapesWasm.generated';

/**
 * The lines of the UTF-8 bytes b[s, e) with their escape sequences removed, each line as a text
 * view reads it alone (core/text escapeLengthOf bounded by its line's end, as stripMapped on the
 * decoded line), joined by '\n' (\r\n and a lone \r end a line too, as splitLines), in `out`
 * (at least e - s bytes; a new buffer without it): no string is made. Valid UTF-8 gives the bytes
 * of the decoded text stripped line by line and joined; a byte of an invalid sequence stays itself
 * (a decoder makes it U+FFFD), and every ASCII byte is where decoding would leave it, so a search
 * for ASCII tokens finds at least what it would find in the decoded text. The runs between
 * escape sequences are copied whole (copyBytes; a log's line ends are \n alone: no byte is looked
 * at).
 */
export function stripEscapeBytes(b: Uint8Array, s: number, e: number, out?: Uint8Array): Uint8Array {
  const o = out && out.length >= e - s ? out : new Uint8Array(e - s);
  // (the range alone is searched: a search of the whole buffer runs on to its end, a MiB block,
  // where the range holds no CR or no more escapes)
  const v = b.subarray(s, e);
  const n = v.length;
  const hasCr = v.indexOf(0x0d) >= 0;
  const code = (k: number): number => v[k]!;
  let w = 0;
  let i = 0;
  while (i < n) {
    let x = v.indexOf(0x1b, i);
    if (x < 0) x = n;
    // the run before it, its line ends as '\n'
    if (!hasCr) w += copyBytes(v, i, x, o, w);
    else
      for (let k = i; k < x; k++) {
        const c = v[k]!;
        if (c !== 0x0d) o[w++] = c;
        else if (k + 1 >= n || v[k + 1] !== 0x0a) o[w++] = 0x0a;
      }
    if (x >= n) break;
    // the sequence at x, ended at the latest by its line's end
    let le = v.indexOf(0x0a, x);
    if (le < 0) le = n;
    if (hasCr) {
      const r = v.indexOf(0x0d, x);
      if (r >= 0 && r < le) le = r;
    }
    i = x + escapeLengthOf(code, x, le);
  }
  return o.subarray(0, w);
}

/** quietnessJs's stripped bytes, reused (the bytes are not kept). */
let strippedScratch = new Uint8Array(16 * 1024);

/** quietness's bits: no line of the bytes has a block shape (hasBlockShape), read with the escape
 * sequences of coloured lines removed; and (with QUIET only) the bytes as they are hold none of
 * the exception header tokens (shapes.ts HEADER_TOKENS), so exceptionHeader finds no header in any
 * of their lines (the text of a line, escape sequences and all, is its bytes decoded: an ASCII
 * token is in the text only where it is in the bytes). */
export const QUIET = 1;
export const HEADER_FREE = 2;

/** quietness in JS: QUIET (and HEADER_FREE) or 0, where a line of b[s, e) may have a block shape
 * (then each line is classified). */
export function quietnessJs(b: Uint8Array, s: number, e: number): number {
  const bytes = b.subarray(s, e);
  if (bytes.indexOf(0x1b) < 0) {
    if (mayHoldBlockShape(bytes)) return 0;
  } else {
    if (strippedScratch.length < e - s) strippedScratch = new Uint8Array(Math.max(e - s, 2 * strippedScratch.length));
    if (mayHoldBlockShape(stripEscapeBytes(b, s, e, strippedScratch))) return 0;
  }
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return HEADER_TOKENS.some((t) => raw.indexOf(t, 0, 'latin1') >= 0) ? QUIET : QUIET | HEADER_FREE;
}

/** The part of the WebAssembly JS API used here (lib "dom" is not in this project's lib). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (mod: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (desc: { initial: number }) => { readonly buffer: ArrayBuffer; grow(pages: number): number };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

// The module's memory (server/wasm/shapes.ts): the tokens' nibble tables, the buckets of tokens,
// then the input bytes and room for as many stripped ones (and what the token pass reads past them).
// (the table addresses are the module's too: shapes.ts TEDDY, TEDDY_HEADER, BUCKETS, BUCKETS_HEADER;
// the input's is passed to it)
const TEDDY = 0;
const TEDDY_HEADER = 96;
const BUCKETS = 256;
/** Bytes each set of buckets may take (tokenTables checks). */
const BUCKETS_BYTES = 2048;
const BUCKETS_HEADER = BUCKETS + BUCKETS_BYTES;
const IN = BUCKETS_HEADER + BUCKETS_BYTES;
const SPARE = 64;
/** Token codes of the classes, as the module reads them. */
const CODE_DIGIT = 0xfe;
const CODE_SPACE = 0xff;
const PAGE = 65536;

interface Native {
  quiet: (p: number, n: number, out: number) => number;
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  bytes: Uint8Array;
  /** Bytes of input the memory has room for (and as many stripped ones). */
  room: number;
}
/** The instance, or null where WebAssembly is unavailable (or the tokens do not fit the module). */
let native: Native | null | undefined;

/**
 * Where each token is looked for by the module (the offset of the three bytes its nibble tables
 * read) and its bucket (of 8): the rarest three bytes of each token and the buckets that mix the
 * fewest other bytes in, chosen by counting on logs (this machine's /var/log, test/fixtures/real,
 * 4 MB each of the scan bench's logs: 0.0012 candidate starts a byte, against 0.02 with every
 * token's first three bytes and a bucket per first byte). Any choice finds the same; a token not
 * named here is looked for by its first three bytes in bucket 0.
 */
const WINDOWS: Record<string, readonly [offset: number, bucket: number]> = {
  'File "': [3, 2],
  Traceback: [0, 5],
  '... \\d': [1, 1],
  'Caused by: ': [0, 1],
  'Suppressed: ': [0, 5],
  panic: [2, 6],
  'goroutine ': [1, 6],
  '.go:\\d': [0, 4],
  'exit status': [1, 4],
  'During handling': [0, 5],
  'The above exception': [0, 1],
  "thread '": [5, 2],
  'note: ': [1, 3],
  'stack backtrace:': [9, 3],
  'Exception in thread': [0, 5],
  '[Previous line': [0, 4],
  '.py:\\d': [1, 7],
  '  at ': [1, 0],
};
/** The same for the exception header tokens (shapes.ts HEADER_TOKENS), counted on the same logs:
 * 0.00014 candidate places a byte. */
const HEADER_WINDOWS: Record<string, readonly [offset: number, bucket: number]> = {
  Error: [0, 0],
  Exception: [0, 0],
  Throwable: [0, 0],
  Failure: [0, 3],
  Fault: [0, 3],
  Warning: [0, 4],
  Rejection: [0, 5],
  Interrupt: [5, 1],
  Panic: [0, 2],
  Abort: [0, 2],
  Timeout: [0, 2],
  Exit: [0, 3],
};

/**
 * The module's tables of some tokens (each as its codes, placed by `windows`): per bucket, for each
 * of the three bytes its tokens are looked for by, the low and high nibbles those bytes have (a
 * class's code: each byte of the class), and each bucket's tokens as [length, offset, codes].
 * Undefined when a token's window is not inside it or a code does not fit a byte.
 */
function tokenTables(tokens: readonly { text: string; codes: readonly number[] }[], windows: Record<string, readonly [number, number]>): { teddy: Uint8Array; buckets: Uint8Array } | undefined {
  const { digit, space, bytesOf } = blockShapeTokens();
  const placed = tokens.map((t) => ({ codes: t.codes, at: windows[t.text] ?? ([0, 0] as const) }));
  if (placed.some(({ codes, at }) => codes.length > 255 || at[0] < 0 || at[0] + 3 > codes.length || at[1] < 0 || at[1] > 7 || codes.some((c) => c !== digit && c !== space && (c < 0 || c >= CODE_DIGIT)))) return undefined;
  const teddy = new Uint8Array(96);
  for (const { codes, at } of placed) {
    const bit = 1 << at[1];
    for (let j = 0; j < 3; j++)
      for (const c of bytesOf(codes[at[0] + j]!)) {
        teddy[32 * j + (c & 15)]! |= bit;
        teddy[32 * j + 16 + (c >> 4)]! |= bit;
      }
  }
  const offsets = new Int32Array(9);
  const body: number[] = [];
  for (let k = 0; k < 8; k++) {
    offsets[k] = offsets.byteLength + body.length;
    for (const { codes, at } of placed) if (at[1] === k) body.push(codes.length, at[0], ...codes.map((c) => (c === digit ? CODE_DIGIT : c === space ? CODE_SPACE : c)));
  }
  offsets[8] = offsets.byteLength + body.length;
  if (offsets[8] > BUCKETS_BYTES) return undefined;
  const buckets = new Uint8Array(offsets[8]);
  buckets.set(new Uint8Array(offsets.buffer));
  buckets.set(body, offsets.byteLength);
  return { teddy, buckets };
}

/** The header tokens as tokenTables takes them. */
const HEADER_CODES = HEADER_TOKENS.map((text) => ({ text, codes: [...text].map((c) => c.charCodeAt(0)) }));

function instance(): Native | null {
  if (native !== undefined) return native;
  native = null;
  if (!wasm) return native;
  try {
    const tables = tokenTables(blockShapeTokens().tokens, WINDOWS);
    const headers = tokenTables(HEADER_CODES, HEADER_WINDOWS);
    if (!tables || !headers) return native;
    const room = 64 << 10;
    const memory = new wasm.Memory({ initial: pagesFor(room) });
    const mod = new wasm.Module(Buffer.from(SHAPES_WASM_BASE64, 'base64'));
    const exports = new wasm.Instance(mod, { env: { memory, abort: () => undefined } }).exports as { quiet: (p: number, n: number, out: number) => number };
    const bytes = new Uint8Array(memory.buffer);
    bytes.set(tables.teddy, TEDDY);
    bytes.set(tables.buckets, BUCKETS);
    bytes.set(headers.teddy, TEDDY_HEADER);
    bytes.set(headers.buckets, BUCKETS_HEADER);
    native = { quiet: exports.quiet, memory, bytes, room: roomOf(bytes.length) };
  } catch {
    native = null;
  }
  return native;
}

/** Pages for `room` bytes of input (and as many stripped, and the spare bytes after each). */
function pagesFor(room: number): number {
  return Math.ceil((IN + 2 * (room + SPARE)) / PAGE);
}

function roomOf(bytes: number): number {
  return Math.floor((bytes - IN) / 2) - SPARE;
}

/** quietnessJs's answer, from the WebAssembly module where it runs (the bytes are copied in: a
 * neighbourhood is a few KiB). */
export function quietness(b: Uint8Array, s: number, e: number): number {
  const x = instance();
  if (!x) return quietnessJs(b, s, e);
  const n = e - s;
  if (n > x.room) {
    x.memory.grow(pagesFor(n) - x.bytes.length / PAGE);
    x.bytes = new Uint8Array(x.memory.buffer);
    x.room = roomOf(x.bytes.length);
  }
  x.bytes.set(b.subarray(s, e), IN);
  return x.quiet(IN, n, IN + x.room + SPARE);
}

/** Does quietness run in WebAssembly here (for tests)? */
export function quietRunsNative(): boolean {
  return !!instance();
}
