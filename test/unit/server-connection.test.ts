// startServer over an in-memory stream pair (as vscode-languageserver-node's own tests drive a
// connection): the whole wiring (initialize, the first record load, readiness, a feature handler,
// the records' watchers and reloads, shutdown) without a process. keepConsole: the test's console
// stays the test's; without it console.* reaches the client as window/logMessage.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { pathToFileURL } from 'node:url';
import { StatusRequest, type StatusResult } from '../../server/src/protocol';
import { clientCaps, initializeResult } from '../../server/src/server/capabilities';
import { startServer } from '../../server/src/server/server';
import { waitFor } from '../shared/poll';
import { FIXTURES, REPO, tempDir } from '../shared/paths';

describe('startServer over an in-memory connection', () => {
  let client: MessageConnection;
  let toServer: PassThrough;
  let toClient: PassThrough;

  /** A server and a client over two in-memory streams; `requests` answers the server's requests. */
  function connect(opts: { keepConsole: boolean; bundled?: string; requests?: (method: string, params: unknown) => unknown; notes?: { method: string; params: unknown }[] }): void {
    toServer = new PassThrough();
    toClient = new PassThrough();
    const server = createConnection(ProposedFeatures.all, new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
    startServer(server, { bundledRecordsPath: opts.bundled ?? path.join(REPO, 'records'), keepConsole: opts.keepConsole }); // (it listens)
    client = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
    client.onNotification((method, params) => void opts.notes?.push({ method, params })); // window/logMessage, status, diagnostics
    client.onRequest((method, params) => opts.requests?.(method, params) ?? null); // workspace/configuration, client/registerCapability
    client.listen();
  }

  beforeEach(() => connect({ keepConsole: true }));

  afterEach(() => {
    client?.dispose();
    toServer.end();
    toClient.end();
  });

  it('initializes, loads the bundled records, hovers a known error, shuts down', async () => {
    const init = (await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {}, initializationOptions: { workspaceTrusted: true } })) as {
      capabilities: { hoverProvider?: boolean; diagnosticProvider?: unknown };
    };
    assert.equal(init.capabilities.hoverProvider, true);
    assert.equal(init.capabilities.diagnosticProvider, undefined, 'a client without pull diagnostics gets pushed ones');
    await client.sendNotification('initialized', {});
    const status = (await client.sendRequest(StatusRequest.method, undefined)) as StatusResult; // waits for the first load
    assert.ok(status.records > 0, `records loaded: ${status.records}`);

    const text = fs.readFileSync(path.join(REPO, 'test/fixtures/logs/sample.log'), 'utf8');
    const lines = text.split('\n');
    const line = lines.findIndex((l) => l.includes('ERROR: BadRequestError: Inconsistent receive_count'));
    const character = lines[line]!.indexOf('Inconsistent');
    const uri = 'file:///tmp/in-memory/sample.log';
    await client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'log', version: 1, text } });
    const hover = (await client.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line, character } })) as { contents: { value: string } } | null;
    assert.ok(hover, 'a hover on the known error');
    assert.match(hover.contents.value, /BadRequestError/);

    assert.equal(await client.sendRequest('shutdown'), null);
  });

  it('the initialize result follows the client capabilities', () => {
    const push = initializeResult(clientCaps({}));
    assert.equal(push.capabilities.diagnosticProvider, undefined);
    assert.equal(push.capabilities.workspace, undefined);
    const pull = initializeResult(clientCaps({ textDocument: { diagnostic: {} }, workspace: { workspaceFolders: true } }));
    assert.deepEqual(pull.capabilities.diagnosticProvider, { interFileDependencies: false, workspaceDiagnostics: false });
    assert.deepEqual(pull.capabilities.workspace, { workspaceFolders: { supported: true, changeNotifications: true } });
  });

  it('registers watchers for a records.paths file, reloads when it changes, and counts its records', async () => {
    client.dispose();
    const dir = tempDir('connection');
    try {
      const file = path.join(dir, 'records.json');
      const one = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'records', 'single.json'), 'utf8')) as Record<string, unknown>;
      fs.writeFileSync(file, JSON.stringify([one]));
      const registrations: { method: string; registerOptions?: { watchers?: unknown[] } }[] = [];
      connect({
        keepConsole: true,
        requests: (method, params) => {
          if (method === 'workspace/configuration') return (params as { items: unknown[] }).items.map(() => ({ records: { paths: [file] } }));
          if (method === 'client/registerCapability') registrations.push(...(params as { registrations: typeof registrations }).registrations);
          return null;
        },
      });
      await client.sendRequest('initialize', {
        processId: null,
        rootUri: null,
        capabilities: { workspace: { configuration: true, didChangeWatchedFiles: { dynamicRegistration: true, relativePatternSupport: true } } },
        initializationOptions: { workspaceTrusted: true },
      });
      await client.sendNotification('initialized', {});
      const userRecords = async () => ((await client.sendRequest(StatusRequest.method, undefined)) as StatusResult).sources.find((x) => x.origin === 'user')?.records;
      assert.equal(await userRecords(), 1);

      const watchers = registrations.find((r) => r.method === 'workspace/didChangeWatchedFiles')?.registerOptions?.watchers;
      assert.ok(watchers, `watchers registered: ${JSON.stringify(registrations)}`);
      const baseUri = pathToFileURL(dir).href;
      assert.deepEqual(
        watchers.map((w) => (w as { globPattern: unknown }).globPattern),
        ['**/.error-records/**', { baseUri, pattern: 'records.json' }, { baseUri, pattern: 'records.json/**' }],
      );

      fs.writeFileSync(file, JSON.stringify([one, { ...one, errorMessage: 'Connection reset by {host}' }]));
      await client.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(file).href, type: 2 }] });
      await waitFor('the changed file reloaded', async () => (await userRecords()) === 2);
      assert.equal(await client.sendRequest('shutdown'), null);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without keepConsole, console.* goes to the client as window/logMessage', async () => {
    client.dispose();
    const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug };
    const notes: { method: string; params: unknown }[] = [];
    try {
      connect({ keepConsole: false, notes });
      assert.notEqual(console.warn, saved.warn, 'console.warn replaced');
      console.warn('a warning from a dependency');
      const note = await waitFor('the log message', () => notes.find((n) => n.method === 'window/logMessage'));
      assert.deepEqual(note.params, { type: 2, message: 'a warning from a dependency' });
    } finally {
      Object.assign(console, saved);
    }
  });
});
