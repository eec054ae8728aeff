// End-to-end tests of the CLI: the built dist/cli.js as a child process (exit codes, stdio,
// streaming a large file) plus in-process runs of main() and the line splitter.
import * as assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { MAX_LINE, forEachLine } from '../../server/src/core/lineScan';
import { main } from '../../server/src/cli/main';
import { artifactUri, problemPath } from '../../server/src/cli/reporters';
import { splitLines } from '../../server/src/core/catalog';

/** The child's own peak RSS (kB) for the hooks: /proc/self/status VmHWM, the peak of its own memory.
 * Not process.resourceUsage().maxRSS: Linux keeps the pre-exec peak in it, so a child spawned by a
 * mocha process of 300 MB reports at least 300 MB. (Else, without /proc, maxRSS.) */
const PEAK_RSS_KB = "(() => { try { return Number(/VmHWM:\\s+(\\d+) kB/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1]); } catch { return process.resourceUsage().maxRSS; } })()";
import { stripAnsi } from '../../server/src/core/text';
import { CLI, REPO, tempDir } from '../shared/paths';

const SAMPLE = 'test/fixtures/logs/sample.log';
const SAMPLE_TEXT = readFileSync(path.join(REPO, SAMPLE), 'utf8');
const SAMPLE_LINES = splitLines(SAMPLE_TEXT.replace(/\r?\n$/, ''));
const SENT = '063d2eac5107dda5';
const META = '12c38bb1afed0ec1';
const COUNT = 'a5259f8458270c81';

function readdirSafe(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}
function cli(args: string[], input?: string | Buffer): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO, input, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
function assertOneLineError(r: Run, re: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.trimEnd().split('\n').length, 1, `one line: ${r.stderr}`);
  assert.match(r.stderr, /^error-explainer: /);
  assert.match(r.stderr, re);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
}

/** In-process run of main() with injected streams. */
async function inProcess(args: string[], stdin = ''): Promise<Run> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: [] as Buffer[], err: [] as Buffer[] };
  out.on('data', (b: Buffer) => chunks.out.push(b));
  err.on('data', (b: Buffer) => chunks.err.push(b));
  const code = await main(args, { stdin: Readable.from([Buffer.from(stdin)]), stdout: out, stderr: err, cwd: REPO, env: {} });
  return { code, stdout: Buffer.concat(chunks.out).toString(), stderr: Buffer.concat(chunks.err).toString() };
}

/** Expected matches of the sample log, computed from its text. */
const EXPECTED = [
  { needle: 'no staged embedding for /send req_id=7d1c0a52 (already released)', id: SENT, captures: [['req_id', '7d1c0a52']] },
  { needle: 'encode metadata not ready', id: META, captures: [] },
  { needle: 'Inconsistent receive_count for req_id=req-5f2e: registered 2, got 1', id: COUNT, captures: [['req_id', 'req-5f2e'], ['registered_count', '2'], ['expected_destination_count', '1']] },
  { needle: 'Inconsistent receive_count for req_id=req-6a01: registered 2, got 4', id: COUNT, captures: [['req_id', 'req-6a01'], ['registered_count', '2'], ['expected_destination_count', '4']] },
  { needle: 'no staged embedding for /send req_id=e03b9c11 (already released)', id: SENT, captures: [['req_id', 'e03b9c11']] },
].map((e) => {
  const line = SAMPLE_LINES.findIndex((l) => l.includes(e.needle) && !l.includes('"level": "INFO"'));
  assert.ok(line >= 0, e.needle);
  const col = SAMPLE_LINES[line]!.indexOf(e.needle);
  return { ...e, line: line + 1, column: col + 1, endColumn: col + e.needle.length + 1 };
});

describe('cli', function () {
  this.timeout(120000);

  before(() => {
    execFileSync(process.execPath, ['esbuild.mjs'], { cwd: REPO, stdio: 'inherit' });
  });

  describe('general', () => {
    it('--help and --version exit 0; no command exits 2', () => {
      const h = cli(['--help']);
      assert.equal(h.code, 0);
      for (const c of ['scan', 'explain', 'validate']) assert.match(h.stdout, new RegExp(`^  ${c} `, 'm'));
      const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
      assert.deepEqual(cli(['--version']), { code: 0, stdout: pkg.version + '\n', stderr: '' });
      assert.equal(cli([]).code, 2);
      const sh = cli(['scan', '--help']);
      assert.equal(sh.code, 0);
      assert.match(sh.stdout, /^error-explainer scan \[--records PATH\]/);
    });

    it('usage errors exit 2 with one line and no stack trace', () => {
      assertOneLineError(cli(['frobnicate']), /unknown command 'frobnicate'/);
      assertOneLineError(cli(['scan', '--bogus', SAMPLE]), /unknown option '--bogus'/);
      assertOneLineError(cli(['scan']), /at least one FILE/);
      assertOneLineError(cli(['scan', '--format', 'xml', SAMPLE]), /unknown format 'xml'/);
      assertOneLineError(cli(['scan', '--fail-on', 'fatal', SAMPLE]), /unknown severity 'fatal'/);
      assertOneLineError(cli(['scan', '--format']), /needs a value/);
    });

    it('I/O errors exit 2 with one line', () => {
      assertOneLineError(cli(['scan', 'no/such/file.log']), /cannot read file 'no\/such\/file.log': ENOENT/);
      assertOneLineError(cli(['scan', 'test/fixtures']), /is a directory/);
      assertOneLineError(cli(['scan', '--records', '/no/such/records.json', SAMPLE]), /cannot read records/);
      assertOneLineError(cli(['validate', '/no/such/path']), /ENOENT/);
    });
  });

  describe('scan', () => {
    it('json: one object per match, exact keys, 1-based UTF-16 columns in the original line, endColumn exclusive', () => {
      const r = cli(['scan', '--format', 'json', SAMPLE]);
      assert.equal(r.code, 0, r.stderr);
      const rows = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.equal(rows.length, EXPECTED.length);
      rows.forEach((row, i) => {
        const e = EXPECTED[i]!;
        // the match on a traceback's exception line says so (the sample's last match)
        const inBlock = i === EXPECTED.length - 1;
        assert.deepEqual(Object.keys(row), ['file', 'line', 'column', 'endColumn', 'id', 'slug', 'repo', 'errorCode', 'severity', 'text', 'captures', 'confidence', ...(inBlock ? ['block'] : [])]);
        if (inBlock) {
          const tb = SAMPLE_LINES.findIndex((l) => l.startsWith('Traceback (most recent call last)'));
          assert.deepEqual(row['block'], {
            kind: 'python',
            firstLine: tb + 1,
            lastLine: e.line,
            errorClass: 'sglang.srt.disaggregation.encoder.runtime.MMError',
            raisedAt: { file: '/sgl-workspace/sglang/python/sglang/srt/disaggregation/encoder/runtime.py', line: Number(/runtime\.py", line (\d+), in _dp_worker_loop/.exec(SAMPLE_TEXT)![1]), function: '_dp_worker_loop' },
          });
        }
        const conf = row['confidence'] as { score: number; label: string; reasons: string[] };
        assert.ok(conf.score >= 0 && conf.score <= 1, String(conf.score));
        assert.ok(['likely', 'possible', 'unlikely'].includes(conf.label));
        assert.ok(conf.reasons.length > 0 && conf.reasons.every((x) => typeof x === 'string'));
        assert.equal(row['file'], SAMPLE);
        assert.equal(row['line'], e.line);
        assert.equal(row['column'], e.column, `column of ${e.needle}`);
        assert.equal(row['endColumn'], e.endColumn);
        assert.equal(row['id'], e.id);
        assert.equal(row['repo'], 'sgl-project/sglang');
        assert.equal(row['errorCode'], null);
        assert.equal(row['severity'], 'error');
        assert.equal(row['text'], e.needle);
        assert.equal(SAMPLE_LINES[e.line - 1]!.slice((row['column'] as number) - 1, (row['endColumn'] as number) - 1), e.needle);
        assert.deepEqual((row['captures'] as { name: string; value: string }[]).map((c) => [c.name, c.value]), e.captures);
        for (const c of row['captures'] as object[]) assert.deepEqual(Object.keys(c), ['name', 'value']);
      });
      // the ANSI line: columns count the escape sequences of the original line
      const ansi = rows[1]!;
      assert.ok((SAMPLE_LINES[(ansi['line'] as number) - 1]!).includes('\u001b['));
    });

    it('columns are UTF-16 units (astral characters before the match count 2)', async () => {
      const line = '😀😀 é ERROR encode metadata not ready';
      const r = await inProcess(['scan', '--format', 'json', '-'], `x\n${line}\n`);
      const row = JSON.parse(r.stdout) as { line: number; column: number; endColumn: number; file: string };
      assert.equal(row.file, '<stdin>');
      assert.equal(row.line, 2);
      assert.equal(row.column, line.indexOf('encode') + 1);
      assert.equal(row.endColumn, line.length + 1);
    });

    it('text: file:line:col: severity: message [code] (the error as logged), then captures, then explanations', () => {
      const r = cli(['scan', SAMPLE]);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.split('\n');
      const e0 = EXPECTED[0]!;
      assert.equal(lines[0], `${SAMPLE}:${e0.line}:${e0.column}: error: no staged embedding for /send req_id=7d1c0a52 (already released) [MMError]`);
      assert.equal(lines[1], '    req_id = "7d1c0a52"');
      for (const e of EXPECTED) assert.ok(r.stdout.includes(`${SAMPLE}:${e.line}:${e.column}: error: ${e.needle} [`), `${e.line}:${e.column}`);
      assert.match(r.stdout, /^5 matches of 3 records in 30 lines\. Explanations:$/m);
      const explanations = r.stdout.split('Explanations:')[1]!;
      // one explanation per distinct record, rendered for a terminal: no Markdown left
      assert.equal(explanations.match(/^ {2}(MMError|BadRequestError) · HTTP \d+ · error · sgl-project\/sglang$/gm)?.length, 3);
      assert.ok(explanations.includes('Make the decoder send exactly once per req_id'));
      assert.match(explanations, /^ {4}1\. Make the decoder send exactly once per req_id/m, 'numbered solutions, indented');
      assert.match(explanations, /^ {6}try:$/m, 'code indented, not fenced');
      for (const md of ['####', '**Why it happens**', '**Raised at**', '```', '\\_', '](']) assert.ok(!explanations.includes(md), `raw Markdown ${md}`);
      assert.ok(!/\u001b/.test(r.stdout), 'no escape sequences when stdout is not a terminal');
      // prose is wrapped to 80 columns (code, indented by 6, is never wrapped)
      const prose = (l: string) => !l.startsWith('      ') && !/^\s+https:\/\//.test(l); // code (indented by 6) and URLs are never wrapped
      for (const l of explanations.split('\n')) if (prose(l)) assert.ok(l.length <= 80, `wrapped to 80 columns: ${l}`);
      const quiet = cli(['scan', '--no-explain', SAMPLE]);
      assert.ok(!quiet.stdout.includes('Solutions'));
      assert.match(quiet.stdout, /5 matches of 3 records in 30 lines\n$/);
    });

    it('text colours by severity with --color=always or FORCE_COLOR; NO_COLOR and --color=never turn it off; COLUMNS sets the width', async () => {
      const always = cli(['scan', '--color=always', SAMPLE]);
      assert.ok(always.stdout.includes('\u001b[31merror\u001b[0m'), 'error in red');
      assert.ok(always.stdout.includes('\u001b[1mMMError · HTTP 500 · error · sgl-project/sglang\u001b[0m'), 'titles bold');
      const stripped = always.stdout.replace(/\u001b\[[0-9;]*m/g, '');
      assert.equal(stripped, cli(['scan', SAMPLE]).stdout, 'colours only: the same text');
      const env = (extra: Record<string, string>) => spawnSync(process.execPath, [CLI, 'scan', SAMPLE], { cwd: REPO, encoding: 'utf8', env: { ...process.env, ...extra } }).stdout;
      assert.ok(env({ FORCE_COLOR: '1' }).includes('\u001b['));
      assert.ok(!env({ FORCE_COLOR: '1', NO_COLOR: '1' }).includes('\u001b['), 'NO_COLOR wins over FORCE_COLOR');
      assert.ok(!cli(['scan', '--color', 'never', SAMPLE]).stdout.includes('\u001b['));
      assert.ok(cli(['scan', '--color', 'always', SAMPLE]).stdout.includes('\u001b['), '--color always beats a pipe');
      const wide = env({ COLUMNS: '120' }).split('Explanations:')[1]!.split('\n');
      const prose = wide.filter((l) => !l.startsWith('      ') && !/^\s+https:\/\//.test(l));
      assert.ok(prose.some((l) => l.length > 80) && prose.every((l) => l.length <= 120), 'COLUMNS=120');
      assertOneLineError(cli(['scan', '--color=sometimes', SAMPLE]), /unknown --color 'sometimes'/);
    });

    it('markdown: the same problem lines, explanations as raw Markdown', () => {
      const r = cli(['scan', '--format', 'markdown', SAMPLE]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.split('\n')[0], cli(['scan', SAMPLE]).stdout.split('\n')[0]);
      assert.equal(r.stdout.match(/^#### (MMError|BadRequestError) · /gm)?.length, 3);
      assert.ok(r.stdout.includes('```python\n'));
    });

    it("the $error-explainer problem matcher (package.json) reads every problem line and nothing else, coloured or not", async () => {
      const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
      const matcher = pkg.contributes.problemMatchers.find((m: { name: string }) => m.name === 'error-explainer');
      assert.ok(matcher, 'contributes.problemMatchers has error-explainer');
      // relative to the task's cwd, never autoDetect (VS Code drops autoDetect problems still being looked up 100 ms after the exit)
      assert.deepEqual(matcher.fileLocation, ['relative', '${cwd}']);
      const p = matcher.pattern;
      const re = new RegExp(p.regexp);
      // real material: this machine's Python failures, scanned with records extracted from its library
      const dir = tempDir('pm');
      try {
        const log = path.join(dir, 'py.log');
        const py = (code: string) => spawnSync('python3', ['-c', code], { encoding: 'utf8' }).stderr ?? '';
        writeFileSync(log, SAMPLE_TEXT + py('import json; json.loads("")') + py("import ipaddress; ipaddress.ip_address('999.1.1.1')"));
        const args = ['scan', log];
        const lib = '/usr/lib/python3.11';
        if (readdirSafe(lib)) {
          const recs = path.join(dir, 'cpython.json');
          assert.equal(cli(['extract', lib, '--repo', 'python/cpython', '--out', recs]).code, 0);
          args.splice(1, 0, '--records', recs);
        }
        const json = cli([...args.slice(0, 1), '--format', 'json', ...args.slice(1)]).stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
        assert.ok(json.length >= 5);
        for (const colour of ['never', 'always']) {
          // a task's terminal shows the text without escape sequences (xterm renders them): match that
          const text = cli([...args, `--color=${colour}`]).stdout.replace(/\u001b\[[0-9;]*m/g, '');
          const problems = text.split('\n').map((l) => re.exec(l)).filter((m): m is RegExpExecArray => m !== null);
          assert.equal(problems.length, json.length, `${colour}: one problem per match`);
          problems.forEach((m, i) => {
            const j = json[i];
            assert.equal(path.resolve(REPO, m[p.file]!), log, 'the file, relative to the cwd (REPO)');
            assert.ok(!path.isAbsolute(m[p.file]!));
            assert.equal(Number(m[p.line]), j.line);
            assert.equal(Number(m[p.column]), j.column);
            assert.equal(m[p.severity], j.severity);
            assert.ok(!/[{}]/.test(m[p.message]!) || /[{}]/.test(j.text), `a message, not a template: ${m[p.message]}`);
            assert.equal(m[p.message], stripAnsi(j.text).replace(/\s+/g, ' ').trim());
            assert.ok(m[p.code] && m[p.code]!.length <= 40, `a short code: ${m[p.code]}`);
          });
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('text problem lines name the file relative to the current directory (json keeps it as given)', () => {
      assert.equal(problemPath('logs/a.log', '/w/p'), 'logs/a.log');
      assert.equal(problemPath('/w/p/logs/a.log', '/w/p'), 'logs/a.log');
      assert.equal(problemPath('/var/log/syslog', '/w/p'), '../../var/log/syslog');
      assert.equal(problemPath('./x/../b.log', '/w/p/'), 'b.log');
      assert.equal(problemPath('/w/p', '/w/p'), '/w/p', 'the directory itself has no relative name');
      const abs = path.join(REPO, SAMPLE);
      assert.equal(cli(['scan', '--no-explain', abs]).stdout, cli(['scan', '--no-explain', SAMPLE]).stdout);
      assert.equal(JSON.parse(cli(['scan', '--format', 'json', abs]).stdout.split('\n')[0]!).file, abs);
    });

    it('--min-confidence: matches below it are counted, not reported, and never reach --fail-on; 0 reports all', () => {
      const dir = tempDir('minconf');
      try {
        const file = path.join(dir, 'generic.json');
        writeFileSync(file, JSON.stringify([{ errorMessage: 'password', messagePattern: 'password', severity: 'critical' }]));
        const input = '12:00:01 INFO user password changed for alice\nencode metadata not ready\n';
        const count = (...extra: string[]) => JSON.parse(cli(['scan', '--format', 'count', '--records', file, ...extra, '-'], input).stdout) as { matches: number; belowConfidence: number };
        assert.deepEqual([count().matches, count().belowConfidence], [1, 1], 'the generic word on an INFO line is below the default');
        assert.deepEqual([count('--min-confidence', '0').matches, count('--min-confidence', '0').belowConfidence], [2, 0]);
        assert.deepEqual([count('--min-confidence', '1').matches, count('--min-confidence', '1').belowConfidence], [0, 2]);
        assert.equal(cli(['scan', '--format', 'count', '--fail-on', 'critical', '--records', file, '-'], input).code, 0, 'a match that is not reported does not fail the run');
        assert.equal(cli(['scan', '--format', 'count', '--fail-on', 'critical', '--min-confidence', '0', '--records', file, '-'], input).code, 1);
        const text = cli(['scan', '--no-explain', '--records', file, '-'], input).stdout;
        assert.match(text, /1 match of 1 record in 2 lines \(1 below confidence 0\.5 not shown: --min-confidence 0 shows them\)\n$/);
        const json = cli(['scan', '--format', 'json', '--min-confidence', '0', '--records', file, '-'], input).stdout.trim().split('\n').map((l) => JSON.parse(l) as { confidence: { score: number } });
        assert.ok(json[0]!.confidence.score < 0.5 && json[1]!.confidence.score >= 0.5, JSON.stringify(json.map((j) => j.confidence)));
        for (const bad of ['2', '-0.1', 'x', '']) {
          const r = cli(['scan', '--min-confidence', bad, '-'], input);
          assert.equal(r.code, 2, bad);
          assert.match(r.stderr, /--min-confidence takes a number from 0 to 1/);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('count: one JSON object at the end', () => {
      const r = cli(['scan', '--format', 'count', SAMPLE]);
      assert.equal(r.code, 0);
      assert.deepEqual(JSON.parse(r.stdout), { lines: SAMPLE_LINES.length, matches: 5, belowConfidence: 0, byRecord: { [SENT]: 2, [META]: 1, [COUNT]: 2 } });
      assert.equal(r.stdout.trimEnd().split('\n').length, 1);
      // most matched first, ties by id (the text does not depend on how the scan found them)
      assert.deepEqual(Object.keys((JSON.parse(r.stdout) as { byRecord: object }).byRecord), [...[SENT, COUNT].sort(), META]);
    });

    it('sarif: SARIF 2.1.0 with rules from records and located results', () => {
      const r = cli(['scan', '--format', 'sarif', SAMPLE]);
      assert.equal(r.code, 0, r.stderr);
      const log = JSON.parse(r.stdout);
      assert.equal(log.version, '2.1.0');
      assert.match(log.$schema, /sarif-2\.1\.0/);
      assert.equal(log.runs.length, 1);
      const run = log.runs[0];
      assert.equal(run.tool.driver.name, 'error-explainer');
      assert.equal(run.columnKind, 'utf16CodeUnits');
      const rules = run.tool.driver.rules as { id: string; helpUri: string; shortDescription: { text: string }; help: { markdown: string } }[];
      assert.deepEqual(rules.map((x) => x.id), [SENT, META, COUNT]);
      for (const rule of rules) {
        assert.match(rule.helpUri, /^https:\/\/github\.com\/sgl-project\/sglang\/blob\//);
        assert.ok(rule.shortDescription.text.length > 0);
        assert.ok(rule.help.markdown.includes('####'));
      }
      // Properties allowed by the SARIF 2.1.0 schema (additionalProperties: false) for the objects we write.
      const allowed = (o: object, keys: string[], what: string) =>
        assert.deepEqual(Object.keys(o).filter((k) => !keys.includes(k)), [], `unknown ${what} properties`);
      allowed(log, ['$schema', 'version', 'runs', 'inlineExternalProperties', 'properties'], 'sarifLog');
      allowed(run, ['tool', 'results', 'columnKind', 'artifacts', 'invocations', 'properties', 'originalUriBaseIds'], 'run');
      allowed(run.tool.driver, ['name', 'version', 'semanticVersion', 'rules', 'informationUri', 'fullName', 'properties'], 'toolComponent');
      for (const rule of rules) {
        allowed(rule, ['id', 'name', 'shortDescription', 'fullDescription', 'helpUri', 'help', 'defaultConfiguration', 'properties'], 'reportingDescriptor');
        const tags = (rule as unknown as { properties: { tags: string[] } }).properties.tags;
        assert.equal(new Set(tags).size, tags.length, 'propertyBag tags are unique');
        assert.ok(['error', 'warning', 'note', 'none'].includes((rule as unknown as { defaultConfiguration: { level: string } }).defaultConfiguration.level));
      }
      for (const res of run.results) {
        allowed(res, ['ruleId', 'ruleIndex', 'level', 'message', 'locations', 'properties', 'rank'], 'result');
        assert.ok(Number.isInteger(res.rank) && res.rank >= 0 && res.rank <= 100, `rank ${res.rank}`);
        allowed(res.locations[0], ['physicalLocation'], 'location');
        allowed(res.locations[0].physicalLocation, ['artifactLocation', 'region'], 'physicalLocation');
        allowed(res.locations[0].physicalLocation.region, ['startLine', 'startColumn', 'endColumn', 'snippet'], 'region');
      }
      assert.equal(run.results.length, EXPECTED.length);
      const json = cli(['scan', '--format', 'json', SAMPLE]).stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { confidence: { score: number } });
      run.results.forEach((res: any, i: number) => {
        assert.equal(res.rank, Math.round(json[i]!.confidence.score * 100), 'rank = confidence × 100');
        const e = EXPECTED[i]!;
        assert.equal(res.ruleId, e.id);
        assert.equal(rules[res.ruleIndex]!.id, e.id);
        assert.equal(res.level, 'error');
        assert.ok(res.message.text.length > 0);
        const loc = res.locations[0].physicalLocation;
        assert.equal(loc.artifactLocation.uri, SAMPLE);
        assert.deepEqual(
          [loc.region.startLine, loc.region.startColumn, loc.region.endColumn, loc.region.snippet.text],
          [e.line, e.column, e.endColumn, e.needle],
        );
      });
    });

    it('sarif: record and log text cannot form an embedded link ([text](target), SARIF §3.11.6) nor a Markdown link in help.markdown', () => {
      const dir = tempDir('sarif');
      const payload = '[click](https://evil.example/x) and x_https://evil%2Eexample/reset \\[y](1)';
      writeFileSync(
        path.join(dir, 'r.json'),
        JSON.stringify([{ id: 'c0ffeec0ffeec0ff', messagePattern: 'sarif probe failed: (.+?)$', errorMessage: `sarif probe failed: ${payload}`, documentation: `Docs ${payload}. More.`, solutions: [payload], slug: 'probe' }]),
      );
      const r = cli(['scan', '--no-bundled', '--records', path.join(dir, 'r.json'), '--format', 'sarif', '-'], `sarif probe failed: ${payload}\n`);
      assert.equal(r.code, 0, r.stderr);
      const run = JSON.parse(r.stdout).runs[0];
      const rule = run.tool.driver.rules[0];
      const texts: string[] = [run.results[0].message.text, rule.shortDescription.text, rule.fullDescription.text, rule.help.text];
      for (const t of texts) {
        // every [ ] and \ is escaped: an unescaped [ would open an embedded link
        assert.doesNotMatch(t.replace(/\\[\\[\]]/g, ''), /[[\]]/, t);
        assert.ok(t.includes('\\[click\\]'), t);
      }
      assert.doesNotMatch(rule.help.markdown, /\]\(https:\/\/evil/);
    });

    it('sarif with no matches is still a valid log', () => {
      const r = cli(['scan', '--format', 'sarif', '-'], 'nothing here\n');
      const log = JSON.parse(r.stdout);
      assert.deepEqual(log.runs[0].results, []);
      assert.deepEqual(log.runs[0].tool.driver.rules, []);
      assert.equal(log.runs[0].results.length, 0);
    });

    it('reads stdin with -, alongside files', () => {
      const r = cli(['scan', '--format', 'json', SAMPLE, '-'], 'a\r\nb encode metadata not ready\r\n');
      const rows = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { file: string; line: number; column: number });
      assert.equal(rows.length, 6);
      assert.deepEqual([rows[5]!.file, rows[5]!.line, rows[5]!.column], ['<stdin>', 2, 3]);
    });

    it('--fail-on: exit 1 when a match reaches the severity', () => {
      assert.equal(cli(['scan', '--format', 'count', '--fail-on', 'error', SAMPLE]).code, 1);
      assert.equal(cli(['scan', '--format', 'count', '--fail-on', 'warning', SAMPLE]).code, 1);
      assert.equal(cli(['scan', '--format', 'count', '--fail-on', 'critical', SAMPLE]).code, 0);
      assert.equal(cli(['scan', '--format', 'count', '--fail-on', 'info', '-'], 'no errors\n').code, 0);
    });

    it('--records adds user records; --no-bundled drops the bundled ones', () => {
      const dir = tempDir('cli');
      try {
        const file = path.join(dir, 'mine.json');
        writeFileSync(file, JSON.stringify({ errorMessage: 'disk quota exceeded for {user}', severity: 'critical' }));
        const input = 'disk quota exceeded for alice\nencode metadata not ready\n';
        const both = cli(['scan', '--format', 'json', '--records', file, '-'], input);
        assert.equal(both.stdout.trimEnd().split('\n').length, 2);
        const only = cli(['scan', '--format', 'json', '--no-bundled', '--records', file, '-'], input);
        const rows = only.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { severity: string; captures: { name: string; value: string }[] });
        assert.equal(rows.length, 1);
        assert.equal(rows[0]!.severity, 'critical');
        assert.deepEqual(rows[0]!.captures, [{ name: 'user', value: 'alice' }]);
        assert.equal(cli(['scan', '--format', 'count', '--fail-on', 'critical', '--records', file, '-'], input).code, 1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('in-process: main() with injected stdio gives the same JSON as the binary', async () => {
      const r = await inProcess(['scan', '--format', 'json', SAMPLE]);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, cli(['scan', '--format', 'json', SAMPLE]).stdout);
    });
  });

  it('sarif artifact URIs: relative paths stay relative and encoded, absolute paths become file: URIs', () => {
    assert.equal(artifactUri('logs/my run #1.log'), 'logs/my%20run%20%231.log');
    assert.equal(artifactUri('logs\\a.log'), 'logs/a.log');
    assert.equal(artifactUri('/var/log/x y.log'), 'file:///var/log/x%20y.log');
    assert.equal(artifactUri('<stdin>'), 'stdin');
  });

  describe('explain', () => {
    it('renders the matching record for pasted text, with captures', () => {
      const r = cli(['explain', 'worker:', 'Inconsistent receive_count for req_id=9: registered 2, got 3']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^BadRequestError · HTTP 400 · error · sgl-project\/sglang$/m);
      assert.ok(r.stdout.includes('  expected_destination_count = 3'));
      assert.match(r.stdout, /^Solutions$/m);
      assert.match(r.stdout, /^Likely match \(/m, 'the confidence of the match');
      assert.ok(r.stdout.includes('server.py:724 at 0132848'));
      assert.ok(!/^#|```|\*\*/m.test(r.stdout), 'no raw Markdown');
      const coloured = cli(['explain', '--color=always', 'Inconsistent receive_count for req_id=9: registered 2, got 3']).stdout;
      assert.ok(coloured.includes('\u001b[1m\u001b[4mBadRequestError · HTTP 400 · error · sgl-project/sglang\u001b[0m'), 'title bold and underlined');
      const fmt = cli(['explain', '--format', 'markdown', 'Inconsistent receive_count for req_id=9: registered 2, got 3']).stdout;
      assert.match(fmt, /^### BadRequestError · HTTP 400 · error · sgl-project\/sglang$/m);
      assert.ok(fmt.includes('#### Solutions'));
    });
    it('reads stdin; --markdown escapes; falls back to closest records by words', () => {
      const md = cli(['explain', '--markdown', '-'], 'x\nencode metadata not ready\n');
      assert.ok(md.stdout.includes('meta\\_registry'));
      const fuzzy = cli(['explain', 'receive', 'count', 'mismatch']);
      assert.match(fuzzy.stdout, /^No record pattern matches this text; closest record/);
      assert.ok(fuzzy.stdout.includes('BadRequestError'));
      const none = cli(['explain', 'zzqx']);
      assert.deepEqual([none.code, none.stdout], [0, 'No record matches this text.\n']);
    });
  });

  describe('validate', () => {
    it('prints file:line:col: severity: message at the offending value; exit 1 on errors', () => {
      const dir = tempDir('val');
      try {
        const file = path.join(dir, 'bad.json');
        const text = '[\n  {"errorMessage": "boom {x} happened here", "severity": "fatal"},\n  {"messagePattern": "(a+)+$"}\n]\n';
        writeFileSync(file, text);
        const r = cli(['validate', file]);
        assert.equal(r.code, 1, r.stdout + r.stderr);
        const lines = text.split('\n');
        const sevLine = lines.findIndex((l) => l.includes('"fatal"'));
        const patLine = lines.findIndex((l) => l.includes('(a+)+$'));
        const out = r.stdout.trimEnd().split('\n');
        const sev = out.find((l) => l.includes('severity'))!;
        const pat = out.find((l) => l.includes('messagePattern'))!;
        assert.ok(sev.startsWith(`${file}:${sevLine + 1}:${lines[sevLine]!.indexOf('"fatal"') + 1}: warning: `), sev);
        assert.ok(pat.startsWith(`${file}:${patLine + 1}:${lines[patLine]!.indexOf('"(a+)+$"') + 1}: error: `), pat);
        assert.match(r.stderr, /1 error/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
    it('the bundled records pass strict validation (exit 0, no output)', () => {
      const r = cli(['validate', '--strict', 'records/sgl-project/sglang.json']);
      assert.deepEqual([r.code, r.stdout], [0, '']);
      assert.match(r.stderr, /^3 records in 1 file: 0 errors/);
    });
  });

  describe('line splitting (streaming)', () => {
    const collect = async (chunks: (string | Buffer)[]) => {
      const got: [number, string][] = [];
      const stats = await forEachLine(Readable.from(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c))), (l, n) => got.push([n, l]));
      return { got, stats };
    };
    it('LF, CRLF and lone CR, at every chunk boundary, with multi-byte characters split across chunks', async () => {
      const text = 'a😀\r\nbé\rc\n\nd\r\n\r\ne';
      const want = [[1, 'a😀'], [2, 'bé'], [3, 'c'], [4, ''], [5, 'd'], [6, ''], [7, 'e']];
      const bytes = Buffer.from(text);
      for (let i = 0; i <= bytes.length; i++) {
        for (let j = i; j <= bytes.length; j++) {
          const { got } = await collect([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)]);
          assert.deepEqual(got, want, `split at ${i},${j}`);
        }
      }
      assert.deepEqual((await collect(['x\r'])).got, [[1, 'x']]);
      assert.deepEqual((await collect(['x\r\r'])).got, [[1, 'x'], [2, '']]);
      assert.deepEqual((await collect(['x\n'])).got, [[1, 'x']]);
      assert.deepEqual((await collect([''])).got, []);
    });
  });

  it('a line longer than MAX_LINE is cut there; the following lines keep their numbers', async () => {
    const piece = 'x'.repeat(1 << 20);
    const chunks = ['first\n', ...Array.from({ length: MAX_LINE / piece.length + 3 }, () => piece), 'tail\nlast\n'];
    const got: [number, number][] = [];
    const stats = await forEachLine(Readable.from(chunks), (l, n) => got.push([n, l.length]));
    assert.deepEqual(got, [[1, 5], [2, MAX_LINE], [3, 4]]);
    assert.deepEqual(stats, { lines: 3, truncatedLines: 1 });
  });

  it('hostile record text cannot drive the terminal (control characters removed in text output)', () => {
    const dir = tempDir('hostile');
    try {
      const file = path.join(dir, 'hostile.json');
      const esc = '\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007 \u001b[2J\u001b]0;pwned\u0007';
      writeFileSync(
        file,
        JSON.stringify({
          errorMessage: 'printer on fire: {what}',
          slug: 'fire' + esc,
          documentation: 'It burns.' + esc + ' Really.',
          solutions: ['Run away' + esc],
          tryCatchPattern: 'try:\n    x()' + esc + '\nexcept Fire:\n    pass',
        }),
      );
      for (const args of [['scan', '--no-bundled', '--records', file, '-'], ['explain', '--no-bundled', '--records', file, 'printer on fire: paper']]) {
        const r = cli(args, 'printer on fire: paper\n');
        assert.equal(r.code, 0, r.stderr);
        assert.ok(r.stdout.includes('burns'), r.stdout);
        assert.doesNotMatch(r.stdout, /[\u0000-\u0008\u000b-\u001f\u007f]/, JSON.stringify(r.stdout));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--threads 2 (a second thread scans half of each block) reports exactly what --threads 1 does; other counts are refused', () => {
    const dir = tempDir('threads');
    try {
      // over the 8 MiB from which a thread is started: the sample's lines (matches of every
      // format, a traceback) with noise and coloured copies between them
      const file = path.join(dir, 'big.log');
      const noise = 'INFO 2026-12-02 worker 7 took 12 ms for batch 4411 (queue depth 3)\n'.repeat(40);
      const coloured = SAMPLE_LINES.map((l) => `\x1b[2m${l}\x1b[0m`).join('\n') + '\n';
      const unit = SAMPLE_TEXT + noise + coloured + noise;
      writeFileSync(file, unit.repeat(Math.ceil((9 << 20) / Buffer.byteLength(unit))));
      const one = cli(['scan', '--threads', '1', '--format', 'json', file]);
      const two = cli(['scan', '--threads', '2', '--format', 'json', file]);
      assert.equal(one.code, 0, one.stderr);
      assert.equal(two.code, 0, two.stderr);
      assert.ok(one.stdout.split('\n').length > 1000, `${one.stdout.split('\n').length} matches`);
      assert.ok(one.stdout === two.stdout, 'the same JSON lines');
      assert.equal(cli(['scan', '--threads', '1', '--format', 'count', file]).stdout, cli(['scan', '--format', 'count', file]).stdout);
      assertOneLineError(cli(['scan', '--threads', '3', file]), /--threads must be 1 or 2, not '3'/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('streaming a large file', () => {
    // CLI_STREAM_MB=0 skips; default 200 MB (about 10 s here: generation + scan)
    const MB = Number(process.env['CLI_STREAM_MB'] ?? 200);
    let dir = '';
    after(() => dir && rmSync(dir, { recursive: true, force: true }));

    (MB > 0 ? it : it.skip)(`scans ${MB} MB with bounded memory and finds every planted match`, async () => {
      dir = tempDir('big');
      const file = path.join(dir, 'big.log');
      const hook = path.join(dir, 'rss.js');
      writeFileSync(hook, `process.on('exit', () => require('fs').writeSync(2, 'MAXRSS_KB ' + ${PEAK_RSS_KB} + '\\n'));\n`);
      const filler = '[2026-08-28 05:10:37 DP0 TP0] Decode batch. #running-req: 3, #token: 4312, token usage: 0.01, cuda graph: True, gen throughput (token/s): 211.35\n';
      const hit = '[2026-08-28 05:10:38 MM-Encoder] ERROR: Inconsistent receive_count for req_id=r1: registered 2, got 1\r\n';
      const block = filler.repeat(999) + hit; // 1 match per 1000 lines
      const blocks = Math.ceil((MB * 1024 * 1024) / block.length);
      const ws = createWriteStream(file);
      const buf = Buffer.from(block.repeat(50));
      for (let i = 0; i < blocks / 50; i++) if (!ws.write(buf)) await new Promise<void>((r) => ws.once('drain', () => r()));
      await new Promise<void>((r) => ws.end(r));
      const totalBlocks = Math.ceil(blocks / 50) * 50;

      const t0 = Date.now();
      const child = spawn(process.execPath, ['-r', hook, CLI, 'scan', '--format', 'count', file], { cwd: REPO });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b) => (stdout += b));
      child.stderr.on('data', (b) => (stderr += b));
      const code = await new Promise<number | null>((r) => child.on('close', r));
      const seconds = (Date.now() - t0) / 1000;
      assert.equal(code, 0, stderr);
      const count = JSON.parse(stdout) as { lines: number; matches: number; byRecord: Record<string, number> };
      assert.equal(count.lines, totalBlocks * 1000);
      assert.equal(count.matches, totalBlocks);
      assert.deepEqual(count.byRecord, { [COUNT]: totalBlocks });
      const rssMb = Number(/MAXRSS_KB (\d+)/.exec(stderr)![1]) / 1024;
      console.log(`      ${MB} MB: ${seconds.toFixed(1)} s (${(MB / seconds).toFixed(0)} MB/s incl. startup), max RSS ${rssMb.toFixed(0)} MB`);
      // Constant memory: far below the file size (node itself takes ~40-60 MB).
      assert.ok(rssMb < Math.min(160, MB * 0.8 + 60), `max RSS ${rssMb} MB`);
    });
  });
});
