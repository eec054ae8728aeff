// The language server's entry (bundled to dist/server.js): runs its bundle (dist/server-main.js,
// server/main.ts) through V8's code cache (core/codeCache.ts), kept under the index cache folder's
// code/ as the CLI's is. Where the cache lives comes from the user's environment and cache folder,
// never from a workspace. ERROR_EXPLAINER_CODE_CACHE=off turns it off; ERROR_EXPLAINER_DEBUG=1
// says on stderr (the server's log) what it did.
import path from 'node:path';
import { codeCacheDir, runCached } from '../core/codeCache';

const env = process.env;
const debug = env['ERROR_EXPLAINER_DEBUG'] ? (s: string) => process.stderr.write(`error-explainer: ${s}\n`) : undefined;
runCached(path.join(__dirname, 'server-main.js'), codeCacheDir(env), 'server', debug);
