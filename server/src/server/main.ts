// The language server (bundled to dist/server-main.js, run by dist/server.js: server/launch.ts). The transport comes from the command line: `--stdio`,
// `--node-ipc` or `--socket=<port>` (createConnection reads process.argv).
// On stdio the frames are checked as they arrive (frames.ts): a broken one is logged and the
// process exits with code 1, so the client restarts it instead of talking to a deaf server.
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { FrameChecker } from './frames';
import { noteInput } from './runSafe';
import { startServer } from './server';

if (process.argv.includes('--stdio')) {
  const frames = new FrameChecker();
  // registered before the connection's own reader: it sees every chunk first
  process.stdin.on('data', (chunk: Buffer) => {
    noteInput();
    const broken = frames.push(chunk);
    if (broken === undefined) return;
    process.stderr.write(`error-explainer: broken LSP stream on stdin (${broken}); exiting so that the client can restart the server\n`);
    process.exit(1);
  });
}
startServer(createConnection(ProposedFeatures.all));
