// The `error-explainer` command (bundled to dist/cli.js): runs the CLI bundle (dist/cli-main.js)
// through V8's code cache (core/codeCache.ts), kept per command under the index cache folder's
// code/ (`scan` with a warm index cache: ~1.4 s in all, 3-4 % of it; `explain`, `--version`: a
// third). ERROR_EXPLAINER_CODE_CACHE=off or a command's --no-cache turns it off;
// ERROR_EXPLAINER_DEBUG=1 says on stderr what it did.
import path from 'node:path';
import { codeCacheDir, runCached } from '../core/codeCache';
import { COMMAND_NAMES } from './commandNames';

/** The command of argv (its first argument when that names one), else 'other' (--help,
 * --version, a typo): each command's run compiles its own functions. */
function commandOf(argv: readonly string[]): string {
  const a = argv[0];
  return (COMMAND_NAMES as readonly string[]).includes(a ?? '') ? a! : 'other';
}

if (require.main === module) {
  const env = process.env;
  const debug = env['ERROR_EXPLAINER_DEBUG'] ? (s: string) => process.stderr.write(`error-explainer: ${s}\n`) : undefined;
  // (--no-cache: no cache of any kind is read or written)
  const dir = process.argv.includes('--no-cache') ? undefined : codeCacheDir(env);
  runCached(path.join(__dirname, 'cli-main.js'), dir, commandOf(process.argv.slice(2)), debug);
}
