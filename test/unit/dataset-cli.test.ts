// CLI: `dataset sync|status|suggest`, `scan --dataset` and `extract`, in-process against the loopback server.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { main } from '../../server/src/cli/main';
import { FIXTURE_DATASET, FixtureServer, fixtureSuite } from '../shared/datasetServer';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
async function run(args: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<Run> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks: Buffer[] = [];
  const errChunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  err.on('data', (c: Buffer) => errChunks.push(c));
  const code = await main(args, { stdin: Readable.from([]), stdout: out, stderr: err, cwd, env: { HOME: cwd, ...env } });
  return { code, stdout: Buffer.concat(chunks).toString('utf8'), stderr: Buffer.concat(errChunks).toString('utf8') };
}

describe('dataset CLI', () => {
  const fx = fixtureSuite('dataset-cli');

  it('dataset sync --repos, status, then scan --dataset explains with the full records', async () => {
    const cache = path.join(fx.tmp, 'cache');
    const sync = await run(['dataset', 'sync', '--url', fx.server.base('a', 'current'), '--repos', 'axios/axios,psf/requests', '--cache', cache], fx.tmp);
    assert.equal(sync.code, 0, sync.stderr);
    assert.match(sync.stdout, /updated to 2026-11-20T00:00:00.000Z \(10 errors, 9 repositories\)/);
    assert.match(sync.stdout, /axios\/axios: 2 records/);
    assert.equal(fx.server.count('/a/data/repos/axios/axios.json'), 1);

    const status = await run(['dataset', 'status', '--cache', cache, '--json'], fx.tmp);
    assert.equal(status.code, 0);
    const st = JSON.parse(status.stdout);
    assert.equal(st.rows, 10);
    assert.deepEqual(st.selection, ['axios/axios', 'psf/requests']);
    assert.deepEqual(st.cachedRepos, ['axios/axios', 'psf/requests']);

    const log = path.join(fx.tmp, 'app.log');
    fs.writeFileSync(log, [
      'GET /api/orders 200',
      'AxiosError: Request failed with status code 503',
      'panic: unknown command "frob" for "app"', // spf13/cobra: not selected
    ].join('\n') + '\n');
    // the network is not needed for scanning
    await fx.server.close();
    const scan = await run(['scan', '--dataset', '--cache', cache, '--no-bundled', '--format', 'json', log], fx.tmp);
    fx.server = await FixtureServer.start();
    assert.equal(scan.code, 0, scan.stderr);
    const matches = scan.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.equal(matches.length, 1, scan.stdout);
    assert.equal(matches[0].line, 2);
    assert.match(JSON.stringify(matches[0]), /request-failed|err-bad-response/);
    // text output carries the explanation from the cached full record
    const text = await run(['scan', '--dataset', '--cache', cache, '--no-bundled', log], fx.tmp);
    assert.match(text.stdout, /validateStatus/);
  });

  it('scan --dataset without a cache says so and still scans', async () => {
    const log = path.join(fx.tmp, 'x.log');
    fs.writeFileSync(log, 'nothing\n');
    const r = await run(['scan', '--dataset', '--cache', path.join(fx.tmp, 'none'), '--no-bundled', log], fx.tmp);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /no dataset cached/);
  });

  it('a failed sync exits 2 and keeps the cache; status shows the failure', async () => {
    const cache = path.join(fx.tmp, 'cache');
    assert.equal((await run(['dataset', 'sync', '--url', fx.server.base('b', 'current'), '--cache', cache], fx.tmp)).code, 0);
    fx.server.setVariant('b', 'next');
    fx.server.overrides.set('/b/data/index.json.gz', { body: '<html>maintenance</html>', contentType: 'text/html' });
    try {
      const r = await run(['dataset', 'sync', '--cache', cache], fx.tmp);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /HTML page.*keeping the cached dataset 2026-11-20/);
    } finally {
      fx.server.overrides.clear();
    }
    const st = await run(['dataset', 'status', '--cache', cache], fx.tmp);
    assert.match(st.stdout, /version:\s+2026-11-20/);
    assert.match(st.stdout, /last failure: .*HTML/);
  });

  it('without --url, sync and status use the URL the user opted in for, even when its first sync failed', async () => {
    const cache = path.join(fx.tmp, 'cache');
    const mirror = fx.server.base('m', 'current');
    fx.server.overrides.set('/m/data/manifest.json', { status: 503 });
    try {
      const first = await run(['dataset', 'sync', '--url', mirror, '--cache', cache], fx.tmp);
      assert.equal(first.code, 2);
      assert.match(first.stderr, /HTTP 503/);
    } finally {
      fx.server.overrides.clear();
    }
    // nothing is cached yet: the mirror is still the URL the user chose (not the public dataset)
    const st = JSON.parse((await run(['dataset', 'status', '--cache', cache, '--json'], fx.tmp)).stdout);
    assert.equal(st.url, mirror);
    assert.equal(st.optedIn, true);
    const again = await run(['dataset', 'sync', '--cache', cache], fx.tmp);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /updated to 2026-11-20/);
    assert.equal(fx.server.count('/m/data/manifest.json'), 2);
  });

  it('dataset suggest maps the workspace dependencies', async () => {
    const cache = path.join(fx.tmp, 'cache');
    await run(['dataset', 'sync', '--url', fx.server.base('c', 'current'), '--cache', cache], fx.tmp);
    const r = await run(['dataset', 'suggest', path.join(FIXTURE_DATASET, 'workspace'), '--cache', cache], fx.tmp);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^pg \(api\/package\.json\) -> brianc\/node-postgres: 1 errors \[known package → repository\]$/m);
    assert.match(r.stdout, /axios, express, pg and 5 more have 9 explained errors — use them\?/);
    assert.match(r.stdout, /dataset sync --repos axios\/axios,expressjs\/express,brianc\/node-postgres,/);
  });

  it('extract writes the same file twice and rejects bad arguments', async () => {
    const src = path.join(__dirname, '..', 'fixtures', 'extract', 'src');
    const out = path.join(fx.tmp, 'records.json');
    const sha = 'a'.repeat(40);
    const r1 = await run(['extract', src, '--repo', 'acme/shop', '--sha', sha, '--out', out], fx.tmp);
    assert.equal(r1.code, 0, r1.stderr);
    assert.match(r1.stderr, /^17 records from 5 source files/);
    const first = fs.readFileSync(out);
    const r2 = await run(['extract', src, '--repo', 'acme/shop', '--sha', sha, '--out', out], fx.tmp);
    assert.equal(r2.code, 0);
    assert.ok(first.equals(fs.readFileSync(out)), 'byte-identical');
    const recs = JSON.parse(first.toString('utf8'));
    assert.equal(recs.length, 17);
    assert.ok(recs.every((r: { githubUrl: string }) => r.githubUrl.startsWith(`https://github.com/acme/shop/blob/${sha}/`)));
    // the written file loads as records and matches a line
    const log = path.join(fx.tmp, 'svc.log');
    fs.writeFileSync(log, 'ERROR OrderNotFoundException: Order 42 does not exist\n');
    const scan = await run(['scan', '--records', out, '--no-bundled', '--format', 'json', log], fx.tmp);
    assert.equal(scan.code, 0, scan.stderr);
    assert.equal(scan.stdout.trim().split('\n').length, 1);

    assert.equal((await run(['extract', src], fx.tmp)).code, 2);
    assert.equal((await run(['extract', src, '--repo', 'not a repo'], fx.tmp)).code, 2);
    assert.equal((await run(['extract', path.join(fx.tmp, 'missing'), '--repo', 'a/b'], fx.tmp)).code, 2);
  });
});
