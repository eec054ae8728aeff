// Loads the WebAssembly build of the byte scanner (server/wasm/scan.ts, embedded as
// scanWasm.generated.ts) and runs it over a ByteIndex: the index's filters and tables are copied
// once into the module's memory, each block is copied in, the hits are copied out. Returns
// undefined wherever WebAssembly is unavailable; ByteIndex then scans in JS (same results).

import { type ByteIndex, type ByteTier, type NativeScanner, BUCKET_WORDS } from './bytes';
import { SCAN_WASM_BASE64 } from './scanWasm.generated';

/** The part of the WebAssembly JS API used here (lib "dom" is not in this project's lib). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (mod: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (desc: { initial: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

const PAGE = 65536;
const CFG = 0; // 3 rows of 6 i32 (see server/wasm/scan.ts)

let compiled: object | null | undefined;

function module(): object | undefined {
  if (compiled === undefined) {
    try {
      compiled = wasm ? new wasm.Module(Buffer.from(SCAN_WASM_BASE64, 'base64')) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled ?? undefined;
}

const align = (x: number): number => (x + 63) & ~63;

class WasmScanner implements NativeScanner {
  private readonly mem: WasmMemory;
  private readonly run: (cfg: number, block: number, n: number, cand: number, out: number, cap: number) => number;
  /** Start of the per-block area (block, candidates, hits); everything before is the index. */
  private readonly area: number;

  constructor(api: WasmApi, mod: object, tiers: ByteTier[]) {
    let size = 256;
    const at: { filter: number; table: number }[] = [];
    for (const t of tiers) {
      const filter = size;
      size = align(size + t.filter.byteLength);
      const table = size;
      size = align(size + t.table.byteLength);
      at.push({ filter, table });
    }
    this.area = size;
    this.mem = new api.Memory({ initial: Math.ceil((size + (4 << 20)) / PAGE) });
    const inst = new api.Instance(mod, { env: { memory: this.mem } });
    this.run = inst.exports.scan as WasmScanner['run'];
    const i32 = new Int32Array(this.mem.buffer);
    tiers.forEach((t, k) => {
      new Int32Array(this.mem.buffer, at[k]!.filter, t.filter.length).set(t.filter);
      new Int32Array(this.mem.buffer, at[k]!.table, t.table.length).set(t.table);
      const row = (CFG >> 2) + k * 6;
      i32[row] = at[k]!.filter;
      i32[row + 1] = t.filter.length;
      i32[row + 2] = at[k]!.table;
      i32[row + 3] = t.table.length / BUCKET_WORDS;
      i32[row + 4] = t.keyLen;
      i32[row + 5] = t.size;
    });
  }

  scan(buf: Uint8Array, n: number): { pos: Int32Array; rec: Int32Array; count: number } | undefined {
    const block = this.area;
    const cand = align(block + n + 32);
    const candBytes = 2 * ((((n + 3) >>> 3) + 8) * 8);
    const out = align(cand + candBytes);
    const cap = (n >>> 2) + 1024;
    const need = out + cap * 8;
    if (need > this.mem.buffer.byteLength) this.mem.grow(Math.ceil((need - this.mem.buffer.byteLength) / PAGE));
    const bytes = new Uint8Array(this.mem.buffer, block, n + 32);
    bytes.set(buf.subarray(0, n));
    bytes.fill(0, n, n + 32);
    const count = this.run(CFG, block, n, cand, out, cap);
    if (count < 0) return undefined;
    const pairs = new Int32Array(this.mem.buffer, out, count * 2);
    const pos = new Int32Array(Math.max(count, 1024));
    const rec = new Int32Array(Math.max(count, 1024));
    for (let i = 0; i < count; i++) {
      pos[i] = pairs[2 * i]!;
      rec[i] = pairs[2 * i + 1]!;
    }
    return { pos, rec, count };
  }
}

/** The WebAssembly scanner over index, or undefined when the runtime cannot run it. */
export function wasmScanner(index: ByteIndex): NativeScanner | undefined {
  const mod = module();
  if (!mod || !wasm) return undefined;
  try {
    const { t12, t8, t4 } = index.tiers;
    return new WasmScanner(wasm, mod, [t12, t8, t4]);
  } catch {
    return undefined;
  }
}
