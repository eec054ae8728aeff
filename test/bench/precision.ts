// Benchmark section "precision" (issue 12 item 7): are the explanations right, on real material?
// Everything runs through the built CLI (`dist/cli.js scan --format json`), as users and CI run it,
// and counts what it reports at the default confidence threshold (DEFAULT_MIN_CONFIDENCE: a match
// below it is not a problem).
//
//   false flags: lines flagged per 10,000 on real logs that none of the records explains
//     (test/fixtures/real/unrelated-logs: this machine's dpkg/apt/alternatives logs, npm, git,
//     postgres, code-server and our own test logs; plus /var/log/*.log found on this machine),
//     with the Python standard library's records (`extract /usr/lib/python3.11`) and TypeScript's
//     diagnostic messages loaded. Target <= 10.
//   Python tracebacks (test/fixtures/real/python-tracebacks.log, 89 real ones): top-1 = the first
//     confident match on the exception line is a record of the raising file (truth: raise.file);
//     target >= 90 % of those whose raising frame is in the standard library. Also: confident
//     matches on the traceback's other lines (frames, quoted code, chained headers) and on the
//     noise lines between tracebacks.
//   Node stacks (node-stacks.log, 35 real ones, records from `extract node_modules`): where a record
//     of the throwing package file matches the exception line it ranks first; frame lines flagged.
//   TypeScript (tsc-output.log): each diagnostic line's first match is the record of its TS code.
//
//   BENCH_SECTIONS=precision npm run bench
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_MIN_CONFIDENCE } from '../../server/src/core/confidence';
import type { BenchContext, Section } from './section';

interface Row {
  file: string;
  line: number;
  id: string;
  confidence: { score: number; label: string };
}

function cliPath(root: string): string {
  return path.join(root, 'dist', 'cli.js');
}

function run(root: string, args: string[]): string {
  const r = spawnSync(process.execPath, [cliPath(root), ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(' ')}: ${r.stderr.slice(0, 500)}`);
  return r.stdout;
}

function scan(root: string, records: string[], logs: string[]): Row[] {
  // every match (--min-confidence 0), so that the matches below the threshold can be counted too
  const out = run(root, ['scan', '--no-bundled', '--no-cache', '--min-confidence', '0', ...records.flatMap((r) => ['--records', r]), '--format', 'json', ...logs]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);
}

/** Confident rows grouped by file and line (in reported order). */
function byLine(rows: Row[]): Map<string, Row[]> {
  const m = new Map<string, Row[]>();
  for (const r of rows) {
    if (r.confidence.score < DEFAULT_MIN_CONFIDENCE) continue;
    const k = `${r.file}\0${r.line}`;
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return m;
}

/** Line `n` (1-based) of a file, if it can be read. */
function readLine(file: string, n: number): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').split('\n')[n - 1];
  } catch {
    return undefined;
  }
}

function extracted(ctx: BenchContext, dir: string, repo: string, name: string): string {
  const out = path.join(ctx.benchDir, name);
  if (!fs.existsSync(out)) run(ctx.root, ['extract', dir, '--repo', repo, '--out', out]);
  return out;
}

function lineCount(file: string): number {
  const text = fs.readFileSync(file, 'utf8');
  return text.split(/\r\n|\r|\n/).length - (/[\r\n]$/.test(text) ? 1 : 0);
}

interface RecordInfo {
  id: string;
  filePath: string | null;
  errorCode: string | null;
}

function recordsOf(file: string): Map<string, RecordInfo> {
  const list = JSON.parse(fs.readFileSync(file, 'utf8')) as RecordInfo[];
  return new Map(list.map((r) => [r.id, r]));
}

export const section: Section = {
  name: 'precision',
  async run(ctx: BenchContext): Promise<void> {
    const real = path.join(ctx.root, 'test', 'fixtures', 'real');
    const py = extracted(ctx, '/usr/lib/python3.11', 'python/cpython', 'precision-python311.json');
    const nm = extracted(ctx, path.join(ctx.root, 'node_modules'), 'npm/node_modules', 'precision-node_modules.json');
    const ts = path.join(real, 'typescript-records.json');
    const pyRecords = recordsOf(py);
    const nmRecords = recordsOf(nm);
    const tsRecords = recordsOf(ts);
    const md: string[] = [`### Precision on real material (confident = confidence >= ${DEFAULT_MIN_CONFIDENCE}; records: ${pyRecords.size.toLocaleString('en')} from \`extract /usr/lib/python3.11\`, ${tsRecords.size.toLocaleString('en')} TypeScript diagnostics, ${nmRecords.size.toLocaleString('en')} from \`extract node_modules\`)`, ''];

    // 1. false flags on unrelated logs
    const unrelated = fs.readdirSync(path.join(real, 'unrelated-logs')).map((f) => path.join(real, 'unrelated-logs', f));
    const machine = fs.existsSync('/var/log') ? fs.readdirSync('/var/log').filter((f) => f.endsWith('.log')).map((f) => path.join('/var/log', f)).filter((f) => { try { fs.accessSync(f, fs.constants.R_OK); return fs.statSync(f).isFile() && fs.statSync(f).size > 0; } catch { return false; } }) : [];
    const logs = [...unrelated, ...machine];
    const lines = logs.reduce((n, f) => n + lineCount(f), 0);
    const rows = scan(ctx.root, [py, ts], logs);
    const flagged = byLine(rows);
    const perFile = new Map<string, number>();
    for (const k of flagged.keys()) {
      const f = k.split('\0')[0]!;
      perFile.set(f, (perFile.get(f) ?? 0) + 1);
    }
    const per10k = (flagged.size / lines) * 10_000;
    const allMatched = new Set(rows.map((r) => `${r.file}\0${r.line}`)).size;
    md.push(
      '| measurement | result | target |',
      '|---|---|---|',
      `| unrelated real logs (${logs.length} files, ${lines.toLocaleString('en')} lines; ${machine.length} from /var/log): lines flagged | ${flagged.size} = **${per10k.toFixed(1)} per 10,000** (${allMatched} lines match some record at any confidence) | <= 10 |`,
    );
    ctx.target('false flags <= 10 per 10,000 unrelated real lines (Python stdlib + TypeScript records)', per10k <= 10, `${per10k.toFixed(1)} per 10k (${flagged.size} of ${lines})`);
    ctx.log(`precision: unrelated ${flagged.size}/${lines} flagged; by file: ${[...perFile].map(([f, n]) => `${path.basename(f)} ${n}`).join(', ')}`);

    // 2. Python tracebacks
    const pyLog = path.join(real, 'python-tracebacks.log');
    const pyTruth = JSON.parse(fs.readFileSync(path.join(real, 'python-tracebacks.truth.json'), 'utf8')) as {
      blocks: { id: string; firstLine: number; lastLine: number; exceptionLine: number; raise: { file: string; line: number } | null; lastFrameInStdlib: boolean; chain?: { class: string }[] }[];
      noiseLines: number[];
    };
    const pyFlags = byLine(scan(ctx.root, [py], [pyLog]));
    const at = (m: Map<string, Row[]>, file: string, line: number) => m.get(`${file}\0${line}`);
    let withSite = 0;
    let top1 = 0;
    let raiseSites = 0;
    let raiseTop1 = 0;
    let wrongFile = 0;
    let explained = 0;
    let otherFlagged = 0;
    let causeFlagged = 0;
    const misses: string[] = [];
    const logLines = fs.readFileSync(pyLog, 'utf8').split('\n');
    const plain = (l: number) => (logLines[l - 1] ?? '').replace(/\x1b\[[0-9;]*m/g, '');
    for (const b of pyTruth.blocks) {
      const first = at(pyFlags, pyLog, b.exceptionLine)?.[0];
      if (first) explained++;
      if (b.raise && b.lastFrameInStdlib) {
        withSite++;
        // is the raising frame a `raise` statement of the standard library (read from the source
        // file)? Else the message comes from C code or from Python itself (`names[day]`): no record of
        // the raising file can hold it
        const src = readLine(path.join('/usr/lib/python3.11', b.raise.file), b.raise.line);
        const raiseStatement = src !== undefined && /^\s*raise\b/.test(src);
        const hit = !!first && pyRecords.get(first.id)?.filePath === b.raise.file;
        if (raiseStatement) {
          raiseSites++;
          if (hit) raiseTop1++;
        }
        if (hit) top1++;
        else {
          if (first) wrongFile++;
          misses.push(`${b.id} (${first ? `got ${pyRecords.get(first.id)?.filePath}` : 'no confident match'}${raiseStatement ? '' : '; raised by C code or the interpreter'})`);
        }
      }
      for (let l = b.firstLine; l <= b.lastLine; l++) {
        if (l === b.exceptionLine || !at(pyFlags, pyLog, l)) continue;
        // a chained exception's own line, reported because the final exception has no confident
        // record (one problem per trace): counted apart
        const causes = (b.chain ?? []).slice(0, -1).map((c) => c.class);
        if (!at(pyFlags, pyLog, b.exceptionLine) && causes.some((c) => new RegExp(`(?:^|\\s)${c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?::|$)`).test(plain(l).trim()))) causeFlagged++;
        else otherFlagged++;
      }
    }
    const pyNoise = pyTruth.noiseLines.filter((l) => at(pyFlags, pyLog, l)).length;
    const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(0) : '-');
    md.push(
      `| Python tracebacks (${pyTruth.blocks.length} real): top-1 from the raising file, of the ${raiseSites} raised by a \`raise\` statement of the standard library | ${raiseTop1}/${raiseSites} = **${pct(raiseTop1, raiseSites)} %** | >= 90 % |`,
      `| Python tracebacks: top-1 from the raising file, of all ${withSite} whose last frame is in the standard library (incl. ${withSite - raiseSites} raised by C code or the interpreter, which no record of the file holds) | ${top1}/${withSite} = ${pct(top1, withSite)} % | |`,
      `| Python tracebacks: a confident record of another file first (a wrong explanation) | ${wrongFile} | |`,
      `| Python tracebacks: exception lines with a confident match (all ${pyTruth.blocks.length}) | ${explained} | |`,
      `| Python tracebacks: other lines of a traceback flagged (frames, quoted code, chain headers, earlier exceptions of a chain) | **${otherFlagged}** | 0 |`,
      `| Python tracebacks: a chain's earlier exception reported because its final one has no record (the trace's one problem) | ${causeFlagged} | |`,
      `| noise lines between the tracebacks flagged (of ${pyTruth.noiseLines.length}: \`ERROR job 1003 failed\`…) | ${pyNoise} | |`,
    );
    ctx.target('Python tracebacks raised by a `raise` statement: top-1 from the raising file >= 90 %', raiseSites > 0 && raiseTop1 / raiseSites >= 0.9, `${raiseTop1}/${raiseSites} (all with a stdlib last frame: ${top1}/${withSite})`);
    ctx.target('Python tracebacks: no other line of a traceback flagged', otherFlagged === 0, String(otherFlagged));
    if (misses.length) ctx.log(`precision: python top-1 misses: ${misses.join('; ')}`);

    // 3. Node stacks
    const nodeLog = path.join(real, 'node-stacks.log');
    const nodeTruth = JSON.parse(fs.readFileSync(path.join(real, 'node-stacks.truth.json'), 'utf8')) as {
      blocks: { id: string; firstLine: number; lastLine: number; exceptionLine: number; throwFrame: { packageFile: string } | null; frames: { logLine: number }[] }[];
    };
    const nodeAll = scan(ctx.root, [nm], [nodeLog]);
    const nodeFlags = byLine(nodeAll);
    let packageMatched = 0;
    let packageFirst = 0;
    let frameFlags = 0;
    for (const b of nodeTruth.blocks) {
      const onLine = nodeAll.filter((r) => r.line === b.exceptionLine);
      const pkg = b.throwFrame?.packageFile;
      if (pkg && onLine.some((r) => nmRecords.get(r.id)?.filePath === pkg)) {
        packageMatched++;
        const first = at(nodeFlags, nodeLog, b.exceptionLine)?.[0] ?? onLine[0];
        if (first && nmRecords.get(first.id)?.filePath === pkg) packageFirst++;
      }
      for (const f of b.frames) if (at(nodeFlags, nodeLog, f.logLine)) frameFlags++;
    }
    md.push(
      `| Node stacks (${nodeTruth.blocks.length} real): a record of the throwing package file ranks first, where one matches | ${packageFirst}/${packageMatched} | all |`,
      `| Node stacks: frame lines flagged | **${frameFlags}** | 0 |`,
    );
    ctx.target('Node stacks: the throwing package file ranks first where it matches', packageFirst === packageMatched, `${packageFirst}/${packageMatched}`);
    ctx.target('Node stacks: no frame line flagged', frameFlags === 0, String(frameFlags));

    // 4. TypeScript: the record of the diagnostic's own code first
    const tscLog = path.join(real, 'tsc-output.log');
    const tscTruth = JSON.parse(fs.readFileSync(path.join(real, 'tsc-output.truth.json'), 'utf8')) as { runs: { diagnostics: { line: number; code: string }[] }[] };
    const tscRows = scan(ctx.root, [ts], [tscLog]);
    let diags = 0;
    let codeFirst = 0;
    for (const d of tscTruth.runs.flatMap((r) => r.diagnostics)) {
      diags++;
      const first = tscRows.find((r) => r.line === d.line);
      if (first && tsRecords.get(first.id)?.errorCode === d.code) codeFirst++;
    }
    md.push(`| tsc output: diagnostic lines whose first match is the record of their own TS code | ${codeFirst}/${diags} | all |`, '');
    ctx.target('tsc: each diagnostic line explained by its own code first', codeFirst === diags, `${codeFirst}/${diags}`);
    ctx.markdown(md.join('\n'));
  },
};
