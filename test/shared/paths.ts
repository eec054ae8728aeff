// Where things are in this repository, for tests that run from their sources under node (unit,
// protocol). Not for the e2e suites: esbuild bundles them into out/e2e, where __dirname is
// elsewhere; they find files through the workspace folder code-server opened.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** The repository's root. */
export const REPO = path.resolve(__dirname, '..', '..');
/** test/fixtures. */
export const FIXTURES = path.join(REPO, 'test', 'fixtures');
/** The bundled records (records/). */
export const BUNDLED_RECORDS = path.join(REPO, 'records');
/** The built CLI and language server (node esbuild.mjs). */
export const CLI = path.join(REPO, 'dist', 'cli.js');
export const SERVER = path.join(REPO, 'dist', 'server.js');
/** The workspace the protocol and feature tests open (copied when a test edits it). */
export const WORKSPACE_FIXTURE = path.join(FIXTURES, 'workspace');

/** A new empty folder under the OS temp folder, named `ee-<name>-…` (the test removes it). */
export function tempDir(name: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `ee-${name}-`));
}
