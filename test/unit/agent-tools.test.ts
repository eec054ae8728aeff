// core/agent: the tools agents call (MCP server, VS Code language-model tool), on the bundled
// records: exact matches first with captures and confidence, then search; full records; grouping
// of pasted output; log scans grouped by record; and every bad argument as an error result.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Catalog } from '../../server/src/core/catalog';
import { type AgentEnv, callTool, groupBlocks, TOOLS } from '../../server/src/core/agent/tools';
import { argumentProblem } from '../../server/src/core/agent/validate';
import type { ErrorRecord } from '../../server/src/core/record';
import bundled from '../../records/sgl-project/sglang.json';
import { tempDir } from '../shared/paths';

const seeds = bundled as unknown as ErrorRecord[];
const SENT = '063d2eac5107dda5';
const META = '12c38bb1afed0ec1';
const COUNT = 'a5259f8458270c81';
const sentLine = (id: string): string => `[2026-08-28 05:10:05 MM-Encoder] ERROR: MMError: no staged embedding for /send req_id=${id} (already released)`;

function envWith(records: ErrorRecord[], extra: Partial<AgentEnv> = {}): AgentEnv {
  const catalog = new Catalog(records);
  return {
    cwd: os.tmpdir(),
    catalog: () => catalog,
    scanCatalog: () => catalog,
    records: () => catalog.records,
    sources: () => [{ origin: 'bundled', path: '/x/records', records: records.length }],
    ...extra,
  };
}

const other: ErrorRecord = {
  ...structuredClone(seeds[0]!),
  id: 'ffff000000000001',
  repo: 'acme/pay',
  slug: 'payment-declined',
  errorCode: 'E_DECLINED',
  errorClass: 'PaymentError',
  errorMessage: 'payment {payment_id} declined by {provider}',
  messagePattern: 'payment (.+?) declined by (.+?)',
  documentation: 'The card issuer refused the payment.',
};

describe('agent tools', () => {
  const env = envWith([...seeds.map((r) => structuredClone(r)), structuredClone(other)]);
  const data = (r: { data?: Record<string, unknown> }) => r.data as Record<string, any>;

  it('every tool has a name, a one-line description and an object schema without extra properties', () => {
    assert.deepEqual(
      TOOLS.map((t) => t.name),
      ['search_error', 'get_error', 'explain_text', 'scan_log', 'list_repos', 'refresh_dataset'],
    );
    for (const t of TOOLS) {
      assert.ok(t.description.length > 40 && !t.description.includes('\n'), t.name);
      assert.equal(t.inputSchema.type, 'object');
      assert.equal(t.inputSchema.additionalProperties, false);
      for (const [k, p] of Object.entries(t.inputSchema.properties)) assert.ok(p.description, `${t.name}.${k}`);
    }
  });

  describe('search_error', () => {
    it('answers from the exact matcher first, with captures and confidence', async () => {
      const r = await callTool(env, 'search_error', { message: sentLine('7d1c0a52') });
      assert.equal(r.isError, undefined);
      const [first] = data(r)['results'];
      assert.equal(first.id, SENT);
      assert.equal(first.kind, 'match');
      assert.deepEqual(first.captures, [{ name: 'req_id', value: '7d1c0a52' }]);
      assert.ok(first.confidence.score >= 0.5 && first.confidence.score <= 1);
      assert.equal(first.confidence.label, 'likely');
      assert.match(r.text, /exact match on line 1/);
      assert.match(r.text, /req\\_id = `7d1c0a52`/);
    });

    it('then by error code and words; repo filters; limit caps', async () => {
      const byCode = await callTool(env, 'search_error', { message: 'E_DECLINED' });
      assert.equal(data(byCode)['results'][0].id, other.id);
      assert.equal(data(byCode)['results'][0].kind, 'code');
      const words = await callTool(env, 'search_error', { message: 'staged embedding released' });
      assert.equal(data(words)['results'][0].id, SENT);
      assert.equal(data(words)['results'][0].kind, 'fuzzy');
      const filtered = await callTool(env, 'search_error', { message: sentLine('1'), repo: 'acme/pay' });
      assert.ok(data(filtered)['results'].every((x: { repo: string }) => x.repo === 'acme/pay'));
      const two = `${sentLine('1')}\nMMError: encode metadata not ready\npayment p1 declined by visa`;
      const all = await callTool(env, 'search_error', { message: two });
      assert.deepEqual(
        data(all)['results'].map((x: { id: string }) => x.id).sort(),
        [SENT, META, other.id].sort(),
      );
      const one = await callTool(env, 'search_error', { message: two, limit: 1 });
      assert.equal(data(one)['results'].length, 1);
      const none = await callTool(env, 'search_error', { message: 'zzqx qqzx' });
      assert.deepEqual(data(none)['results'], []);
      assert.match(none.text, /No known error record/);
    });
  });

  describe('get_error', () => {
    it('the full record as Markdown by id, or by repo + slug', async () => {
      const r = await callTool(env, 'get_error', { id: SENT });
      assert.equal(r.isError, undefined);
      assert.match(r.text, /#### Solutions/);
      assert.match(r.text, /#### Raised at\n\n.*runtime\.py:1295/);
      assert.equal(data(r)['record'].id, SENT);
      const bySlug = await callTool(env, 'get_error', { repo: 'ACME/pay', slug: 'payment-declined' });
      assert.equal(data(bySlug)['record'].id, other.id);
    });

    it('unknown ids, error codes passed as ids and half-given slugs are errors', async () => {
      assert.match((await callTool(env, 'get_error', { id: '0000000000000000' })).text, /no record with id/);
      assert.equal((await callTool(env, 'get_error', { id: 'E_DECLINED' })).isError, true);
      const half = await callTool(env, 'get_error', { repo: 'acme/pay' });
      assert.equal(half.isError, true);
      assert.match(half.text, /needs 'id', or both 'repo' and 'slug'/);
      assert.equal((await callTool(env, 'get_error', { repo: 'acme/pay', slug: 'nope' })).isError, true);
    });

    it('adds the env note (dataset records without a cached explanation)', async () => {
      const e = { ...env, note: (r: ErrorRecord) => (r.id === META ? 'NOTE-X' : undefined) };
      assert.match((await callTool(e, 'get_error', { id: META })).text, /NOTE-X$/);
      assert.doesNotMatch((await callTool(e, 'get_error', { id: SENT })).text, /NOTE-X/);
    });
  });

  it('list_repos: sources and repositories with counts', async () => {
    const r = await callTool(env, 'list_repos', {});
    assert.deepEqual(data(r)['repos'], [
      { repo: 'sgl-project/sglang', records: 3 },
      { repo: 'acme/pay', records: 1 },
    ]);
    assert.match(r.text, /4 records of 2 repositories loaded/);
    assert.match(r.text, /bundled: `\/x\/records` \(4 records\)/);
  });

  describe('explain_text', () => {
    it('groups consecutive matched lines into blocks and explains the best records once', async () => {
      const text = ['$ python serve.py', sentLine('a1'), 'MMError: encode metadata not ready', '  ok', '', 'payment p9 declined by visa'].join('\n');
      const r = await callTool(env, 'explain_text', { text });
      const blocks = data(r)['blocks'];
      assert.deepEqual(
        blocks.map((b: { startLine: number; endLine: number }) => [b.startLine, b.endLine]),
        [
          [2, 3],
          [6, 6],
        ],
      );
      assert.deepEqual(blocks[0].matches.map((m: { id: string }) => m.id), [SENT, META]);
      assert.match(r.text, /### Lines 2–3/);
      assert.match(r.text, /### Line 6/);
      assert.equal((r.text.match(/#### Solutions/g) ?? []).length >= 1, true);
      assert.equal(data(r)['records'].length, 3);
    });

    it('no match: says so, with the closest records by words', async () => {
      const r = await callTool(env, 'explain_text', { text: 'staged embedding was released' });
      assert.match(r.text, /^No known error in this text/);
      assert.equal(data(r)['closest'][0].id, SENT);
    });

    it('groupBlocks joins only adjacent lines', () => {
      const m = (line: number) => ({ line, matches: [] });
      assert.deepEqual(
        groupBlocks([m(0), m(1), m(3), m(4), m(5), m(9)]).map((b) => [b.startLine, b.endLine]),
        [
          [0, 1],
          [3, 5],
          [9, 9],
        ],
      );
    });
  });

  describe('scan_log', () => {
    const dir = tempDir('agent');
    const file = path.join(dir, 'app.log');
    const lines: string[] = [];
    for (let i = 1; i <= 3000; i++) lines.push(i % 100 === 0 ? sentLine(`r${i}`) : i === 1501 ? 'payment p1 declined by visa' : `INFO step ${i}`);
    fs.writeFileSync(file, lines.join('\n') + '\n');

    it('a file: grouped by record with counts, first/last line, captures; each record explained once', async () => {
      const r = await callTool(env, 'scan_log', { path: file, minConfidence: 0 });
      assert.equal(r.isError, undefined);
      const d = data(r);
      assert.equal(d['lines'], 3000);
      const recs = d['records'];
      assert.deepEqual(
        recs.map((x: { id: string; count: number; firstLine: number; lastLine: number }) => [x.id, x.count, x.firstLine, x.lastLine]),
        [
          [SENT, 30, 100, 3000],
          [other.id, 1, 1501, 1501],
        ],
      );
      assert.deepEqual(recs[0].occurrences[0].captures, [{ name: 'req_id', value: 'r100' }]);
      assert.equal((r.text.match(/\*\*Solutions\*\*/g) ?? []).length, 2, 'each record explained once (compact)');
      assert.match(r.text, /30 times, lines 100–3000/);
    });

    it('relative paths resolve against cwd; limit caps with a "more" count; minConfidence filters', async () => {
      const e = { ...env, cwd: dir };
      const one = await callTool(e, 'scan_log', { path: 'app.log', limit: 1, minConfidence: 0 });
      assert.equal(data(one)['records'].length, 1);
      assert.equal(data(one)['more'], 1);
      assert.match(one.text, /and 1 more record/);
      const strict = await callTool(e, 'scan_log', { path: 'app.log', minConfidence: 1 });
      assert.ok(data(strict)['belowThreshold'] > 0);
      assert.ok(data(strict)['records'].length < 2);
    });

    it('text instead of a path', async () => {
      const r = await callTool(env, 'scan_log', { text: `x\n${sentLine('t1')}\n${sentLine('t2')}` });
      assert.deepEqual(data(r)['records'].map((x: { count: number; firstLine: number }) => [x.count, x.firstLine]), [[2, 2]]);
      assert.match(r.text, /`\(text\)`: 3 lines/);
    });

    it('unreadable paths and bad arguments are error results, never exceptions', async () => {
      const cases: [unknown, RegExp][] = [
        [{ path: path.join(dir, 'missing.log') }, /cannot read '.*missing\.log': no such file \(ENOENT\)/],
        [{ path: dir }, /it is a directory/],
        [{}, /either 'path' or 'text'/],
        [{ path: file, text: 'x' }, /either 'path' or 'text'/],
        [{ path: file, limit: 0 }, /'limit' must be at least 1, not 0/],
        [{ path: file, limit: 2.5 }, /'limit' must be a whole number/],
        [{ path: file, minConfidence: 2 }, /'minConfidence' must be at most 1/],
        [{ path: file, minConfidence: '0.5' }, /'minConfidence' must be a number, not the string "0\.5"/],
        [{ path: 42 }, /'path' must be a string, not number 42/],
        [{ file }, /unknown argument 'file'/],
        [[1], /must be a JSON object/],
        ['x', /must be a JSON object/],
      ];
      for (const [args, re] of cases) {
        const r = await callTool(env, 'scan_log', args);
        assert.equal(r.isError, true, JSON.stringify(args));
        assert.match(r.text, re);
      }
      if (process.getuid?.() !== 0) {
        const locked = path.join(dir, 'locked.log');
        fs.writeFileSync(locked, 'x\n', { mode: 0o000 });
        assert.match((await callTool(env, 'scan_log', { path: locked })).text, /permission denied/);
      }
    });

    it('a cancelled scan is an error result', async () => {
      const big = path.join(dir, 'big.log');
      fs.writeFileSync(big, 'INFO nothing to see here\n'.repeat(200_000));
      const r = await callTool(env, 'scan_log', { path: big }, { cancelled: () => true });
      assert.equal(r.isError, true);
      assert.match(r.text, /cancelled/);
    });
  });

  describe('refresh_dataset', () => {
    it('without a dataset, or before the user opted in, nothing is fetched', async () => {
      assert.match((await callTool(env, 'refresh_dataset', {})).text, /not enabled/);
      let calls = 0;
      const ds = { optedIn: () => false, refresh: async () => (calls++, { status: 'updated', datasetVersion: 'x' }) };
      const r = await callTool({ ...env, dataset: ds }, 'refresh_dataset', { full: true });
      assert.equal(r.isError, true);
      assert.match(r.text, /nothing is fetched until the user opts in/);
      assert.equal(calls, 0);
    });

    it('after opt-in: refreshes (full passed on), reloads on an update, reports failures', async () => {
      const got: boolean[] = [];
      let reloads = 0;
      const ds = { optedIn: () => true, refresh: async (full: boolean) => (got.push(full), { status: 'updated', datasetVersion: '2026-11-01' }) };
      const r = await callTool({ ...env, dataset: ds, reload: async () => void reloads++ }, 'refresh_dataset', { full: true });
      assert.equal(r.isError, undefined);
      assert.match(r.text, /Updated the dataset to 2026-11-01/);
      assert.deepEqual(got, [true]);
      assert.equal(reloads, 1);
      const failing = { optedIn: () => true, refresh: async () => ({ status: 'failed', datasetVersion: 'v1', reason: 'HTTP 503' }) };
      const f = await callTool({ ...env, dataset: failing }, 'refresh_dataset', {});
      assert.equal(f.isError, true);
      assert.match(f.text, /HTTP 503.*cached copy is kept/);
      assert.equal((await callTool({ ...env, dataset: ds }, 'refresh_dataset', { full: 'yes' })).isError, true);
    });
  });

  it('unknown tools and throwing environments are error results', async () => {
    assert.match((await callTool(env, 'rm_rf', {})).text, /unknown tool 'rm_rf'/);
    const broken = { ...env, records: () => { throw new Error('disk on fire'); } };
    const r = await callTool(broken, 'list_repos', {});
    assert.equal(r.isError, true);
    assert.match(r.text, /list_repos failed: disk on fire/);
  });

  it('argumentProblem: required, types, bounds, lengths', () => {
    const schema = TOOLS.find((t) => t.name === 'search_error')!.inputSchema;
    assert.equal(argumentProblem(schema, { message: 'x' }), undefined);
    assert.match(argumentProblem(schema, {})!, /missing required argument 'message'/);
    assert.match(argumentProblem(schema, { message: '' })!, /must not be empty/);
    assert.match(argumentProblem(schema, { message: 'x'.repeat(100_001) })!, /too long/);
    assert.match(argumentProblem(schema, { message: 'x', limit: 101 })!, /at most 100/);
    assert.match(argumentProblem(schema, { message: ['x'] })!, /must be a string, not an array/);
  });
  void COUNT;
});
