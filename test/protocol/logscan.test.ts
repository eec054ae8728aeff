// errorExplainer/scanLog & co. against the built server over stdio: a file on disk scanned with
// progress in percent ($/progress on the client's workDoneToken, or a server-created
// window/workDoneProgress), cancelled (window/workDoneProgress/cancel, $/cancelRequest), followed
// (append, truncate, rotate, stop), unreadable files; the line window; the language-model tool.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CancellationTokenSource } from 'vscode-languageserver-protocol/node';
import type { AgentExplainResult, LogLinesResult, ScanLogResult } from '../../server/src/protocol';
import { FULL_CAPABILITIES, TestClient, copyFixture, waitFor } from './client';
import { tempDir } from '../shared/paths';
import { noise, sentLine, writeLog } from '../shared/logs';

const SENT = '063d2eac5107dda5';
const META = '12c38bb1afed0ec1';
const metaLine = 'ERROR sglang.srt: MMError: encode metadata not ready';


type Progress = { token: string | number; value: { kind: string; percentage?: number; cancellable?: boolean } };
const counts = (r: ScanLogResult) => r.groups.map((g) => [g.record.id, g.count, g.firstLine, g.lastLine]);

describe('protocol: scanning log files on disk', function () {
  this.timeout(120_000);
  let client: TestClient;
  let dir: string;
  before(async () => {
    const ws = copyFixture();
    dir = tempDir('scanlog');
    client = await TestClient.start({ workspace: ws, capabilities: { ...FULL_CAPABILITIES, window: { workDoneProgress: true } } });
  });
  after(async () => {
    await client.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const progressOf = (token: string | number) => (client.notificationsOf('$/progress') as Progress[]).filter((p) => p.token === token).map((p) => p.value);

  it('scans a 6 MB file with the byte engine, progress in percent on the client token, grouped by record', async () => {
    const file = path.join(dir, 'app.log');
    const matched = writeLog(file, 6, 997);
    const r = await client.request<ScanLogResult>('errorExplainer/scanLog', { path: file, workDoneToken: 'scan-1' });
    assert.equal(r.state, 'done');
    assert.equal(r.error, undefined);
    assert.equal(r.size, fs.statSync(file).size);
    assert.equal(r.scannedBytes, r.size);
    assert.deepEqual(counts(r), [[SENT, matched.length, matched[0], matched[matched.length - 1]]]);
    const g = r.groups[0]!;
    assert.equal(g.occurrences.length, 40);
    assert.equal(g.omitted, matched.length - 40);
    assert.deepEqual(g.occurrences[0]!.captures, [{ name: 'req_id', value: `r${matched[0]}` }]);
    assert.equal(g.occurrences[39]!.line, matched[matched.length - 1]);
    const p = await waitFor('progress end', () => {
      const v = progressOf('scan-1');
      return v.some((x) => x.kind === 'end') && v;
    });
    assert.equal(p[0]!.kind, 'begin');
    assert.equal(p[0]!.cancellable, true);
    const pct = p.filter((x) => x.kind === 'report').map((x) => x.percentage!);
    assert.ok(pct.length >= 4, `percent reports: ${pct.join(' ')}`);
    assert.deepEqual([...pct].sort((a, b) => a - b), pct, 'percentages only grow');
    assert.equal(pct[pct.length - 1], 100);
  });

  it('without a token the server creates window/workDoneProgress; its cancel stops the scan', async () => {
    const file = path.join(dir, 'big.log');
    writeLog(file, 48, 1_000_000_000);
    fs.appendFileSync(file, sentLine('at-the-end') + '\n');
    const pending = client.request<ScanLogResult>('errorExplainer/scanLog', { path: file });
    const create = await waitFor('window/workDoneProgress/create', () => client.serverRequests.find((q) => q.method === 'window/workDoneProgress/create'));
    const token = (create.params as { token: string | number }).token;
    await waitFor('a first percentage', () => progressOf(token).some((v) => v.kind === 'report'));
    await client.conn.sendNotification('window/workDoneProgress/cancel', { token });
    const r = await pending;
    assert.equal(r.state, 'cancelled');
    assert.ok(r.scannedBytes < r.size, `${r.scannedBytes} of ${r.size} bytes`);
    assert.deepEqual(counts(r), [], 'the match at the end was never reached');
    await waitFor('progress end', () => progressOf(token).some((v) => v.kind === 'end'));
  });

  it('$/cancelRequest cancels a scan too', async () => {
    const file = path.join(dir, 'big.log');
    const cts = new CancellationTokenSource();
    const pending = client.conn.sendRequest('errorExplainer/scanLog', { path: file, workDoneToken: 'scan-c' }, cts.token);
    await waitFor('a first percentage', () => progressOf('scan-c').some((v) => v.kind === 'report'));
    cts.cancel();
    await assert.rejects(pending, /cancel/i);
    // the server is fine afterwards
    const st = await client.request<{ records: number }>('errorExplainer/status');
    assert.ok(st.records >= 3);
  });

  it('follow: appended bytes only; truncation and rotation rescan; stop ends the updates', async () => {
    const file = path.join(dir, 'follow.log');
    fs.writeFileSync(file, `${noise(1)}\n${sentLine('a')}\n`);
    const r = await client.request<ScanLogResult>('errorExplainer/scanLog', { path: file, follow: true, pollMs: 100 });
    assert.equal(r.state, 'following');
    assert.deepEqual(counts(r), [[SENT, 1, 2, 2]]);
    const updates = () => (client.notificationsOf('errorExplainer/scanLogUpdate') as ScanLogResult[]).filter((u) => u.scanId === r.scanId);
    const next = async (what: string, ok: (u: ScanLogResult) => boolean): Promise<ScanLogResult> => waitFor(what, () => updates().find(ok));

    fs.appendFileSync(file, `${noise(3)}\n${metaLine}\n${sentLine('b')}\n`);
    const u1 = await next('the append', (u) => u.matches === 3);
    assert.deepEqual(counts(u1), [
      [SENT, 2, 2, 5],
      [META, 1, 4, 4],
    ]);
    assert.equal(u1.scannedBytes, fs.statSync(file).size);
    assert.equal(u1.lines, 5);

    fs.appendFileSync(file, sentLine('unfinished'));
    fs.appendFileSync(file, '\n');
    const u2 = await next('the completed line', (u) => u.matches === 4);
    assert.deepEqual(counts(u2)[0], [SENT, 3, 2, 6]);

    fs.truncateSync(file, 0);
    fs.writeFileSync(file, `${metaLine}\n`);
    const u3 = await next('the truncation', (u) => u.resets === 1);
    assert.equal(u3.lastReset, 'truncated');
    assert.deepEqual(counts(u3), [[META, 1, 1, 1]]);

    fs.renameSync(file, `${file}.1`);
    fs.writeFileSync(file, `${noise(1)}\n${noise(2)}\n${sentLine('new')}\n`);
    const u4 = await next('the rotation', (u) => u.lastReset === 'rotated' && u.matches === 1);
    assert.deepEqual(counts(u4), [[SENT, 1, 3, 3]]);
    assert.equal(u4.state, 'following');

    const stopped = await client.request<ScanLogResult>('errorExplainer/scanLogStop', { scanId: r.scanId });
    assert.equal(stopped.state, 'stopped');
    const n = updates().length;
    fs.appendFileSync(file, `${sentLine('after-stop')}\n`);
    // a later scan of another file proves time passed and the server is responsive
    const other = path.join(dir, 'other.log');
    fs.writeFileSync(other, `${metaLine}\n`);
    const o = await client.request<ScanLogResult>('errorExplainer/scanLog', { path: other, follow: true, pollMs: 100 });
    fs.appendFileSync(other, `${metaLine}\n`);
    await waitFor('the other scan update', () => (client.notificationsOf('errorExplainer/scanLogUpdate') as ScanLogResult[]).some((u) => u.scanId === o.scanId && u.matches === 2));
    assert.equal(updates().length, n, 'no update after stop');
    assert.equal(await client.request('errorExplainer/scanLogStop', { scanId: 99_999 }), null);
  });

  it('unreadable files and bad parameters are results with an error', async () => {
    const missing = await client.request<ScanLogResult>('errorExplainer/scanLog', { path: path.join(dir, 'nope.log') });
    assert.equal(missing.state, 'failed');
    assert.match(missing.error!, /cannot read '.*nope\.log': no such file/);
    const folder = await client.request<ScanLogResult>('errorExplainer/scanLog', { path: dir });
    assert.match(folder.error!, /directory/);
    const none = await client.request<ScanLogResult>('errorExplainer/scanLog', {});
    assert.match(none.error!, /needs a file path/);
  });

  it('logLines: the window of lines around an occurrence', async () => {
    const file = path.join(dir, 'app.log');
    const w = await client.request<LogLinesResult>('errorExplainer/logLines', { path: file, line: 997, before: 2, after: 2 });
    assert.equal(w.firstLine, 995);
    assert.deepEqual(w.lines, [noise(995), noise(996), sentLine('r997'), noise(998), noise(999)]);
    const bad = await client.request<LogLinesResult>('errorExplainer/logLines', { path: path.join(dir, 'nope.log'), line: 1 });
    assert.match(bad.error!, /no such file/);
  });

  it('agentExplain (the VS Code language-model tool): text, and a file scanned with the byte engine', async () => {
    const t = await client.request<AgentExplainResult>('errorExplainer/agentExplain', { text: `$ serve\n${metaLine}` });
    assert.equal(t.isError, undefined);
    assert.match(t.markdown, /### Line 2/);
    assert.match(t.markdown, /encode metadata not ready/);
    const f = await client.request<AgentExplainResult>('errorExplainer/agentExplain', { path: path.join(dir, 'app.log') });
    assert.match(f.markdown, /no staged embedding/);
    assert.match(f.markdown, /times, lines 997–/);
    const e = await client.request<AgentExplainResult>('errorExplainer/agentExplain', {});
    assert.equal(e.isError, true);
  });
});
