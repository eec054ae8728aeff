#!/usr/bin/env node
// Produce test/fixtures/real/node-stacks.log and node-stacks.truth.json by running small programs
// that fail inside packages of this repository's node_modules (node_cases.cjs). Needs no network.
//
//   node scripts/real-corpora/make_node_stacks.cjs [OUT_DIR]
//
// Every stack is printed by Node itself (uncaught exception, unhandled rejection, console.error,
// util.inspect with colours, err.stack in a logger line). The programs run from a fixed folder
// (/tmp/ee-corpus/node/app, whose node_modules is a symlink to this repository's, with
// --preserve-symlinks) so the printed paths do not depend on where the repository is checked out.
// The truth (exception line, class, message, frames, the throwing file from the first `at` frame)
// comes from the error object, written by the program itself, and its lines are located in the
// assembled log (and checked).
'use strict';
const cp = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const OUT = process.argv[2] ? path.resolve(process.argv[2]) : path.join(ROOT, 'test', 'fixtures', 'real');
const WORK = '/tmp/ee-corpus/node';
const APP = path.join(WORK, 'app');
const NM = path.join(APP, 'node_modules');
const CASES = require('./node_cases.cjs');
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;
const BASE = Date.UTC(2026, 11, 1, 10, 0, 0);

const TRUTH_JS = `'use strict';
// writes what the error object says (never parsed from text) to $CORPUS_TRUTH
const fs = require('node:fs');
exports.record = (e, how) => {
  const causes = [];
  for (let c = e && e.cause, n = 0; c && n < 5; c = c.cause, n++) causes.push({ name: c.name, message: String(c.message), code: c.code ?? null, stackFirstLine: String(c.stack ?? '').split('\\n')[0] });
  fs.appendFileSync(process.env.CORPUS_TRUTH, JSON.stringify({
    how, name: e.name, constructor: e.constructor && e.constructor.name, message: String(e.message), code: e.code ?? null,
    stackFirstLine: String(e.stack).split('\\n')[0], stack: String(e.stack), causes,
  }) + '\\n');
};
// uncaught exceptions and unhandled rejections: a monitor sees the error and changes nothing
// (Node still prints it its own way and exits 1)
process.on('uncaughtExceptionMonitor', (e, origin) => exports.record(e, origin === 'unhandledRejection' ? 'rejection' : 'uncaught'));
`;

function program(name, form, body, job, clock) {
  const isAsync = body.includes('await ');
  const ind = body.trim().split('\n').map((l) => (l ? '  ' + l : l)).join('\n');
  const head = `'use strict';\nconst util = require('node:util');\nconst truth = require('../corpus-truth.js');\n\n${isAsync ? 'async ' : ''}function main() {\n${ind}\n}\n\n`;
  const ts = new Date(clock).toISOString();
  const report = {
    console: 'console.error(e);',
    syslog: 'console.error(e);',
    ansi: 'console.error(util.inspect(e, { colors: true }));',
    logger: `console.error(\`${ts} error: job ${job} failed: \${e.stack}\`);`,
  }[form];
  if (form === 'uncaught') {
    if (isAsync) throw new Error(`${name}: an uncaught case must be synchronous (use 'rejection')`);
    return head + `main();\n`;
  }
  if (form === 'rejection') return head + `main();\n`;
  if (isAsync) return head + `main().catch((e) => {\n  ${report}\n  truth.record(e, '${form}');\n  process.exitCode = 1;\n});\n`;
  return head + `try {\n  main();\n} catch (e) {\n  ${report}\n  truth.record(e, '${form}');\n  process.exitCode = 1;\n}\n`;
}

function prepare() {
  fs.rmSync(WORK, { recursive: true, force: true });
  fs.mkdirSync(path.join(APP, 'jobs'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), NM);
  fs.writeFileSync(path.join(APP, 'corpus-truth.js'), TRUTH_JS);
  fs.writeFileSync(path.join(APP, 'package.json'), '{ "name": "corpus-app", "private": true }\n');
}

/** One `    at …` line: function, location, line, column. */
function parseFrame(text) {
  // the last frame of an error with own properties ends with " {" (util.inspect opens the object)
  text = text.replace(/ \{$/, "");
  const m = /^\s+at (?:(.*?) \((.*):(\d+):(\d+)\)|(.*):(\d+):(\d+)|(.*?) \((native|<anonymous>|index \d+)\))$/.exec(text);
  if (!m) return undefined;
  if (m[2] !== undefined) return { function: m[1], location: m[2], line: +m[3], column: +m[4] };
  if (m[5] !== undefined) return { function: null, location: m[5], line: +m[6], column: +m[7] };
  return { function: m[8], location: m[9], line: null, column: null };
}

/** The frame's file relative to the app's node_modules (what `extract node_modules` calls filePath). */
function packageFile(location) {
  const p = location.startsWith('file://') ? new URL(location).pathname : location;
  // (a package that resolves its own files through realpath prints the repository's path)
  for (const dir of [NM, path.join(ROOT, 'node_modules')]) if (p.startsWith(dir + '/')) return p.slice(dir.length + 1);
  return null;
}
function packageName(rel) {
  const parts = rel.split('/');
  // the innermost node_modules decides (micromatch/node_modules/picomatch/... is picomatch)
  let k = parts.lastIndexOf('node_modules') + 1;
  return parts[k].startsWith('@') ? `${parts[k]}/${parts[k + 1]}` : parts[k];
}

function runCase(name, form, body, job, clock) {
  const file = path.join(APP, 'jobs', `${name}.js`);
  fs.writeFileSync(file, program(name, form, body, job, clock));
  const truthFile = path.join(WORK, 'truth.jsonl');
  fs.rmSync(truthFile, { force: true });
  const p = cp.spawnSync(process.execPath, ['--preserve-symlinks', '--preserve-symlinks-main', file], {
    cwd: APP,
    env: { PATH: process.env.PATH, HOME: WORK, CORPUS_TRUTH: truthFile, NODE_OPTIONS: '', FORCE_COLOR: '0', NO_COLOR: '1', LANG: 'C.UTF-8' },
    encoding: 'utf8',
    timeout: 60000,
  });
  const truths = fs.readFileSync(truthFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  if (truths.length !== 1) throw new Error(`${name}: ${truths.length} truth records\n${p.stderr}`);
  const raw = p.stderr.replace(/\n+$/, '').split('\n');
  return { raw, truth: truths[0], status: p.status };
}

function locate(name, form, raw, plain, truth, start, clockSec) {
  // the exception line: the first line that is (or, in a logger line, ends with) the stack's first line
  // (util.inspect names the constructor when the stack does not: "MissingRefError: …" for a stack
  // that starts "Error: …", so the printed line may differ from err.stack's first line)
  const msg1 = truth.message.split('\n')[0];
  const isExc = (l) => l === truth.stackFirstLine || (msg1 !== '' && l.endsWith(`: ${msg1}`) && /^[\w$.]+( \[[\w.]+\])?: /.test(l));
  const exc = plain.findIndex((l) => (form === 'logger' ? l.endsWith(`failed: ${truth.stackFirstLine}`) : isExc(l)));
  if (exc < 0) throw new Error(`${name}: exception line ${JSON.stringify(truth.stackFirstLine)} not found in\n${plain.join('\n')}`);
  // frames: the `at` lines after the exception line (after the message's own further lines)
  const stackLines = truth.stack.split('\n');
  const firstAt = stackLines.findIndex((l) => /^\s+at /.test(l));
  const k0 = exc + (firstAt < 0 ? stackLines.length : firstAt);
  const frames = [];
  let k = k0;
  for (; k < plain.length && /^\s+at /.test(plain[k]); k++) {
    const f = parseFrame(plain[k]);
    if (!f) throw new Error(`${name}: cannot read frame ${plain[k]}`);
    const pf = f.location ? packageFile(f.location) : null;
    frames.push({ ...f, packageFile: pf, package: pf ? packageName(pf) : null, logLine: start + k });
  }
  if (firstAt >= 0 && frames.length !== stackLines.length - firstAt) throw new Error(`${name}: ${frames.length} frames printed, ${stackLines.length - firstAt} in err.stack`);
  // the block: from the source excerpt (uncaught / rejection) or the exception line, to the last
  // line before "Node.js vN" (own properties and [cause] included)
  let first = exc;
  if (form === 'uncaught' || form === 'rejection') {
    first = plain.findIndex((l) => /^(file:\/\/|node:)?\/?.*:\d+$/.test(l));
    if (first < 0 || first > exc) throw new Error(`${name}: no source excerpt header`);
  }
  let last = plain.length - 1;
  if (/^Node\.js v/.test(plain[last])) last--;
  while (last > exc && !plain[last].trim()) last--;
  const f0 = frames[0] ?? null;
  const firstPkg = frames.find((f) => f.packageFile) ?? null;
  return {
    id: name,
    form,
    firstLine: start + first,
    lastLine: start + last,
    exceptionLine: start + exc,
    exceptionLineText: form === 'logger' ? plain[exc].slice(plain[exc].length - truth.stackFirstLine.length) : plain[exc],
    stackFirstLine: truth.stackFirstLine,
    class: truth.name,
    constructor: truth.constructor,
    message: truth.message,
    code: truth.code,
    causes: truth.causes,
    throwFrame: f0 && { function: f0.function, location: f0.location, line: f0.line, column: f0.column, packageFile: f0.packageFile, package: f0.package, logLine: f0.logLine },
    firstPackageFrame: firstPkg && { packageFile: firstPkg.packageFile, package: firstPkg.package, line: firstPkg.line, logLine: firstPkg.logLine },
    otherOutput: plain.slice(0, first).map((text, i) => ({ line: start + i, text })).filter((x) => x.text.trim()),
    frames,
  };
}

const NOISE = [
  'info: GET /health 200 2ms',
  'info: worker {job} picked up build #{job}',
  'warn: build #{job} took 41s (budget 30s)',
  'error: build #{job} failed',
  'error: deploy of web@{job} failed, rolling back',
  'info: cache hit for node_modules (key npm-3f2a91)',
  'warn: retrying request to registry (attempt 2 of 3)',
  'info: 14 files changed, 2 removed',
  'error: job {job} failed with exit code 1',
  'info: listening on http://127.0.0.1:3000',
];
const NOISE_SYSLOG = [
  'ci-2 systemd[1]: Started builder.service - Build worker.',
  'ci-2 builder[{pid}]: build #{job} started',
  'ci-2 builder[{pid}]: error: build #{job} failed',
  'ci-2 systemd[1]: builder.service: Main process exited, code=exited, status=1/FAILURE',
];

function syslogStamp(ms) {
  const d = new Date(ms);
  const two = (n) => String(n).padStart(2, '0');
  return `Dec  1 ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
}

function main() {
  prepare();
  let seed = 1003;
  const rnd = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const log = [];
  const blocks = [];
  const noiseLines = [];
  let clock = BASE;
  CASES.forEach(([name, form, body], i) => {
    const job = 5001 + i;
    const pid = 7100 + (job % 50);
    for (let n = 1 + rnd(3); n > 0; n--) {
      clock += 1 + rnd(900);
      const s = (form === 'syslog' ? NOISE_SYSLOG : NOISE)[rnd(form === 'syslog' ? NOISE_SYSLOG.length : NOISE.length)].replaceAll('{job}', job).replaceAll('{pid}', pid);
      log.push(form === 'syslog' ? `${syslogStamp(clock)} ${s}` : `${new Date(clock).toISOString()} ${s}`);
      noiseLines.push(log.length);
    }
    clock += 1000 + rnd(5000);
    const { raw, truth } = runCase(name, form, body, job, clock);
    const plain = raw.map((l) => l.replace(ANSI, ''));
    const lines = form === 'syslog' ? raw.map((l) => `${syslogStamp(clock)} ci-2 builder[${pid}]: ${l}`) : raw;
    const start = log.length + 1;
    log.push(...lines);
    blocks.push(locate(name, form, raw, plain, truth, start, clock));
  });
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(path.join(OUT, 'node-stacks.log'), log.join('\n') + '\n');
  const truth = {
    description: 'Real Node.js stack traces from failing code in packages of this repository\'s node_modules; see README.md',
    generator: 'scripts/real-corpora/make_node_stacks.cjs',
    node: process.version,
    nodeModules: NM,
    packageFileRelativeTo: `${NM} (= this repository's node_modules; what \`extract node_modules\` records as filePath)`,
    lines: log.length,
    lineNumbers: '1-based',
    noiseLines,
    blocks,
  };
  fs.writeFileSync(path.join(OUT, 'node-stacks.truth.json'), JSON.stringify(truth, null, 1) + '\n');
  process.stderr.write(`${blocks.length} stacks, ${log.length} lines -> ${path.join(OUT, 'node-stacks.log')}\n`);
}

main();
