// extract: raise sites -> skeleton records, on fixtures of the five languages and on real code
// shipped in node_modules (whose errors, thrown for real, must match back to their sites).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Catalog } from '../../server/src/core/catalog';
import { errLookupId, errLookupSlug, extractFromDir, extractFromText, findRaiseSites, formatRecords } from '../../server/src/core/extract';
import type { ErrorRecord } from '../../server/src/core/record';
import { renderRecord } from '../../server/src/core/render';
import { parseRecordText } from '../../server/src/core/loader';

const ROOT = path.join(__dirname, '..', '..');
const FIX = path.join(ROOT, 'test', 'fixtures', 'extract', 'src');
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
    expectSite('quota of {str(account.quota)} requests exceeded', 'py/billing.py', 'raise QuotaExceeded(', 'QuotaExceeded', 'exception');
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
    const bundled = JSON.parse(fs.readFileSync(path.join(ROOT, 'records', 'sgl-project', 'sglang.json'), 'utf8')) as ErrorRecord[];
    assert.ok(bundled.length > 0);
    for (const b of bundled) {
      assert.equal(errLookupId(b.repo, b.errorCode, b.errorMessage, b.filePath!), b.id);
      assert.equal(errLookupSlug(b.errorCode, b.errorMessage), b.slug);
    }
  });

  it('the bundled sglang raise site, extracted from its own source excerpt, gives the bundled message and pattern', () => {
    const bundled = JSON.parse(fs.readFileSync(path.join(ROOT, 'records', 'sgl-project', 'sglang.json'), 'utf8')) as ErrorRecord[];
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
