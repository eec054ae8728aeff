import * as assert from 'node:assert/strict';
import { derivePattern } from '../../server/src/core/pattern';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CODE_INDENTED, CODE_STATEMENT, DEFAULT_MIN_CONFIDENCE, classInLine, confidenceScore, errorMarker, labelOf, lineFacts, looksLikeCode, matchConfidence, messageStart, patternBits, plainScoreCeiling, PlainScorer, scoreOfBits, scoreThreshold, scoresAtLeast, wordBits } from '../../server/src/core/confidence';
import { engineEntry } from '../../server/src/core/catalog';
import { MatchEngine, hasToken } from '../../server/src/core/engine';
import { baseView } from '../../server/src/core/text';
import { extractFromDir } from '../../server/src/core/extract';
import type { ErrorRecord } from '../../server/src/core/record';

/** The confidence of a record built from `message` on `line`, with the span found from the text. */
function conf(message: string, line: string, extra: { errorClass?: string; errorCode?: string; role?: 'exception' | 'frame' | 'quoted'; frameMatch?: 'file' | 'line' | 'none'; tags?: string[] } = {}) {
  const pattern = derivePattern(message);
  const m = new RegExp(pattern).exec(line);
  assert.ok(m, `${pattern} should match ${line}`);
  const codeInLine = extra.errorCode ? line.includes(extra.errorCode) : false;
  return matchConfidence(
    { messagePattern: pattern, errorClass: extra.errorClass ?? null, errorCode: extra.errorCode ?? null, tags: extra.tags ?? [] },
    { start: m.index, end: m.index + m[0].length, codeInLine },
    line,
    { ...(extra.role ? { role: extra.role } : {}), ...(extra.frameMatch ? { frameMatch: extra.frameMatch } : {}) },
  );
}

describe('confidence', () => {
  it('common words carry few bits, rare words and identifiers many', () => {
    assert.ok(wordBits('the') < 4);
    assert.ok(wordBits('password') < 13);
    assert.ok(wordBits('disaggregation') > 15);
    assert.ok(patternBits(derivePattern('password')) < 14);
    assert.ok(patternBits(derivePattern('{x} failed')) < 14);
    assert.ok(patternBits(derivePattern('No staged embedding for send req_id={req_id}')) > 40, 'identifiers count');
    assert.ok(patternBits(derivePattern('encode metadata not ready')) > patternBits(derivePattern('already closed')));
  });

  it('a record of one common word on an unrelated line is unlikely, a specific message likely', () => {
    const weak = conf('password', 'Dec  1 09:12:01 host sshd[811]: Accepted password for root from 10.0.0.2 port 5022 ssh2');
    assert.equal(weak.label, 'unlikely');
    assert.ok(weak.score < DEFAULT_MIN_CONFIDENCE);
    const strong = conf('encode metadata not ready', '2026-12-01 09:00:01 ERROR MM-Encoder wait_metadata failed: MMError: encode metadata not ready (HTTP 504)', { errorClass: 'MMError' });
    assert.equal(strong.label, 'likely');
    assert.ok(strong.reasons.includes('MMError on the line'), strong.reasons.join('; '));
  });

  it('a log line of its own (ERROR job 1003 failed) is not explained by "{x} failed"', () => {
    const c = conf('{what} failed', '2026-12-01 09:00:01 ERROR job 1003 failed');
    assert.ok(c.score < DEFAULT_MIN_CONFIDENCE, JSON.stringify(c));
  });

  it('the error code or class on the line raises a generic message over the threshold', () => {
    const line = "src/app.ts(3,7): error TS2304: Cannot find name 'foo'.";
    const without = conf("Cannot find name '{0}'.", line);
    const withCode = conf("Cannot find name '{0}'.", line, { errorCode: 'TS2304' });
    assert.ok(withCode.score > without.score);
    assert.ok(withCode.score >= 0.7);
    assert.ok(withCode.reasons[0]!.includes('TS2304'));
  });

  it('frames and quoted code are context, never matches', () => {
    const c = conf('Object', '    at Object.<anonymous> (/srv/app/index.js:3:9)', { role: 'frame' });
    assert.equal(c.label, 'unlikely');
    assert.ok(c.score < 0.1);
  });

  it('the exception line of a trace counts as strong context', () => {
    const plain = conf('unknown archive format {0}', "unknown archive format '/tmp/x.bin'");
    const exc = conf('unknown archive format {0}', "shutil.ReadError: unknown archive format '/tmp/x.bin'", { role: 'exception', errorClass: 'ReadError' });
    assert.ok(exc.score > plain.score);
    assert.equal(exc.label, 'likely');
  });

  it('error markers and message starts', () => {
    assert.equal(errorMarker('2026-12-01 ERROR boom'), 'strong');
    assert.equal(errorMarker('E   ValueError: bad'), 'strong');
    assert.equal(errorMarker('zipfile.BadZipFile: File is not a zip file'), undefined);
    assert.equal(errorMarker('ValueError: bad'), 'strong');
    assert.equal(errorMarker('[WARN] disk almost full'), 'weak');
    assert.equal(errorMarker('Setting up libc6 (2.36-9)'), undefined);
    const line = '2026-12-01 09:00:01,123 ERROR worker[12]: job failed';
    assert.equal(line.slice(messageStart(line)), 'job failed');
    const syslog = 'Dec  1 09:00:44 web-1 worker[4206]: FileNotFoundError: [Errno 2] No such file';
    assert.equal(syslog.slice(messageStart(syslog)), 'FileNotFoundError: [Errno 2] No such file');
  });

  it('a class-only record needs its exception line; a helper named like `self.error` is no class', () => {
    const cls = { errorClass: '_queue.Empty', tags: ['class-only'] };
    assert.ok(conf('_queue.Empty', '_queue.Empty', cls).score >= DEFAULT_MIN_CONFIDENCE, 'the exception line of a bare raise');
    assert.ok(conf('_queue.Empty', '2026-12-01 ERROR worker: _queue.Empty', cls).score >= DEFAULT_MIN_CONFIDENCE, 'after a log prefix');
    assert.equal(conf('_queue.Empty', '    ✔ configparser.NoSectionError, _queue.Empty (133ms)', cls).score, 0, 'a word of a test report');
    const tag = conf('TypeError', '    ✔ picomatch: TypeError for an empty pattern (117ms)', { errorClass: 'TypeError', tags: ['class-only'] });
    assert.equal(tag.score, 0);
    const helper = conf('missing {name}', '    ✔ missing comma between records: all records load, error at the second record', { errorClass: 'self.error' });
    assert.ok(!helper.reasons.some((r) => r.includes('self.error')), helper.reasons.join('; '));
    assert.ok(helper.score < DEFAULT_MIN_CONFIDENCE);
  });

  it('source code is context by its own text (a window of a pytest report may not show its block)', () => {
    // lines as pytest (--tb=long) and tracebacks quote them, from test/fixtures/real/python-tracebacks.log
    for (const l of [
      '                raise JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)",',
      ">           raise BadZipFile(\"File is not a zip file\")",
      "                raise ValueError('stdin and input arguments may not both be used.')",
      '                    raise Empty',
      '        except KeyError:',
      '                msg = "strptime() argument {} must be str, not {}"',
      '                "metadata_encoding is only supported for reading files")',
      'Dec  1 09:00:44 web-1 worker[4206]:     raise child_exception_type(errno_num, err_msg, err_filename)',
      '    throw new TypeError(`Expected pattern to be a non-empty string`);',
      '\x1b[37m    \x1b[39;49;00m\x1b[34mraise\x1b[39;49;00m IllegalMonthError(month)',
    ]) assert.ok(looksLikeCode(l), l);
    // messages programs log, which may name the same words
    for (const l of [
      "ValueError: '256.0.0.1' does not appear to be an IPv4 or IPv6 address",
      '2026-12-01 09:00:01 ERROR job 1003 failed',
      'error = "connection refused"',
      "2026-12-01 09:00:01 WARN retry: raise the limit with --max-retries",
      'E   zipfile.BadZipFile: File is not a zip file',
      '"File is not a zip file"',
    ]) assert.ok(!looksLikeCode(l), l);
    const c = conf('File is not a zip file', '            raise BadZipFile("File is not a zip file")', { errorClass: 'zipfile.BadZipFile' });
    assert.equal(c.label, 'unlikely');
    assert.ok(c.score < DEFAULT_MIN_CONFIDENCE);
  });

  it('looksLikeCode is its forms read from the line\'s start and from its message\'s start: the quick test before them changes no answer (real logs, prefixes, keywords anywhere)', () => {
    // the definition: the forms at the start of the line's text, or a statement after its prefix
    const byForms = (line: string, from: number): boolean => {
      if (line.length > 4096) return false;
      const text = baseView(line).text;
      return CODE_STATEMENT.test(text) || CODE_INDENTED.test(text) || (from > 0 && CODE_STATEMENT.test(text.slice(Math.min(from, text.length))));
    };
    const lines: string[] = [];
    const real = path.join(__dirname, '..', 'fixtures', 'real');
    for (const f of ['python-tracebacks.log', 'node-stacks.log', 'tsc-output.log', ...fs.readdirSync(path.join(real, 'unrelated-logs')).map((x) => path.join('unrelated-logs', x))])
      lines.push(...fs.readFileSync(path.join(real, f), 'utf8').split('\n'));
    const prefixes = ['', '2026-12-01 10:00:00 ERROR ', 'Dec  1 09:00:44 host worker[42]: ', '[x] ', 'E   ', '>   ', '>', '    ', '\t', '\u00a0', '\v', '\t\t\t\t', '\u00a0\u00a0\u00a0\u00a0', 'web_1  | ', 'INFO: ', 'x '];
    const bodies = ['raise ValueError("x")', 'raise', 'raise X from e', 'throw new Error("x")', 'throw err(', 'except KeyError:', 'except:', 'except (A, B) as e:', 'msg = "hello"', '"… files")', 'x raise ValueError(1)', 'the raise of prices', 'throwing things', 'exception here:', '  raise X(', '>raise X(', 'retry: raise the limit'];
    for (const p of prefixes) for (const b of bodies) lines.push(p + b, p + b + '\r', p + ' ' + b);
    let code = 0;
    for (const l of lines) {
      if (l.indexOf('\x1b') >= 0) continue; // (a coloured line's prefix is read from its text: lineFacts)
      const want = byForms(l, messageStart(l));
      assert.equal(looksLikeCode(l), want, JSON.stringify(l));
      assert.equal(looksLikeCode(l, messageStart(l)), want, JSON.stringify(l));
      if (want) code++;
    }
    assert.ok(code > 100 && lines.length - code > 1000, `${code} of ${lines.length} code`);
  });

  it('a record whose file is in none of the trace\'s frames loses confidence (another file raises the same text)', () => {
    // real misses before this rule (test/fixtures/real/python-tracebacks.log, records of
    // `extract /usr/lib/python3.11`): pathlib's FileNotFoundError comes from C, and
    // importlib/resources/abc.py has a `raise FileNotFoundError` (a class-only record)
    const cases: [string, string, { errorClass: string; tags?: string[] }][] = [
      ['FileNotFoundError', "FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent/report.csv'", { errorClass: 'FileNotFoundError', tags: ['class-only'] }],
    ];
    for (const [message, line, rec] of cases) {
      const none = conf(message, line, { ...rec, role: 'exception', frameMatch: 'none' });
      const unknown = conf(message, line, { ...rec, role: 'exception' });
      const inFrames = conf(message, line, { ...rec, role: 'exception', frameMatch: 'file' });
      assert.ok(none.score < DEFAULT_MIN_CONFIDENCE, `${message}: ${none.score}`);
      assert.ok(unknown.score > none.score && inFrames.score > unknown.score, message);
      assert.ok(none.reasons.includes('its file is in none of the stack trace frames'), none.reasons.join('; '));
    }
    // a specific message with its class survives (frames of a build: compiled JS of a TS record)
    const specific = conf('no staged embedding for {route} req_id={req_id}', 'MMError: no staged embedding for /send req_id=req-7f3a9', { role: 'exception', frameMatch: 'none', errorClass: 'MMError' });
    assert.ok(specific.score >= DEFAULT_MIN_CONFIDENCE, String(specific.score));
  });

  it('a coloured line scores as its text without colours (prefix, marker and coverage read through the escapes)', () => {
    const plain = '2026-11-30 10:00:00.123 ERROR [db] connection to the upstream broker was refused after 3 attempts';
    const coloured = '\x1b[2m2026-11-30 10:00:00.123\x1b[0m \x1b[31mERROR\x1b[0m [db] connection to the upstream broker was refused after 3 attempts\x1b[0m';
    for (const message of ['connection to the upstream broker was refused after {n} attempts', 'broker was refused', '{x} refused']) {
      const a = conf(message, plain);
      const b = conf(message, coloured);
      assert.equal(b.score, a.score, message);
      assert.deepEqual(b.reasons, a.reasons, message);
    }
    assert.equal(lineFacts(coloured).marker, 'strong');
    assert.equal(coloured.slice(lineFacts(coloured).from), plain.slice(lineFacts(plain).from) + '\x1b[0m');
  });

  it('labels', () => {
    assert.equal(labelOf(0.9), 'likely');
    assert.equal(labelOf(0.5), 'possible');
    assert.equal(labelOf(0.1), 'unlikely');
  });
});

describe('confidence: the ceiling of a plain line (what lets scan skip most hits)', () => {
  // real records (errorClass and errorCode as extract and TypeScript's diagnostics give them) on
  // real lines: this machine's logs, tracebacks, Node stacks and tsc output
  const dir = path.join(__dirname, '../fixtures/real');
  const ts = (JSON.parse(fs.readFileSync(path.join(dir, 'typescript-records.json'), 'utf8')) as ErrorRecord[]).slice(0, 1500);
  const py = ['json', 'email', 'asyncio', 'http', 'logging', 'urllib', 'multiprocessing', 'importlib', 'unittest', 'xml', 'sqlite3', 'concurrent', 'distutils'].flatMap((d) => {
    try {
      return extractFromDir(path.join('/usr/lib/python3.11', d), { repo: 'python/cpython' }).records;
    } catch {
      return [];
    }
  });
  const records = [...ts, ...py];
  const engine = MatchEngine.build(records.map((r) => engineEntry(r)));
  const logs = [...fs.readdirSync(path.join(dir, 'unrelated-logs')).map((f) => path.join(dir, 'unrelated-logs', f)), ...['python-tracebacks.log', 'node-stacks.log', 'tsc-output.log'].map((f) => path.join(dir, f))];
  const lines = logs.flatMap((f) => fs.readFileSync(f, 'utf8').split('\n'));

  it('scoresAtLeast is scoreOfBits(bits) >= min, also at the threshold and between rounding steps', () => {
    let seed = 3;
    const r = (): number => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    for (const min of [-1, 0, 0.0004, 0.0005, 0.001, 0.05, 0.3, 1 / 3, 0.5, 0.5004, 0.5005, 0.8, 0.999, 0.9995, 1, 1.2]) {
      const t = scoreThreshold(min);
      const bits: number[] = [-10, 0, 17.999, 18, 18.000001, 100, 1000, 1e9];
      for (let i = 0; i < 3000; i++) bits.push(r() * 120 - 10);
      // around the threshold: the exact float neighbours the rounding turns on
      if (Number.isFinite(t)) for (let d = -2e-6; d <= 2e-6; d += 1e-7) bits.push(t + d, t + d * 1e-3);
      let above = 0;
      for (const b of bits) {
        const want = scoreOfBits(b) >= min;
        assert.equal(scoresAtLeast(b, min, t), want, `min ${min}, bits ${b}: score ${scoreOfBits(b)}`);
        if (want) above++;
      }
      // (both sides are there where both can be)
      if (min > 0 && min <= 0.999) assert.ok(above > 0 && above < bits.length, `min ${min}: ${above} of ${bits.length}`);
    }
  });

  it('no score on a plain line exceeds its ceiling, and PlainScorer counts what scoring every hit counts', () => {
    let matched = 0;
    let skipped = 0;
    let classSkips = 0;
    const scorers = new Map([0, 0.05, 0.3, DEFAULT_MIN_CONFIDENCE, 0.8].map((min) => [min, new PlainScorer((e) => records[e]!, records.length, min)]));
    for (const line of lines) {
      const ms = engine.matchLine(line);
      if (!ms.length) continue;
      matched++;
      const hits = { count: ms.length, entry: (i: number) => ms[i]!.entry, start: (i: number) => ms[i]!.start, end: (i: number) => ms[i]!.end };
      const all = ms.map((m) => {
        const r = records[m.entry]!;
        const codeInLine = r.errorCode ? hasToken(line, r.errorCode) : false;
        const score = confidenceScore(r, { start: m.start, end: m.end, codeInLine }, line);
        const ceiling = plainScoreCeiling(r, codeInLine);
        assert.ok(score <= ceiling, `${r.messagePattern} on ${JSON.stringify(line)}: score ${score} above its ceiling ${ceiling}`);
        // (and the ceiling that knows whether the record's class is on the line)
        const withClass = plainScoreCeiling(r, codeInLine, classInLine(line, r.errorClass));
        assert.ok(score <= withClass && withClass <= ceiling, `${r.messagePattern} on ${JSON.stringify(line)}: score ${score}, ceiling with the class looked for ${withClass}`);
        if (withClass < DEFAULT_MIN_CONFIDENCE && ceiling >= DEFAULT_MIN_CONFIDENCE) classSkips++;
        return { score, ceiling };
      });
      for (const min of [0, 0.05, 0.3, DEFAULT_MIN_CONFIDENCE, 0.8]) {
        const want = all.filter((x) => x.score >= min).length;
        const scorer = scorers.get(min)!;
        assert.equal(scorer.score(hits, line), want, `${JSON.stringify(line)} at ${min}`);
        // (confident(k) first: it answers without the exact score where scoreOf would work it out)
        for (let k = 0; k < ms.length; k++) assert.equal(scorer.confident(k), all[k]!.score >= min, `${JSON.stringify(line)} hit ${k} at ${min}`);
        for (let k = 0; k < ms.length; k++) if (all[k]!.score >= min) assert.equal(scorer.scoreOf(k), all[k]!.score);
        if (want > 0) assert.deepEqual(scorer.facts, lineFacts(line), 'the facts a reporter reuses');
        if (min === DEFAULT_MIN_CONFIDENCE) skipped += all.filter((x) => x.ceiling < min).length;
      }
    }
    // the material exercises both sides: lines with matches, and hits the ceiling rules out
    assert.ok(matched > 150, `${matched} matched lines`);
    assert.ok(skipped > 20, `${skipped} hits below their ceiling`);
    assert.ok(classSkips > 20, `${classSkips} hits only their class on the line could lift to the threshold`);
  });
});
