// `error-explainer mcp` spoken to by the MCP SDK's own Client over stdio (StdioClientTransport
// spawning the BUILT `node dist/cli.js mcp …`): tool listing with schemas, exact answers with
// captures and confidence, full records, a log scan of a few MB grouped by record, bad arguments and
// unreadable files as isError results (the server keeps serving), cancellation, and the dataset:
// matched from the cache, network only in refresh_dataset and only after the user's opt-in.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FixtureServer } from '../shared/datasetServer';
import { REPO } from './client';
import { tempDir } from '../shared/paths';

const CLI = path.join(REPO, 'dist', 'cli.js');
const SENT = '063d2eac5107dda5';
const sentLine = (id: string): string => `[2026-08-28 05:10:05 MM-Encoder] ERROR: MMError: no staged embedding for /send req_id=${id} (already released)`;

async function connect(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', ...args], cwd, env: { PATH: process.env['PATH'] ?? '', HOME: cwd, ...env }, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const client = new Client({ name: 'error-explainer-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

function text(r: unknown): string {
  const c = (r as CallToolResult).content[0];
  return c && c.type === 'text' ? c.text : '';
}
const data = (r: unknown) => (r as CallToolResult).structuredContent as Record<string, any>;

describe('MCP server (error-explainer mcp over stdio, SDK client)', function () {
  this.timeout(60_000);
  let tmp: string;
  let client: Client;
  let stderr: () => string;
  before(async () => {
    tmp = tempDir('mcp');
    ({ client, stderr } = await connect([], tmp));
  });
  after(async () => {
    await client?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('lists six tools, each with a description and a JSON schema', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['search_error', 'get_error', 'explain_text', 'scan_log', 'list_repos', 'refresh_dataset'],
    );
    const search = tools.find((t) => t.name === 'search_error')!;
    assert.deepEqual(Object.keys(search.inputSchema.properties ?? {}), ['message', 'repo', 'limit']);
    assert.deepEqual(search.inputSchema.required, ['message']);
    const scan = tools.find((t) => t.name === 'scan_log')!;
    assert.deepEqual(Object.keys(scan.inputSchema.properties ?? {}), ['path', 'text', 'minConfidence', 'limit']);
    for (const t of tools) assert.ok(t.description && t.description.length > 40, t.name);
    assert.equal(tools.find((t) => t.name === 'refresh_dataset')!.annotations?.openWorldHint, true);
    assert.match(client.getInstructions() ?? '', /scan_log on log files/);
  });

  it('search_error: the exact match first, with captures and confidence', async () => {
    const r = await client.callTool({ name: 'search_error', arguments: { message: sentLine('7d1c0a52'), limit: 3 } });
    assert.equal(r.isError, undefined);
    const first = data(r)['results'][0];
    assert.equal(first.id, SENT);
    assert.equal(first.kind, 'match');
    assert.deepEqual(first.captures, [{ name: 'req_id', value: '7d1c0a52' }]);
    assert.equal(first.confidence.label, 'likely');
    assert.match(text(r), /exact match on line 1/);
  });

  it('get_error: the full record as Markdown, by id and by repo + slug', async () => {
    const r = await client.callTool({ name: 'get_error', arguments: { id: SENT } });
    assert.match(text(r), /#### Solutions/);
    assert.match(text(r), /#### Raised at/);
    const bySlug = await client.callTool({ name: 'get_error', arguments: { repo: 'sgl-project/sglang', slug: 'encode-metadata-not-ready' } });
    assert.equal(data(bySlug)['record'].id, '12c38bb1afed0ec1');
  });

  it('scan_log: a 4 MB log through the byte engine, grouped by record with counts and lines', async () => {
    const file = path.join(tmp, 'big.log');
    const fd = fs.openSync(file, 'w');
    let lines = 0;
    const expected: number[] = [];
    let chunk = '';
    while (lines < 60_000) {
      lines++;
      if (lines % 5000 === 0) {
        expected.push(lines);
        chunk += sentLine(`r${lines}`) + '\n';
      } else chunk += `2026-08-28 05:10:05 INFO scheduler: decode batch ${lines} ok, 31 running, 0 queued\n`;
      if (chunk.length > 1 << 16) {
        fs.writeSync(fd, chunk);
        chunk = '';
      }
    }
    fs.writeSync(fd, chunk);
    fs.closeSync(fd);
    assert.ok(fs.statSync(file).size > 4 << 20);
    const r = await client.callTool({ name: 'scan_log', arguments: { path: 'big.log' } });
    assert.equal(r.isError, undefined, text(r));
    const d = data(r);
    assert.equal(d['lines'], 60_000);
    assert.deepEqual(
      d['records'].map((x: { id: string; count: number; firstLine: number; lastLine: number }) => [x.id, x.count, x.firstLine, x.lastLine]),
      [[SENT, expected.length, expected[0], expected[expected.length - 1]]],
    );
    assert.deepEqual(d['records'][0].occurrences[0].captures, [{ name: 'req_id', value: 'r5000' }]);
    assert.equal((text(r).match(/\*\*Solutions\*\*/g) ?? []).length, 1, 'the record is explained once');
  });

  it('bad arguments and unreadable files are isError results; the server keeps serving', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['scan_log', { path: 'missing.log' }, /cannot read '.*missing\.log': no such file \(ENOENT\)/],
      ['scan_log', { path: tmp }, /directory/],
      ['scan_log', {}, /either 'path' or 'text'/],
      ['scan_log', { path: 'x', limit: -1 }, /'limit' must be at least 1/],
      ['search_error', { message: 42 }, /'message' must be a string/],
      ['search_error', {}, /missing required argument 'message'/],
      ['get_error', { id: 'nope' }, /no record with id 'nope'/],
      ['explain_text', { text: 'x', extra: 1 }, /unknown argument 'extra'/],
      ['no_such_tool', {}, /unknown tool 'no_such_tool'/],
    ];
    for (const [name, args, re] of cases) {
      const r = await client.callTool({ name, arguments: args });
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`);
      assert.match(text(r), re);
    }
    const ok = await client.callTool({ name: 'explain_text', arguments: { text: `started\n${sentLine('z9')}` } });
    assert.equal(ok.isError, undefined);
    assert.match(text(ok), /### Line 2/);
  });

  it('a cancelled scan_log does not take the server down', async () => {
    const file = path.join(tmp, 'huge.log');
    fs.writeFileSync(file, 'INFO nothing to see here, move along\n'.repeat(600_000));
    const ac = new AbortController();
    const call = client.callTool({ name: 'scan_log', arguments: { path: file } }, undefined, { signal: ac.signal });
    setImmediate(() => ac.abort());
    await assert.rejects(call, /abort/i);
    const r = await client.callTool({ name: 'list_repos', arguments: {} });
    assert.equal(data(r)['repos'][0].repo, 'sgl-project/sglang');
  });

  it('list_repos: sources and repositories; --records and --no-bundled choose them', async () => {
    const recs = path.join(tmp, 'team.json');
    fs.writeFileSync(recs, JSON.stringify([{ errorMessage: 'payment {payment_id} declined by {provider}', repo: 'acme/pay', documentation: 'The issuer refused it.' }]));
    const other = await connect(['--no-bundled', '--records', recs], tmp);
    try {
      const r = await other.client.callTool({ name: 'list_repos', arguments: {} });
      assert.deepEqual(data(r)['repos'], [{ repo: 'acme/pay', records: 1 }]);
      assert.deepEqual(data(r)['sources'], [{ origin: 'user', path: recs, records: 1 }]);
      const s = await other.client.callTool({ name: 'search_error', arguments: { message: 'payment p-17 declined by visa' } });
      assert.deepEqual(data(s)['results'][0].captures, [
        { name: 'payment_id', value: 'p-17' },
        { name: 'provider', value: 'visa' },
      ]);
    } finally {
      await other.client.close();
    }
    assert.equal(stderr(), '');
  });

  it('the index cache, as scan and explain use it: the first start writes it once it can answer, the next answers the same from it; --no-cache writes none', async () => {
    const recs = path.join(REPO, 'test/fixtures/real/typescript-records.json');
    const idx = path.join(tmp, 'index-cache');
    const env = { ERROR_EXPLAINER_INDEX_CACHE: idx, ERROR_EXPLAINER_INDEX_CACHE_MIN_BYTES: '0' };
    const line = "src/app.ts(12,5): error TS2304: Cannot find name 'fooBar'.";
    const entries = () => (fs.existsSync(idx) ? fs.readdirSync(idx).filter((f) => f.endsWith('.eeidx')) : []);
    const explainWith = async (extra: string[], before?: () => Promise<void>): Promise<string> => {
      const c = await connect(['--no-bundled', '--records', recs, ...extra], tmp, env);
      try {
        const r = text(await c.client.callTool({ name: 'explain_text', arguments: { text: line } }));
        await before?.();
        assert.equal(c.stderr(), '');
        return r;
      } finally {
        await c.client.close();
      }
    };
    const none = await explainWith(['--no-cache']);
    assert.match(none, /TS2304/);
    assert.deepEqual(entries(), [], '--no-cache writes none');
    // (the write comes after the records are served: polled for, with a timeout)
    const written = async (): Promise<void> => {
      const t0 = Date.now();
      while (entries().length === 0) {
        assert.ok(Date.now() - t0 < 30_000, 'the index cache file was written');
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    assert.equal(await explainWith([], written), none);
    const file = path.join(idx, entries()[0]!);
    const bytes = fs.readFileSync(file);
    assert.equal(await explainWith([]), none, 'answered from the cache');
    assert.deepEqual(fs.readFileSync(file), bytes, 'a hit that adds nothing writes nothing');
  });

  describe('the ErrLookup dataset (--dataset)', () => {
    let server: FixtureServer;
    before(async () => {
      server = await FixtureServer.start();
    });
    after(async () => server.close());

    it('refresh_dataset fetches nothing before the opt-in', async () => {
      const cache = path.join(tmp, 'cache-none');
      const c = await connect(['--dataset', '--cache', cache], tmp, { ERROR_EXPLAINER_DATASET_URL: server.base('n', 'current') });
      try {
        const r = await c.client.callTool({ name: 'refresh_dataset', arguments: {} });
        assert.equal(r.isError, true);
        assert.match(text(r), /nothing is fetched until the user opts in/);
        assert.equal(server.requests.length, 0);
      } finally {
        await c.client.close();
      }
    });

    it('after `dataset sync`: dataset records answer offline; only refresh_dataset uses the network', async () => {
      const cache = path.join(tmp, 'cache');
      // (async: the fixture server runs in this process)
      await promisify(execFile)(process.execPath, [CLI, 'dataset', 'sync', '--url', server.base('s', 'current'), '--repos', 'axios/axios', '--cache', cache], { env: { HOME: tmp } });
      const c = await connect(['--dataset', '--cache', cache], tmp);
      try {
        const before = server.requests.length;
        const s = await c.client.callTool({ name: 'search_error', arguments: { message: 'AxiosError: Request failed with status code 503' } });
        const hit = data(s)['results'][0];
        assert.equal(hit.repo, 'axios/axios');
        assert.deepEqual(hit.captures, [{ name: 'status', value: '503' }]);
        const g = await c.client.callTool({ name: 'get_error', arguments: { id: hit.id } });
        assert.equal(g.isError, undefined);
        const repos = await c.client.callTool({ name: 'list_repos', arguments: {} });
        assert.ok(data(repos)['sources'].some((x: { origin: string; path: string }) => x.origin === 'dataset' && x.path === cache));
        assert.equal(server.requests.length, before, 'no request outside refresh_dataset');
        const r = await c.client.callTool({ name: 'refresh_dataset', arguments: { full: true } });
        assert.equal(r.isError, undefined, text(r));
        assert.match(text(r), /up to date/);
        assert.deepEqual(data(r)['repos'], [{ repo: 'axios/axios', records: data(r)['repos'][0].records }]);
        assert.ok(server.requests.length > before, 'refresh_dataset asked for the manifest');
      } finally {
        await c.client.close();
      }
    });
  });
});
