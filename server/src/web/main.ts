// Entry point of dist/web/server.js: the language server in a Web Worker (the web build, for
// vscode.dev / github.dev and any web-worker extension host). The same startServer as the
// desktop server, over the worker's message port; Node's modules are replaced by the shims in
// ./shims (esbuild.mjs), records come from the client (initializationOptions.recordFiles).
import { BrowserMessageReader, BrowserMessageWriter, createConnection, ProposedFeatures } from 'vscode-languageserver/browser';
import { startServer } from '../server/server';

type Port = ConstructorParameters<typeof BrowserMessageReader>[0];
const port = globalThis as unknown as Port;
startServer(createConnection(ProposedFeatures.all, new BrowserMessageReader(port), new BrowserMessageWriter(port)), { web: true });
