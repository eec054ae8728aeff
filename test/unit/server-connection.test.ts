// startServer over an in-memory stream pair (as vscode-languageserver-node's own tests drive a
// connection): the whole wiring (initialize, the first record load, readiness, a feature handler,
// shutdown) without a process. keepConsole: the test's console stays the test's.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { StatusRequest, type StatusResult } from '../../server/src/protocol';
import { clientCaps, initializeResult, startServer } from '../../server/src/server/server';

const REPO = path.resolve(__dirname, '../..');

describe('startServer over an in-memory connection', () => {
  let client: MessageConnection;
  let toServer: PassThrough;
  let toClient: PassThrough;

  beforeEach(() => {
    toServer = new PassThrough();
    toClient = new PassThrough();
    const server = createConnection(ProposedFeatures.all, new StreamMessageReader(toServer), new StreamMessageWriter(toClient));
    startServer(server, { bundledRecordsPath: path.join(REPO, 'records'), keepConsole: true }); // (it listens)
    client = createMessageConnection(new StreamMessageReader(toClient), new StreamMessageWriter(toServer));
    client.onNotification(() => undefined); // window/logMessage, status, diagnostics
    client.onRequest(() => null); // workspace/configuration, client/registerCapability
    client.listen();
  });

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
});
