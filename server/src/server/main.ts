// Entry point of dist/server.js. The transport comes from the command line: `--stdio`,
// `--node-ipc` or `--socket=<port>` (createConnection reads process.argv).
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from './server';

startServer(createConnection(ProposedFeatures.all));
