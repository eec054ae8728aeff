// extract: raise sites -> skeleton records, on fixtures of the five languages and on real code
// shipped in node_modules (whose errors, thrown for real, must match back to their sites).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Catalog } from '../../server/src/core/catalog';
import { errLookupId, errLookupSlug, extractFromDir, extractFromText, findRaiseSites, formatRecords, listSourceFiles } from '../../server/src/core/extract';
import type { ErrorRecord } from '../../server/src/core/record';
import { renderRecord } from '../../server/src/core/render';
import { parseRecordText } from '../../server/src/core/load';
import { REPO } from '../shared/paths';

const FIX = path.join(REPO, 'test', 'fixtures', 'extract', 'src');
const SHA = '1111111111111111111111111111111111111111';

/** 1-based line of the first occurrence of `needle` in a file. */
function lineOf(file: string, needle: string): number {
  const text = fs.readFileSync(file, 'utf8');
  const at = text.indexOf(needle);
  assert.ok(at >= 0, `${needle} in ${file}`);
  return text.slice(0, at).split('\n').length;
}

describe('extract: raise sites of five languages', () => {
  const result = extractFromDir(FIX, { repo: 'acme/shop', sha: SHA });
  const byMsg = new Map(result.records.map((r) => [r.errorMessage, r]));
  function expectSite(message: string, file: string, needle: string, errorClass: string | null, errorType: string): ErrorRecord {
    const r = byMsg.get(message);
    assert.ok(r, `record for ${JSON.stringify(message)}; got ${[...byMsg.keys()].map((k) => JSON.stringify(k)).join(', ')}`);
    assert.equal(r.filePath, file);
    assert.equal(r.lineNumber, lineOf(path.join(FIX, file), needle));
    assert.equal(r.errorClass, errorClass);
    assert.equal(r.errorType, errorType);
    return r;
  }

  it('finds exactly the raise sites (none in comments or strings)', () => {
    assert.equal(result.records.length, 17, result.records.map((r) => `${r.filePath}:${r.lineNumber} ${r.errorMessage}`).join('\n'));
    assert.deepEqual(result.skipped, []);
    for (const r of result.records) assert.doesNotMatch(r.errorMessage, /not a (real|site)|commented out|in a string|a comment/);
  });

  it('Python: f-strings, split lines with implicit concatenation, % formatting, + str(), keyword message', () => {
    const f = expectSite('amount must be positive, got {amount!r}', 'py/billing.py', 'raise ValueError(f"amount', 'ValueError', 'exception');
    assert.equal(f.messagePattern, 'amount must be positive, got (.+?)');
    const split = expectSite('account {account.id} is frozen until the next billing cycle', 'py/billing.py', 'raise PermissionError(', 'PermissionError', 'exception');
    assert.equal(split.messagePattern, 'account (.+?) is frozen until the next billing cycle');
    expectSite('unsupported currency: %s', 'py/billing.py', 'raise ValueError("unsupported', 'ValueError', 'exception');
    expectSite('quota of {str(account.quota)} requests exceeded', 'py/billing.py', 'raise QuotaExceeded(', 'billing.QuotaExceeded', 'exception');
    expectSite('account has no billing region configured', 'py/billing.py', 'raise errors.BillingError(', 'errors.BillingError', 'exception');
  });

  it('JavaScript/TypeScript: string, template literal (message after a status argument), concatenation', () => {
    expectSite('missing route parameter "id"', 'web/routes.ts', "throw new TypeError('missing", 'TypeError', 'exception');
    const t = expectSite('user ${id} not found in ${users.size} users', 'web/routes.ts', 'throw new HttpError(', 'HttpError', 'exception');
    assert.equal(t.messagePattern, 'user (.+?) not found in (.+?) users');
    expectSite('user name longer than 64 characters', 'web/routes.ts', 'throw new RangeError(', 'RangeError', 'exception');
  });

  it('Go: errors.New and fmt.Errorf (interpreted and raw strings)', () => {
    expectSite('store: already closed', 'gosvc/store.go', 'errors.New("store', null, 'error_code');
    const q = expectSite('store: empty key for bucket %q', 'gosvc/store.go', 'fmt.Errorf("store: empty', null, 'error_code');
    assert.equal(q.messagePattern, 'store: empty key for bucket (.+?)');
    const raw = expectSite('store: key %s not found (%d items)', 'gosvc/store.go', 'fmt.Errorf(`store', null, 'error_code');
    assert.equal(raw.messagePattern, 'store: key (.+?) not found \\((.+?) items\\)');
  });

  it('Java: literal, concatenation -> {expr}, String.format', () => {
    expectSite('orderId must not be null', 'java/com/acme/Orders.java', 'throw new IllegalArgumentException', 'IllegalArgumentException', 'exception');
    const c = expectSite('Order {orderId} does not exist', 'java/com/acme/Orders.java', 'throw new OrderNotFoundException', 'OrderNotFoundException', 'exception');
    assert.equal(c.messagePattern, 'Order (.+?) does not exist');
    expectSite('Order %s was cancelled at %s', 'java/com/acme/Orders.java', 'throw new IllegalStateException', 'IllegalStateException', 'exception');
  });

  it('Rust: bail!, anyhow!, panic! (lifetimes and char literals do not confuse the lexer)', () => {
    expectSite('port must not be empty', 'rust/lib.rs', 'bail!(', null, 'error_code');
    expectSite('invalid port {:?}: {}', 'rust/lib.rs', 'anyhow!(', null, 'error_code');
    const p = expectSite('port {n} out of range (max 65535)', 'rust/lib.rs', 'panic!("port', null, 'panic');
    assert.equal(p.messagePattern, 'port (.+?) out of range \\(max 65535\\)');
  });

  it('records: ErrLookup id and slug, ±18 lines of source, pinned githubUrl, no invented explanation', () => {
    const r = byMsg.get('account {account.id} is frozen until the next billing cycle')!;
    assert.equal(r.id, errLookupId('acme/shop', null, r.errorMessage, 'py/billing.py'));
    assert.match(r.id, /^[0-9a-f]{16}$/);
    assert.equal(r.slug, 'account-account-id-is-frozen-until-the-next-bill');
    assert.equal(r.repo, 'acme/shop');
    const lines = fs.readFileSync(path.join(FIX, 'py/billing.py'), 'utf8').split('\n');
    assert.equal(r.sourceCodeStart, 1, 'clamped at the top of the file');
    assert.equal(r.sourceCodeEnd, Math.min(lines.length, r.lineNumber! + 18));
    assert.equal(r.sourceCode, lines.slice(0, r.sourceCodeEnd!).join('\n'));
    assert.equal(r.githubUrl, `https://github.com/acme/shop/blob/${SHA}/py/billing.py#L${r.sourceCodeStart}-L${r.sourceCodeEnd}`);
    assert.equal(r.analyzedSha, SHA);
    assert.equal(r.severity, 'error');
    assert.equal(r.documentation, null);
    assert.deepEqual(r.solutions, []);
    assert.equal(r.schemaVersion, 2);
    const noSha = extractFromDir(FIX, { repo: 'acme/shop' });
    assert.ok(noSha.records.every((x) => x.githubUrl === null && x.analyzedSha === null));
  });

  it('ids and slugs follow ErrLookup exactly (checked against the bundled records)', () => {
    const bundled = JSON.parse(fs.readFileSync(path.join(REPO, 'records', 'sgl-project', 'sglang.json'), 'utf8')) as ErrorRecord[];
    assert.ok(bundled.length > 0);
    for (const b of bundled) {
      assert.equal(errLookupId(b.repo, b.errorCode, b.errorMessage, b.filePath!), b.id);
      assert.equal(errLookupSlug(b.errorCode, b.errorMessage), b.slug);
    }
  });

  it('the bundled sglang raise site, extracted from its own source excerpt, gives the bundled message and pattern', () => {
    const bundled = JSON.parse(fs.readFileSync(path.join(REPO, 'records', 'sgl-project', 'sglang.json'), 'utf8')) as ErrorRecord[];
    const b = bundled.find((x) => x.id === '063d2eac5107dda5')!;
    const sites = findRaiseSites(b.sourceCode!, 'python');
    const site = sites.find((s) => b.sourceCodeStart! + s.line - 1 === b.lineNumber);
    assert.ok(site, JSON.stringify(sites));
    assert.equal(site.message, b.errorMessage);
    const { records } = extractFromText(b.sourceCode!, b.filePath!, { repo: b.repo });
    const rec = records.find((r) => r.errorMessage === b.errorMessage)!;
    assert.equal(rec.messagePattern, b.messagePattern);
    assert.equal(rec.id, b.id);
  });

  it('the hover of a skeleton record says it has no explanation yet and shows the raise site and code', () => {
    const r = byMsg.get('Order {orderId} does not exist')!;
    const md = renderRecord(r, { compact: true });
    assert.match(md, /No explanation written yet/);
    assert.ok(md.includes(`…/acme/Orders.java:${r.lineNumber}`), 'the last two segments of the path (the record view has all of it)');
    assert.ok(md.includes(r.githubUrl!));
    assert.ok(md.includes('throw new OrderNotFoundException("Order " + orderId + " does not exist");'));
  });

  it('the output is valid under the strict (ErrLookup) record rules', () => {
    const res = parseRecordText(formatRecords(result.records), 'records.json', { strict: true });
    assert.deepEqual(res.problems.filter((p) => p.severity !== 'info'), []);
    assert.equal(res.records.length, 17);
  });

  it('is deterministic: the same tree gives byte-identical output', () => {
    const a = formatRecords(extractFromDir(FIX, { repo: 'acme/shop', sha: SHA }).records);
    const b = formatRecords(extractFromDir(FIX, { repo: 'acme/shop', sha: SHA }).records);
    assert.equal(a, b);
    const paths = JSON.parse(a).map((r: ErrorRecord) => `${r.filePath}:${String(r.lineNumber).padStart(6, '0')}`);
    assert.deepEqual(paths, [...paths].sort(), 'sorted by file, then line');
  });

  it('skips sites whose message is too short to be a safe pattern, and says why', () => {
    const { records, skipped } = extractFromText('if x:\n    raise KeyError("id")\n', 'a.py', { repo: 'a/b' });
    assert.deepEqual(records, []);
    assert.equal(skipped.length, 1);
    assert.equal(skipped[0]!.line, 2);
  });
});

describe('extract: real code in node_modules, matched back when thrown for real', () => {
  function extractPackage(pkg: string, repo: string): Catalog & { byId: Map<string, ErrorRecord> } {
    const dir = path.dirname(require.resolve(`${pkg}/package.json`));
    const { records } = extractFromDir(dir, { repo });
    assert.ok(records.length > 0);
    const c = new Catalog(records) as Catalog & { byId: Map<string, ErrorRecord> };
    c.byId = new Map(records.map((r) => [r.id, r]));
    return c;
  }
  function thrown(fn: () => unknown): Error {
    try {
      fn();
    } catch (e) {
      return e as Error;
    }
    assert.fail('expected a throw');
  }
  /** The log line of an uncaught error (Node prints the stack's first line). */
  function logLine(e: Error): string {
    return `Uncaught ${String(e.stack).split('\n')[0]}`;
  }
  function matchesSite(c: Catalog, line: string, pkg: string, file: string, needle: string): ErrorRecord {
    const matches = c.matchLine(line);
    assert.ok(matches.length > 0, `no record matches ${line}`);
    const top = matches[0]!.record;
    const dir = path.dirname(require.resolve(`${pkg}/package.json`));
    assert.equal(top.filePath, file);
    assert.equal(top.lineNumber, lineOf(path.join(dir, file), needle));
    return top;
  }

  it('picomatch: TypeError for an empty pattern and SyntaxError for an over-long one (template literal)', () => {
    const c = extractPackage('picomatch', 'micromatch/picomatch');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const picomatch = require('picomatch') as (p: string) => unknown;
    const e1 = thrown(() => picomatch(''));
    const r1 = matchesSite(c, logLine(e1), 'picomatch', 'lib/picomatch.js', "throw new TypeError('Expected pattern to be a non-empty string')");
    assert.equal(r1.errorClass, e1.name);
    const e2 = thrown(() => picomatch('a'.repeat(70000)));
    const line2 = logLine(e2);
    const r2 = matchesSite(c, line2, 'picomatch', 'lib/parse.js', 'throw new SyntaxError(`Input length: ${len}');
    assert.equal(r2.errorClass, e2.name);
    const m = c.matchLine(line2)[0]!.match;
    assert.deepEqual(m.captures.map((x) => x.value), ['70000', '65536']);
  });

  it('jsonc-parser: "Overlapping edit" and a template literal with nested quotes and a ternary', () => {
    const c = extractPackage('jsonc-parser', 'microsoft/node-jsonc-parser');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const jsonc = require('jsonc-parser') as typeof import('jsonc-parser');
    const pkgMain = path.relative(path.dirname(require.resolve('jsonc-parser/package.json')), require.resolve('jsonc-parser')).split(path.sep).join('/');
    const e1 = thrown(() => jsonc.applyEdits('abc', [{ offset: 0, length: 2, content: 'x' }, { offset: 1, length: 1, content: 'y' }]));
    matchesSite(c, logLine(e1), 'jsonc-parser', pkgMain, "throw new Error('Overlapping edit')");
    const e2 = thrown(() => jsonc.modify('"x"', [0], 1, {}));
    const editFile = path.posix.join(path.posix.dirname(pkgMain), 'impl/edit.js');
    const r2 = matchesSite(c, logLine(e2), 'jsonc-parser', editFile, 'throw new Error(`Can not add ${typeof lastSegment');
    assert.match(r2.errorMessage, /^Can not add \$\{typeof lastSegment !== 'number' \? 'index' : 'property'\} to parent of type \$\{parent\.type\}$/);
  });
});

describe('extract: messages written in exception classes, class-only records, helpers', () => {
  const CLS = path.join(REPO, 'test', 'fixtures', 'extract', 'classes');
  const result = extractFromDir(CLS, { repo: 'acme/shop', sha: SHA });
  const at = (file: string, message: string): ErrorRecord => {
    const r = result.records.find((x) => x.filePath === file && x.errorMessage === message);
    assert.ok(r, `${file}: ${JSON.stringify(message)}; got\n${result.records.map((x) => `${x.filePath}:${x.lineNumber} ${JSON.stringify(x.errorMessage)}`).join('\n')}`);
    return r;
  };
  const inFile = (file: string): string[] => result.records.filter((x) => x.filePath === file).map((x) => x.errorMessage);

  it('Python: __init__ passing a message to the base class, __str__, a default parameter, a class attribute', () => {
    const f = 'shop/errors.py';
    const nosec = at(f, 'No section: %r');
    assert.equal(nosec.lineNumber, lineOf(path.join(CLS, f), "Error.__init__(self, 'No section"));
    assert.equal(nosec.errorClass, 'shop.errors.NoSectionError', 'module (shop/ has __init__.py) + class, as Python prints it');
    assert.equal(nosec.messagePattern, 'No section: (.+?)');
    assert.deepEqual(nosec.tags, ['class-message']);
    assert.equal(at(f, 'bad month number %r; must be 1-12').lineNumber, lineOf(path.join(CLS, f), 'return "bad month number'));
    assert.equal(at(f, 'Invalid file').errorClass, 'shop.errors.InvalidFileException');
    assert.equal(at(f, 'payment declined by {provider} (code {code})').messagePattern, 'payment declined by (.+?) \\(code (.+?)\\)');
    // the message is the base call's third argument, assigned to a local first
    at(f, 'Bad value substitution: option {!r} in section {!r} refers to a missing option');
    assert.equal(at(f, 'rate limit exceeded, retry later').errorClass, 'shop.errors.RateLimited');
    // every return of __str__
    at(f, "Command '%s' died with %r.");
    at(f, "Command '%s' returned non-zero exit status %d.");
    const msgs = inFile(f);
    assert.ok(!msgs.some((m) => m.includes('Point(')), 'a class that is no exception has no message');
    assert.ok(!msgs.some((m) => m.includes('only a warning')), 'warning classes are not errors');
    assert.equal(msgs.length, 8, msgs.join('\n'));
  });

  it('Python: class-only records for raises without a message, named as Python prints them; control flow skipped', () => {
    const empty = at('shop/queueing.py', '_queue.Empty');
    assert.equal(empty.errorClass, '_queue.Empty', 'the import wins over the fallback class (from _queue import Empty)');
    assert.equal(empty.messagePattern, '_queue\\.Empty');
    assert.deepEqual(empty.tags, ['class-only']);
    assert.equal(empty.lineNumber, lineOf(path.join(CLS, 'shop/queueing.py'), 'raise Empty'));
    assert.equal(at('shop/queueing.py', 'shop.queueing.Full').lineNumber, lineOf(path.join(CLS, 'shop/queueing.py'), 'raise Full()'));
    // StopIteration, SystemExit and `raise err` (a variable) are not error classes
    assert.deepEqual(inFile('shop/queueing.py').sort(), ['_queue.Empty', 'shop.queueing.Full']);
    // re-exported: worker.py imports Empty from .queueing, which imports it from _queue
    assert.equal(at('shop/worker.py', '_queue.Empty').errorClass, '_queue.Empty');
  });

  it('Python: a local assigned before the raise, helpers, gettext, an exception built without raise, a class of another module', () => {
    const f = 'shop/worker.py';
    const file = path.join(CLS, f);
    assert.equal(at(f, 'unknown job kind %r').lineNumber, lineOf(file, 'raise ValueError(msg)'));
    const fail = at(f, 'no job given to the worker');
    assert.equal(fail.errorClass, 'shop.errors.Error', 'the helper raises errors.Error (from . import errors)');
    assert.equal(fail.lineNumber, lineOf(file, '_fail("no job given'));
    assert.equal(at(f, 'line {self.lineno}: empty document').lineNumber, lineOf(file, 'self.error("empty document")'), 'a method helper, called on self');
    assert.equal(at(f, 'cannot run job %s').errorClass, 'RuntimeError');
    assert.equal(at(f, 'job %s timed out').lineNumber, lineOf(file, 'return TimeoutError('));
    // raised here, written in shop/errors.py: a record at the raise, in the raising file
    const declined = at(f, 'payment declined by {provider} (code {code})');
    assert.equal(declined.lineNumber, lineOf(file, 'raise errors.PaymentDeclined('));
    assert.equal(declined.errorClass, 'shop.errors.PaymentDeclined');
    assert.notEqual(declined.id, at('shop/errors.py', declined.errorMessage).id);
  });

  it('JS/TS: super(...) in error classes, a default parameter, this.message; factories; helpers; class-only', () => {
    const f = 'web/errors.ts';
    const file = path.join(CLS, f);
    const http = at(f, 'request to ${url} failed with status ${status}');
    assert.equal(http.errorClass, 'HttpError');
    assert.equal(http.lineNumber, lineOf(file, 'super(`request to'));
    assert.equal(at(f, 'operation timed out').errorClass, 'Timeout');
    assert.equal(at(f, 'operation cancelled by the user').errorClass, 'Cancelled');
    const range = at(f, 'Invalid range arguments: {JSON.stringify(args)}');
    assert.equal(range.errorClass, 'RangeError');
    assert.equal(range.lineNumber, lineOf(file, "return new RangeError('Invalid range"), 'the factory line (the first `at` frame)');
    assert.equal(at(f, 'negative values are not allowed').lineNumber, lineOf(file, "fail('negative"));
    assert.deepEqual(at(f, 'AbortError').tags, ['class-only']);
    const cmd = at(f, "error: missing required argument '${name}'");
    assert.equal(cmd.errorClass, 'CommanderError', 'missingArgument -> this.error(message) -> this._exit(…, message) -> new CommanderError');
    assert.equal(cmd.lineNumber, lineOf(file, 'this.error(message'));
    // hook(event) validates a value: its callers' literals are not messages
    assert.ok(!inFile(f).some((m) => m.includes('postAction')));
    assert.ok(!inFile(f).some((m) => m.includes('404')), 'NotFound passes no literal message');
  });

  it('Java: super("…" + x) in an exception class; throw new X() without a message', () => {
    const f = 'java/InsufficientFundsException.java';
    assert.equal(at(f, 'account {account} is short by {missing} cents').messagePattern, 'account (.+?) is short by (.+?) cents');
    assert.deepEqual(at(f, 'ConcurrentModificationException').tags, ['class-only']);
  });

  it('is deterministic, sorted, and valid under the strict (ErrLookup) rules', () => {
    const a = formatRecords(result.records);
    assert.equal(formatRecords(extractFromDir(CLS, { repo: 'acme/shop', sha: SHA }).records), a);
    const keys = result.records.map((r) => `${r.filePath}:${String(r.lineNumber).padStart(6, '0')}`);
    assert.deepEqual(keys, [...keys].sort());
    const res = parseRecordText(a, 'records.json', { strict: true });
    assert.deepEqual(res.problems.filter((p) => p.severity !== 'info'), []);
    assert.equal(new Set(result.records.map((r) => r.id)).size, result.records.length);
  });

  it('a message of several lines gets the pattern of its first line (logs are matched line by line)', () => {
    const { records } = extractFromText('class ReadError(Exception):\n    pass\n\n\ndef f(s):\n    raise ReadError(f"file could not be opened successfully:\\n{s}")\n', 'tarfile.py', { repo: 'a/b' }, { module: 'tarfile' });
    assert.equal(records[0]!.errorMessage, 'file could not be opened successfully:\n{s}');
    assert.equal(records[0]!.messagePattern, 'file could not be opened successfully:');
    assert.equal(records[0]!.errorClass, 'tarfile.ReadError');
  });
});

describe('extract: the named real cases (this machine\'s Python standard library and node_modules)', () => {
  const STDLIB = '/usr/lib/python3.11';
  const REAL = path.join(REPO, 'test', 'fixtures', 'real');
  function pyFile(rel: string): ErrorRecord[] {
    const text = fs.readFileSync(path.join(STDLIB, rel), 'utf8');
    return extractFromText(text, rel, { repo: 'python/cpython' }, { module: rel.replace(/\.py$/, '').split('/').join('.') }).records;
  }
  function nodeFile(rel: string): ErrorRecord[] {
    return extractFromText(fs.readFileSync(path.join(REPO, 'node_modules', rel), 'utf8'), rel, { repo: 'npm/node_modules' }).records;
  }
  /** The exception lines of the committed real corpus, by block id. */
  function exceptionLine(corpus: 'python-tracebacks' | 'node-stacks', id: string): string {
    const truth = JSON.parse(fs.readFileSync(path.join(REAL, `${corpus}.truth.json`), 'utf8')) as { blocks: { id: string; exceptionLine: number }[] };
    const b = truth.blocks.find((x) => x.id === id)!;
    return fs.readFileSync(path.join(REAL, `${corpus}.log`), 'utf8').split('\n')[b.exceptionLine - 1]!;
  }
  function explains(records: ErrorRecord[], line: string, message: string): void {
    const top = new Catalog(records).matchLine(line).map((m) => m.record.errorMessage);
    assert.ok(top.includes(message), `${JSON.stringify(line)} is matched by ${JSON.stringify(message)}; got ${JSON.stringify(top)}`);
  }
  const havePython = fs.existsSync(path.join(STDLIB, 'configparser.py'));

  (havePython ? it : it.skip)('configparser.NoSectionError, calendar.IllegalMonthError, plistlib.InvalidFileException, _queue.Empty', () => {
    const cp = pyFile('configparser.py');
    const nosec = cp.find((r) => r.errorClass === 'configparser.NoSectionError')!;
    assert.equal(nosec.errorMessage, 'No section: %r');
    assert.equal(nosec.filePath, 'configparser.py');
    explains(cp, exceptionLine('python-tracebacks', 'configparser_no_section'), 'No section: %r');
    const cal = pyFile('calendar.py');
    assert.equal(cal.find((r) => r.errorClass === 'calendar.IllegalMonthError')!.errorMessage, 'bad month number %r; must be 1-12');
    explains(cal, exceptionLine('python-tracebacks', 'calendar_bad_month'), 'bad month number %r; must be 1-12');
    const pl = pyFile('plistlib.py');
    assert.ok(pl.some((r) => r.errorClass === 'plistlib.InvalidFileException' && r.errorMessage === 'Invalid file'));
    explains(pl, exceptionLine('python-tracebacks', 'plistlib_junk'), 'Invalid file');
    const q = pyFile('queue.py');
    const empty = q.find((r) => r.errorMessage === '_queue.Empty')!;
    assert.deepEqual([empty.errorClass, empty.tags, empty.filePath], ['_queue.Empty', ['class-only'], 'queue.py']);
    explains(q, exceptionLine('python-tracebacks', 'queue_get_nowait'), '_queue.Empty');
    assert.ok(q.some((r) => r.errorMessage === 'queue.Full'), 'queue.Full (defined in queue.py)');
  });

  it("commander's missing required argument (a local, then this.error) and fill-range's factory", () => {
    const cmd = nodeFile('commander/lib/command.js');
    const miss = cmd.find((r) => r.errorMessage === "error: missing required argument '${name}'")!;
    assert.ok(miss);
    assert.equal(miss.errorClass, 'CommanderError');
    assert.equal(miss.lineNumber, lineOf(path.join(REPO, 'node_modules/commander/lib/command.js'), 'this.error(message, { code: \'commander.missingArgument\' })'));
    explains(cmd, exceptionLine('node-stacks', 'commander_missing_argument'), miss.errorMessage);
    const fill = nodeFile('fill-range/index.js');
    const inv = fill.find((r) => r.errorMessage.startsWith('Invalid range arguments: '))!;
    assert.ok(inv);
    assert.equal(inv.errorClass, 'RangeError');
    assert.equal(inv.lineNumber, lineOf(path.join(REPO, 'node_modules/fill-range/index.js'), "return new RangeError('Invalid range arguments: '"));
    explains(fill, exceptionLine('node-stacks', 'fill_range_invalid'), inv.errorMessage);
  });

  it('a package nested in another package\'s node_modules is extracted when the folder is a node_modules', () => {
    const files = listSourceFiles(path.join(REPO, 'node_modules'));
    assert.ok(files.includes('micromatch/node_modules/picomatch/lib/picomatch.js'));
    assert.ok(!listSourceFiles(path.join(REPO, 'test', 'fixtures')).some((f) => f.includes('node_modules/')));
  });
});

describe('extract: cost stays linear on minified code', () => {
  /** One line of `n` helper functions, each called with a literal (what a bundle looks like). */
  function bundle(n: number): string {
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(`function f${i}(msg){if(msg)throw new Error(msg)}class E${i} extends Error{constructor(){super("error number ${i} happened")}}f${i}("message number ${i} was sent");`);
    return parts.join('');
  }
  function cpuMs(fn: () => void): number {
    const t = process.cpuUsage();
    fn();
    const d = process.cpuUsage(t);
    return (d.user + d.system) / 1000;
  }

  it('4x the code costs about 4x (not 16x), and every site is found', () => {
    const small = bundle(1000);
    const large = bundle(4000);
    let n = 0;
    const a = cpuMs(() => (n = extractFromText(small, 'dist/bundle.js', { repo: 'a/b' }).records.length));
    assert.equal(n, 2 * 1000, 'a class message and a helper call per function (the helper\'s own throw has no literal)');
    const b = cpuMs(() => (n = extractFromText(large, 'dist/bundle.js', { repo: 'a/b' }).records.length));
    assert.equal(n, 2 * 4000);
    assert.ok(b < a * 10 + 200, `small ${a.toFixed(0)} ms, large ${b.toFixed(0)} ms`);
  });
});
