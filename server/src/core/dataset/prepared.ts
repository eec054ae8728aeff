// The prepared form of the index in the cache, written once per dataset version while the index
// streams in, read at every start-up:
//   index.rows       one line per block: a JSON array of rows [id, slug, code, msg, pattern, type, cls, tags, sev]
//                    (a block holds ≤ BLOCK_ROWS consecutive rows of one repository)
//   index.head.json  { format, datasetVersion, schemaVersion, rows, skipped, repos: { "owner/name": [[offset, length, count], ...] } }
// Selecting a few repositories reads only their blocks; loading everything reads block by block
// and yields to the event loop between blocks, so hovers keep being answered.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Interner, liteFromRow, LiteRecord } from './lite';
import type { IndexRow } from './types';

export const PREPARED_FORMAT = 1;
export const ROWS_FILE = 'index.rows';
export const HEAD_FILE = 'index.head.json';
const BLOCK_ROWS = 1000;

export type BlockRef = [offset: number, length: number, count: number];

export interface PreparedHead {
  format: number;
  datasetVersion: string;
  schemaVersion: number;
  rows: number;
  skipped: number;
  repos: Record<string, BlockRef[]>;
}

type PackedRow = [string, string, string | null, string, string, string, string | null, string[], string];

export class PreparedWriter {
  private readonly fd: number;
  private offset = 0;
  private block: PackedRow[] = [];
  private blockRepo = '';
  private readonly repos = new Map<string, BlockRef[]>();
  rows = 0;
  skipped = 0;

  constructor(private readonly dir: string) {
    this.fd = fs.openSync(path.join(dir, ROWS_FILE), 'w');
  }

  add(row: IndexRow): void {
    if (row.repo !== this.blockRepo || this.block.length >= BLOCK_ROWS) this.flush();
    this.blockRepo = row.repo;
    this.block.push([row.id, row.slug, row.code, row.msg, row.pattern, row.type, row.cls, row.tags, row.sev]);
    this.rows++;
  }

  private flush(): void {
    if (this.block.length === 0) return;
    const buf = Buffer.from(JSON.stringify(this.block) + '\n', 'utf8');
    fs.writeSync(this.fd, buf);
    let refs = this.repos.get(this.blockRepo);
    if (!refs) this.repos.set(this.blockRepo, (refs = []));
    refs.push([this.offset, buf.length - 1, this.block.length]);
    this.offset += buf.length;
    this.block = [];
  }

  /** Flush and close the rows file (fsync off the event loop: it can take seconds for 170 MB), then write the head. */
  async finish(datasetVersion: string, schemaVersion: number): Promise<PreparedHead> {
    this.flush();
    await new Promise<void>((resolve, reject) => fs.fsync(this.fd, (e) => (e ? reject(e) : resolve())));
    fs.closeSync(this.fd);
    const repos: Record<string, BlockRef[]> = {};
    for (const k of [...this.repos.keys()].sort()) repos[k] = this.repos.get(k)!;
    const head: PreparedHead = { format: PREPARED_FORMAT, datasetVersion, schemaVersion, rows: this.rows, skipped: this.skipped, repos };
    fs.writeFileSync(path.join(this.dir, HEAD_FILE), JSON.stringify(head));
    return head;
  }

  abort(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}

export function readHead(dir: string): PreparedHead | undefined {
  try {
    const h = JSON.parse(fs.readFileSync(path.join(dir, HEAD_FILE), 'utf8')) as PreparedHead;
    return h.format === PREPARED_FORMAT && typeof h.repos === 'object' ? h : undefined;
  } catch {
    return undefined;
  }
}

export interface LoadRowsOptions {
  /** Which repositories to load (default: all). */
  select?: (repo: string) => boolean;
  /** Yield to the event loop after this many rows (default 5000; 0 = never). */
  yieldEvery?: number;
  /** Called after each yield with rows loaded so far. */
  onProgress?: (loaded: number, total: number) => void;
}

const yieldNow = (): Promise<void> => new Promise((r) => setImmediate(r));

/** The row blocks of the selected repositories, in file order (sequential reads), and their row count. */
export function selectedBlocks(head: PreparedHead, select: (repo: string) => boolean = () => true): { jobs: { repo: string; ref: BlockRef }[]; total: number } {
  const jobs: { repo: string; ref: BlockRef }[] = [];
  let total = 0;
  for (const [repo, refs] of Object.entries(head.repos)) {
    if (!select(repo)) continue;
    for (const ref of refs) {
      jobs.push({ repo, ref });
      total += ref[2];
    }
  }
  jobs.sort((a, b) => a.ref[0] - b.ref[0]);
  return { jobs, total };
}

/** LiteRecords of the selected repositories from the prepared form, in head (repository) order. */
export async function loadPrepared(dir: string, head: PreparedHead, opts: LoadRowsOptions = {}): Promise<LiteRecord[]> {
  const yieldEvery = opts.yieldEvery ?? 5000;
  const { jobs, total } = selectedBlocks(head, opts.select);
  const out: LiteRecord[] = new Array<LiteRecord>(total);
  let n = 0;
  let sinceYield = 0;
  const intern = new Interner();
  const fd = fs.openSync(path.join(dir, ROWS_FILE), 'r');
  try {
    let buf = Buffer.alloc(1 << 20);
    for (const { repo, ref } of jobs) {
      const [offset, length] = ref;
      if (buf.length < length) buf = Buffer.alloc(length);
      const got = fs.readSync(fd, buf, 0, length, offset);
      if (got !== length) throw new Error(`${ROWS_FILE} is shorter than its head says`);
      const rows = JSON.parse(buf.toString('utf8', 0, length)) as PackedRow[];
      const r = intern.str(repo);
      for (const p of rows) {
        out[n++] = liteFromRow({ id: p[0], repo: r, slug: p[1], code: p[2], msg: p[3], pattern: p[4], type: p[5], cls: p[6], tags: p[7], sev: p[8] }, intern);
      }
      sinceYield += rows.length;
      if (yieldEvery > 0 && sinceYield >= yieldEvery) {
        sinceYield = 0;
        opts.onProgress?.(n, total);
        await yieldNow();
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  out.length = n;
  return out;
}
