// The prose reducer (server/wasm/prose.ts, embedded as proseWasm.generated.ts): a load that keeps
// no prose passes the file's bytes through it before they are decoded, split and parsed, so the
// free-text values it would drop anyway (validate.ts FREE_TEXT_FIELDS, FREE_TEXT_LISTS) are not
// decoded, scanned or parsed whole. They are shortened so that validation gives the same answer
// (see prose.ts); each shortening is reported so that positions stay those of the original text.
// Undefined where WebAssembly is unavailable: the load then reads every byte (same result).

import { FREE_TEXT_FIELDS, FREE_TEXT_LISTS } from './validate';
import { PROSE_WASM_BASE64 } from './proseWasm.generated';

/** The part of the WebAssembly JS API used here (lib "dom" is not in this project's lib). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (mod: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (desc: { initial: number; maximum?: number }) => { readonly buffer: ArrayBuffer };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

interface Exports {
  init(keys: number, stack: number, key: number): void;
  run(inp: number, n: number, out: number, blanks: number): number;
  blanks(): number;
  flush(out: number): number;
}

/** Bytes passed in one call at most (larger pieces are cut). */
export const REDUCE_PIECE = 64 << 10;
/** As in prose.ts: a candidate's bytes held across calls at most. */
const PENDING_CAP = 256 << 10;
const KEYS = 0;
const STACK = 1024;
const KEY_BUF = 2048;
const IN = 4096;
const OUT = IN + REDUCE_PIECE + 64;
const BLANKS = OUT + PENDING_CAP + REDUCE_PIECE + 64;
const BYTES = BLANKS + (REDUCE_PIECE / 2) * 8 + 64;
const PAGES = Math.ceil(BYTES / 65536);

/** Key kinds, as prose.ts reads them. */
const K_RECORD = 1;
const K_TEXT = 2;
const K_LIST = 3;

let compiled: object | null | undefined;

function keyTable(): Uint8Array {
  const keys: [number, string][] = [[K_RECORD, 'record'], ...FREE_TEXT_FIELDS.map((k): [number, string] => [K_TEXT, k]), ...FREE_TEXT_LISTS.map((k): [number, string] => [K_LIST, k])];
  const out = [keys.length];
  for (const [kind, name] of keys) out.push(kind, name.length, ...Buffer.from(name, 'latin1'));
  return Uint8Array.from(out);
}
let keys: Uint8Array | undefined;

/** One file's pass (state carries from piece to piece). */
export class ProseReducer {
  private readonly mem: Uint8Array;
  private readonly blanks: Int32Array;

  private constructor(
    private readonly x: Exports,
    buffer: ArrayBuffer,
  ) {
    this.mem = new Uint8Array(buffer);
    this.blanks = new Int32Array(buffer, BLANKS, (REDUCE_PIECE / 2) * 2);
    this.mem.set((keys ??= keyTable()), KEYS);
    x.init(KEYS, STACK, KEY_BUF);
  }

  static create(): ProseReducer | undefined {
    if (compiled === undefined) {
      try {
        compiled = wasm ? new wasm.Module(Buffer.from(PROSE_WASM_BASE64, 'base64')) : null;
      } catch {
        compiled = null;
      }
    }
    if (!compiled || !wasm) return undefined;
    const memory = new wasm.Memory({ initial: PAGES, maximum: PAGES });
    const instance = new wasm.Instance(compiled, { env: { memory, abort: () => undefined } });
    return new ProseReducer(instance.exports as unknown as Exports, memory.buffer);
  }

  /**
   * The bytes of `piece` (at most REDUCE_PIECE), shortened, that are final: a view, valid until
   * the next call. Each shortening goes to `blank` first: the UTF-16 offset of the shortened
   * string's closing quote in the output text, and the units removed before it.
   */
  push(piece: Uint8Array, blank: (at: number, removed: number) => void): Buffer {
    this.mem.set(piece, IN);
    const n = this.x.run(IN, piece.length, OUT, BLANKS);
    const count = this.x.blanks();
    const b = this.blanks;
    for (let k = 0; k < 2 * count; k += 2) blank(b[k]!, b[k + 1]!);
    return Buffer.from(this.mem.buffer, OUT, n);
  }

  /** The end of the file: bytes still held (a string that never closed, whole). */
  end(): Buffer {
    return Buffer.from(this.mem.buffer, OUT, this.x.flush(OUT));
  }
}
