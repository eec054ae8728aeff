// What `error-explainer scan` reports on the real corpora, block by block (issue 12 items 3, 4, 6):
// per real traceback / stack (the truth files), whether the first match the scan reports on its
// exception line is a record of the raising file (top-1), and how many matches it reports inside
// the block, on its frame lines and on its other lines (quoted code, headers, chained exceptions,
// the log line above a logged traceback), and on the noise lines between blocks.
//
//   node dist/cli.js extract /usr/lib/python3.11 --repo python/cpython --out /tmp/py.json
//   node dist/cli.js extract node_modules --repo npm/node_modules --out /tmp/nm.json
//   npx tsx scripts/real-corpora/block_scan.ts /tmp/py.json /tmp/nm.json [dist/cli.js]
//
// The last argument is the CLI to run (another build, e.g. main's, for a before/after).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REAL = path.join(__dirname, '..', '..', 'test', 'fixtures', 'real');
const [pyRecords, nmRecords, cli = path.join(__dirname, '..', '..', 'dist', 'cli.js')] = process.argv.slice(2);

interface Row {
  line: number;
  id: string;
  block?: { firstLine: number; lastLine: number };
}

function scan(records: string, log: string): Row[] {
  const r = spawnSync(process.execPath, [cli, 'scan', '--no-bundled', '--records', records, '--format', 'json', log], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0 && r.status !== 1) throw new Error(r.stderr);
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row);
}

interface Tally {
  n: number;
  withFile: number;
  /** The first match reported on the exception line is a record of the raising file. */
  top1: number;
  /** Matches reported inside the block; on its frame lines; on its other lines (quoted code,
   * headers, chained exceptions, log lines the truth counts in: everything but the exception line). */
  inBlock: number;
  frames: number;
  other: number;
}

function check(corpus: string, recordsFile: string, fileOf: (b: Record<string, any>) => string | null | undefined): void {
  const filePath = new Map<string, string | null>();
  for (const r of JSON.parse(fs.readFileSync(recordsFile, 'utf8'))) filePath.set(r.id, r.filePath ?? null);
  const truth = JSON.parse(fs.readFileSync(path.join(REAL, `${corpus}.truth.json`), 'utf8'));
  const rows = scan(recordsFile, path.join(REAL, `${corpus}.log`));
  const byLine = new Map<number, Row[]>();
  for (const r of rows) byLine.set(r.line, [...(byLine.get(r.line) ?? []), r]);
  const forms = new Map<string, Tally>();
  const miss: string[] = [];
  for (const b of truth.blocks) {
    const form = String(b.form).replace(/-ansi$/, '');
    const f = forms.get(form) ?? { n: 0, withFile: 0, top1: 0, inBlock: 0, frames: 0, other: 0 };
    forms.set(form, f);
    f.n++;
    const frameLines = new Set<number>((b.frames ?? []).map((x: { logLine: number | null }) => x.logLine).filter((l: number | null) => l !== null));
    for (let l = b.firstLine; l <= b.lastLine; l++) {
      const k = byLine.get(l)?.length ?? 0;
      f.inBlock += k;
      if (frameLines.has(l)) f.frames += k;
      else if (l !== b.exceptionLine) f.other += k;
    }
    const file = fileOf(b);
    if (!file) continue;
    f.withFile++;
    const first = byLine.get(b.exceptionLine)?.[0];
    if (first && filePath.get(first.id) === file) f.top1++;
    else miss.push(`  ${b.id} (${b.form}): ${first ? filePath.get(first.id) : 'nothing'}, want ${file}`);
  }
  const noise = (truth.noiseLines as number[]).filter((l) => byLine.has(l)).length;
  const sum = (k: keyof Tally) => [...forms.values()].reduce((a, f) => a + f[k], 0);
  console.log(
    `${corpus} (${cli}): ${sum('n')} blocks; exception line's first match from the raising file ${sum('top1')}/${sum('withFile')}; ` +
      `matches inside blocks ${sum('inBlock')}, on frame lines ${sum('frames')}, on other lines ${sum('other')}; noise lines flagged ${noise}/${truth.noiseLines.length}`,
  );
  for (const [form, f] of forms) console.log(`  ${form.padEnd(9)} ${String(f.n).padStart(2)} blocks, top-1 ${f.top1}/${f.withFile}, matches inside ${f.inBlock}, on frames ${f.frames}, on other lines ${f.other}`);
  if (process.env['VERBOSE']) console.log(miss.join('\n'));
}

if (pyRecords) check('python-tracebacks', pyRecords, (b) => (b.lastFrameInStdlib ? b.raise?.file : undefined));
if (nmRecords) check('node-stacks', nmRecords, (b) => b.throwFrame?.packageFile ?? b.firstPackageFrame?.packageFile);
