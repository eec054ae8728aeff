// Realistic record files for the `load` bench: full ErrorRecords built from real material on this
// machine, multiplied with varied ids and messages.
//   - messages, patterns, classes, file paths and source windows: the raise sites that
//     `error-explainer extract` finds in /usr/lib/python3.11 (2,503 records; falls back to
//     node_modules/typescript/lib when Python is not installed);
//   - prose (documentation, triggerScenarios, commonSituations, solutions, preventionTips,
//     validationCode, tryCatchPattern, backgroundTag, tags): the bundled ErrLookup records
//     (records/**, the same full prose the seed records have), cut into sentences and recombined.
// Every field of schemaVersion 2 is filled the way ErrLookup fills it, and every record passes the
// strict rules. Two shapes:
//   - "mixed": source windows of 3-11 lines and 1-2 sentences per prose field (~0.9 KB a record,
//     the size of the 100k-record / 91 MB file in issue 11);
//   - "seed": the seeds' own size (37-line windows, every prose field whole: ~3-4 KB a record).
// Same arguments, same bytes.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { extractFromDir } from '../../server/src/core/extract';
import { derivePattern } from '../../server/src/core/pattern';
import type { ErrorRecord } from '../../server/src/core/record';
import { rng } from './gen';

export type LoadShape = 'mixed' | 'seed';

export interface Material {
  sites: ErrorRecord[];
  prose: ErrorRecord[];
  /** Where the sites came from (for the report). */
  sitesFrom: string;
}

/** Extracted raise sites + the bundled records' prose. */
export function loadMaterial(root: string): Material {
  const candidates = ['/usr/lib/python3.11', path.join(root, 'node_modules', 'typescript', 'lib')];
  let sites: ErrorRecord[] = [];
  let sitesFrom = '';
  for (const dir of candidates) {
    if (!fs.existsSync(dir)) continue;
    const repo = dir.includes('python') ? 'python/cpython' : 'microsoft/TypeScript';
    sites = extractFromDir(dir, { repo, sha: '0123456789abcdef0123456789abcdef01234567' }).records.filter((r) => r.sourceCode);
    sitesFrom = `${sites.length} raise sites extracted from ${dir}`;
    if (sites.length > 100) break;
  }
  if (sites.length === 0) throw new Error('no source tree to extract raise sites from');
  const prose: ErrorRecord[] = [];
  const walk = (d: string): void => {
    for (const n of fs.readdirSync(d)) {
      const p = path.join(d, n);
      if (fs.statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.json') && n !== 'schema.json') prose.push(...(JSON.parse(fs.readFileSync(p, 'utf8')) as ErrorRecord[]));
    }
  };
  walk(path.join(root, 'records'));
  if (prose.length === 0) throw new Error('no bundled records with prose');
  return { sites, prose, sitesFrom };
}

function sentences(s: string | null): string[] {
  if (!s) return [];
  return s.split(/(?<=[.!?])\s+/).filter((x) => x.length > 0);
}

const REPOS = ['python/cpython', 'psf/requests', 'pallets/flask', 'django/django', 'numpy/numpy', 'pandas-dev/pandas', 'sgl-project/sglang', 'encode/httpx', 'tiangolo/fastapi', 'celery/celery'];
const WORDS = ['worker', 'shard', 'session', 'upload', 'cache', 'replica', 'tenant', 'batch', 'stream', 'socket', 'index', 'queue'];

/** Record `i` of a realistic file (the same whatever the file's size). */
export function realisticRecord(m: Material, i: number, shape: LoadShape): ErrorRecord {
  const r = rng(i * 7919 + 13);
  const site = m.sites[i % m.sites.length]!;
  const a = m.prose[i % m.prose.length]!;
  const b = m.prose[(i + 1) % m.prose.length]!;
  const repo = REPOS[Math.floor(i / m.sites.length) % REPOS.length]!;
  // a varied message: the first copy of a site as extracted, later ones with a context prefix
  const round = Math.floor(i / m.sites.length);
  const message = round === 0 ? site.errorMessage : `${WORDS[round % WORDS.length]} ${round}: ${site.errorMessage}`;
  const id = createHash('sha256').update(`${repo}\u0001${message}\u0001${site.filePath}\u0001${i}`).digest('hex').slice(0, 16);
  const slugBase = message.slice(0, 40).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'error';
  const slug = `${slugBase}-${i.toString(36)}`.replace(/-+/g, '-');
  const lines = (site.sourceCode ?? '').split('\n');
  let sourceCode = site.sourceCode;
  let start = site.sourceCodeStart;
  let end = site.sourceCodeEnd;
  if (shape === 'mixed' && site.lineNumber && start && lines.length > 3) {
    const keep = 3 + Math.floor(r() * 9);
    const at = site.lineNumber - start;
    const from = Math.max(0, at - Math.floor(keep / 2));
    const to = Math.min(lines.length, from + keep);
    sourceCode = lines.slice(from, to).join('\n');
    start = start + from;
    end = start + (to - from) - 1;
  }
  const pick = (s: string | null, n: number): string | null => {
    if (shape === 'seed') return s;
    const all = sentences(s);
    if (all.length === 0) return null;
    const k = Math.floor(r() * all.length);
    return all.slice(k, k + n).join(' ');
  };
  const few = (xs: string[], n: number): string[] => (shape === 'seed' ? xs : xs.slice(0, n));
  return {
    id,
    repo,
    slug: slug.length > 48 ? slug.slice(slug.length - 48).replace(/^-+/, '') : slug,
    errorCode: site.errorCode,
    errorMessage: message,
    messagePattern: derivePattern(message),
    errorType: site.errorType,
    errorClass: site.errorClass,
    httpStatus: i % 17 === 0 ? 500 : null,
    severity: i % 11 === 0 ? 'warning' : 'error',
    filePath: site.filePath,
    lineNumber: site.lineNumber,
    sourceCode,
    sourceCodeStart: start,
    sourceCodeEnd: end,
    githubUrl: site.githubUrl ? site.githubUrl.replace(/#L\d+-L\d+$/, `#L${start}-L${end}`) : null,
    documentation: pick(a.documentation, 2),
    triggerScenarios: pick(b.triggerScenarios, 1),
    commonSituations: pick(a.commonSituations, 1),
    solutions: few(i % 2 ? a.solutions : b.solutions, 1 + (i % 2)),
    exampleFix: i % 3 === 0 ? (a.exampleFix ?? b.exampleFix) : null,
    handlingStrategy: a.handlingStrategy,
    validationCode: i % 2 === 0 ? a.validationCode : null,
    typeGuard: null,
    tryCatchPattern: shape === 'seed' || i % 4 === 0 ? b.tryCatchPattern : null,
    preventionTips: few(b.preventionTips, 1),
    tags: few(a.tags, 2),
    backgroundTag: a.backgroundTag,
    analyzedSha: site.analyzedSha,
    analyzedAt: '2026-11-01T00:00:00.000Z',
    schemaVersion: 2,
  };
}

export interface MadeFile {
  file: string;
  records: number;
  bytes: number;
}

/**
 * Write `n` realistic records to `file` (reused when it exists with the same stamp): format
 * 'json' = one compact JSON array on one line (ErrLookup's per-repository files), 'pretty' = the
 * same with a 2-space indent (as `extract` writes it), 'jsonl' = one record per line.
 */
export type LoadFormat = 'json' | 'pretty' | 'jsonl';

export function makeRecordFile(m: Material, file: string, n: number, shape: LoadShape, format: LoadFormat): MadeFile {
  const stamp = `${file}.stamp`;
  const want = `${n} ${shape} ${format} v2`;
  if (fs.existsSync(file) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return { file, records: n, bytes: fs.statSync(file).size };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  try {
    let batch: string[] = [];
    const flush = (): void => {
      if (batch.length) fs.writeSync(fd, batch.join(''));
      batch = [];
    };
    if (format !== 'jsonl') batch.push(format === 'pretty' ? '[\n' : '[');
    for (let i = 0; i < n; i++) {
      const rec = realisticRecord(m, i, shape);
      const more = i + 1 < n ? ',' : '';
      if (format === 'pretty') batch.push(`  ${JSON.stringify(rec, null, 2).replace(/\n/g, '\n  ')}${more}\n`);
      else if (format === 'json') batch.push(JSON.stringify(rec) + more);
      else batch.push(JSON.stringify(rec) + '\n');
      if (batch.length >= 2000) flush();
    }
    if (format !== 'jsonl') batch.push(']\n');
    flush();
  } finally {
    fs.closeSync(fd);
  }
  fs.writeFileSync(stamp, want);
  return { file, records: n, bytes: fs.statSync(file).size };
}

if (require.main === module && /loadData\.[jt]s$/.test(process.argv[1] ?? '')) {
  // npx tsx test/bench/loadData.ts OUT N [mixed|seed] [json|jsonl]
  const [out, n, shape, format] = process.argv.slice(2);
  const root = path.resolve(__dirname, '..', '..');
  const m = loadMaterial(root);
  const made = makeRecordFile(m, path.resolve(out ?? '.bench/load/records-100k.json'), Number(n ?? 100000), (shape as LoadShape) ?? 'mixed', (format as LoadFormat) ?? 'json');
  console.log(`${m.sitesFrom}; ${made.records} records, ${(made.bytes / 1e6).toFixed(1)} MB -> ${made.file}`);
}
