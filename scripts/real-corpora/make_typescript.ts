// Produce, from the installed `typescript` package (no network):
//   test/fixtures/real/typescript-records.json  TypeScript's own diagnostic messages as ErrLookup-shaped
//                                               records (one per line of a JSON array)
//   test/fixtures/real/tsc-output.log           real `tsc` output on deliberately broken files:
//                                               --pretty false, then --pretty (colours, code frames)
//   test/fixtures/real/tsc-output.truth.json    the diagnostic of each line, from the compiler API
//
//   npx tsx scripts/real-corpora/make_typescript.ts [OUT_DIR]
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { derivePattern, patternProblem } from '../../server/src/core/pattern';
import { errLookupId, errLookupSlug } from '../../server/src/core/extract/records';
import { type ErrorRecord, type Severity, skeletonRecord } from '../../server/src/core/record';

const ROOT = path.resolve(__dirname, '..', '..');
const OUT = process.argv[2] ? path.resolve(process.argv[2]) : path.join(ROOT, 'test', 'fixtures', 'real');
const REPO = 'microsoft/TypeScript';
/** Where the messages are written in TypeScript's own repository. */
const SOURCE = 'src/compiler/diagnosticMessages.json';
const WORK = '/tmp/ee-corpus/tsc';
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

const SEVERITY: Record<number, Severity> = {
  [ts.DiagnosticCategory.Error]: 'error',
  [ts.DiagnosticCategory.Warning]: 'warning',
  [ts.DiagnosticCategory.Suggestion]: 'info',
  [ts.DiagnosticCategory.Message]: 'info',
};

interface Diag {
  code: number;
  category: number;
  key: string;
  message: string;
}

function records(): { records: ErrorRecord[]; skipped: { code: number; message: string; reason: string }[] } {
  const table = (ts as unknown as { Diagnostics: Record<string, Diag> }).Diagnostics;
  const out: ErrorRecord[] = [];
  const skipped: { code: number; message: string; reason: string }[] = [];
  const diags = Object.values(table).sort((a, b) => a.code - b.code || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const d of diags) {
    const errorCode = `TS${d.code}`;
    const messagePattern = derivePattern(d.message);
    const problem = patternProblem(messagePattern);
    if (problem) {
      skipped.push({ code: d.code, message: d.message, reason: problem });
      continue;
    }
    out.push(
      skeletonRecord({
        id: errLookupId(REPO, errorCode, d.message, SOURCE),
        repo: REPO,
        slug: errLookupSlug(errorCode, d.message),
        errorCode,
        errorMessage: d.message,
        messagePattern,
        errorType: 'error_code',
        errorClass: null,
        severity: SEVERITY[d.category] ?? 'info',
        filePath: SOURCE,
        githubUrl: `https://github.com/${REPO}/blob/v${ts.version}/${SOURCE}`,
        solutions: [],
        preventionTips: [],
        tags: ['typescript', ts.DiagnosticCategory[d.category]!.toLowerCase()],
      }),
    );
  }
  return { records: out, skipped };
}

// Deliberately broken files: each line that fails is a common real mistake.
const BROKEN: Record<string, string> = {
  'src/orders.ts': `import { sendMail } from './mailer';
import { format } from 'date-fns';

export interface Order {
  id: number;
  customer: string;
  total: number;
  shippedAt?: Date;
}

export function describe(order: Order): string {
  const label: number = order.customer;
  return \`\${order.id}: \${lable} \${order.totl}\`;
}

export function ship(order: Order) {
  sendMail(order.customer, 'shipped', 3);
  return order.shippedAt.toISOString();
}

export function total(orders: Order[]) {
  return orders.reduce((sum, o) => sum + o.total);
}

export const first: Order = { id: 1, customer: 'ada' };
`,
  'src/mailer.ts': `export function sendMail(to: string, subject: string): Promise<void> {
  return fetch('https://mail.example/send', { method: 'POST', body: JSON.stringify({ to, subject }) }).then(() => {});
}

export function parse(raw) {
  const unused = 1;
  return JSON.parse(raw).recipients.map((r) => r.address);
}

export function retry(times: number): number {
  if (times > 0) {
    return retry(times - 1);
  }
}

const lookup: Record<'a' | 'b', number> = { a: 1, b: 2 };
export const pick = (k: string) => lookup[k];
`,
  'src/syntax.ts': `export function broken(a: number {
  return a +;
}
let x = ;
export class Store {
  private items = new Map<string, number>()
  get(key: string): number {
    return this.items.get(key) ?? this.itemz.size;
  }
}
`,
};

const TSCONFIG = {
  compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true, noUnusedLocals: true, noImplicitReturns: true, lib: ['ES2022', 'DOM'], types: [] },
  include: ['src'],
};

interface LineTruth {
  line: number;
  code: string;
  category: string;
  file: string | null;
  row: number | null;
  column: number | null;
  message: string;
  /** further lines of the message chain (elaborations), with their own codes */
  chain: { line: number; code: string; message: string }[];
  /** --pretty only: related information lines under the code frame */
  related: { line: number; code: string; message: string }[];
}

type Run = { project: string; args: string[]; firstLine: number; lastLine: number; diagnostics: LineTruth[]; summaryLine: number | null };

function tscOutput(): { log: string[]; truth: { runs: Run[] } } {
  fs.rmSync(WORK, { recursive: true, force: true });
  // two projects: tsc reports semantic errors only when there is no syntax error
  const projects: Record<string, string[]> = { app: ['src/orders.ts', 'src/mailer.ts'], syntax: ['src/syntax.ts'] };
  for (const [proj, files] of Object.entries(projects)) {
    for (const rel of files) {
      fs.mkdirSync(path.dirname(path.join(WORK, proj, rel)), { recursive: true });
      fs.writeFileSync(path.join(WORK, proj, rel), BROKEN[rel]!);
    }
    fs.writeFileSync(path.join(WORK, proj, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2) + '\n');
  }
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const log: string[] = [];
  const runs: Run[] = [];
  for (const proj of Object.keys(projects)) {
    const dir = path.join(WORK, proj);
    // the diagnostics, from the compiler API (the program tsc builds, and tsc's rule: syntax errors first, alone)
    const parsed = ts.getParsedCommandLineOfConfigFile(path.join(dir, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
    const program = ts.createProgram({ rootNames: parsed.fileNames, options: { ...parsed.options, noEmit: true } });
    const syntactic = program.getSyntacticDiagnostics();
    const diags = syntactic.length ? [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics(), ...syntactic] : [...ts.getPreEmitDiagnostics(program)];
    for (const args of [['--noEmit', '--pretty', 'false', '-p', '.'], ['--noEmit', '--pretty', '-p', '.']]) {
      const p = cp.spawnSync(process.execPath, [tsc, ...args], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: WORK } });
      if (p.status !== 2) throw new Error(`tsc ${args.join(' ')} exited ${p.status}: ${p.stderr}`);
      log.push(`$ cd ${proj} && npx tsc ${args.join(' ')}`);
      const start = log.length + 1;
      const lines = p.stdout.replace(/\n+$/, '').split('\n');
      log.push(...lines);
      const plain = lines.map((l) => l.replace(ANSI, ''));
      const pretty = !args.includes('false');
      const out: LineTruth[] = [];
      const used = new Set<number>();
      for (const d of diags) {
        const cat = ts.DiagnosticCategory[d.category]!.toLowerCase();
        let file: string | null = null;
        let row: number | null = null;
        let col: number | null = null;
        if (d.file && d.start !== undefined) {
          const lc = d.file.getLineAndCharacterOfPosition(d.start);
          file = path.relative(dir, d.file.fileName);
          row = lc.line + 1;
          col = lc.character + 1;
        }
        const head = file === null ? `${cat} TS${d.code}: ` : pretty ? `${file}:${row}:${col} - ${cat} TS${d.code}: ` : `${file}(${row},${col}): ${cat} TS${d.code}: `;
        const text = ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n');
        const k = plain.findIndex((l, i) => !used.has(i) && l === head + text[0]);
        if (k < 0) throw new Error(`not found in tsc ${args.join(' ')} output: ${head + text[0]}`);
        used.add(k);
        // the message chain: each next line is indented two spaces per level
        const codes: number[] = [];
        const walk = (m: string | ts.DiagnosticMessageChain, depth: number): void => {
          if (typeof m === 'string') return;
          if (depth > 0) codes.push(m.code);
          for (const n of m.next ?? []) walk(n, depth + 1);
        };
        walk(d.messageText, 0);
        const chain: LineTruth['chain'] = [];
        for (let j = 1; j < text.length; j++) {
          if (plain[k + j] !== text[j]) throw new Error(`chain line ${k + j}: ${JSON.stringify(plain[k + j])} != ${JSON.stringify(text[j])}`);
          chain.push({ line: start + k + j, code: `TS${codes[j - 1]}`, message: text[j]!.trim() });
        }
        // --pretty prints related information ("'label' is declared here.") under the code frame
        const related: LineTruth['related'] = [];
        if (pretty) {
          let r0 = k + text.length;
          for (const r of d.relatedInformation ?? []) {
            const msg = '    ' + ts.flattenDiagnosticMessageText(r.messageText, '\n');
            const at = plain.findIndex((l, i) => i >= r0 && l === msg);
            if (at < 0) throw new Error(`related information not found: ${msg}`);
            related.push({ line: start + at, code: `TS${r.code}`, message: msg.trim() });
            r0 = at + 1;
          }
        }
        out.push({ line: start + k, code: `TS${d.code}`, category: cat, file, row, column: col, message: text[0]!, chain, related });
      }
      out.sort((a, b) => a.line - b.line);
      const summary = plain.findIndex((l) => /^Found \d+ errors?/.test(l));
      runs.push({ project: proj, args, firstLine: start, lastLine: start + lines.length - 1, diagnostics: out, summaryLine: summary >= 0 ? start + summary : null });
    }
  }
  return { log, truth: { runs } };
}

function main(): void {
  fs.mkdirSync(OUT, { recursive: true });
  const { records: recs, skipped } = records();
  // a JSON array with one record per line: valid JSON, small, and diffs line by line
  fs.writeFileSync(path.join(OUT, 'typescript-records.json'), '[\n' + recs.map((r) => JSON.stringify(r)).join(',\n') + '\n]\n');
  const { log, truth } = tscOutput();
  fs.writeFileSync(path.join(OUT, 'tsc-output.log'), log.join('\n') + '\n');
  fs.writeFileSync(
    path.join(OUT, 'tsc-output.truth.json'),
    JSON.stringify({ description: 'real tsc output; see README.md', generator: 'scripts/real-corpora/make_typescript.ts', typescript: ts.version, lineNumbers: '1-based', ...truth }, null, 1) + '\n',
  );
  process.stderr.write(
    `${recs.length} TypeScript records (${skipped.length} messages skipped: unsafe pattern, e.g. ${skipped
      .slice(0, 3)
      .map((s) => `TS${s.code} ${JSON.stringify(s.message)}`)
      .join(', ')}); tsc output: ${log.length} lines, ${truth.runs[0]!.diagnostics.length} diagnostics per run\n`,
  );
}

main();
