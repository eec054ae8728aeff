// node:os in the web-worker bundles: only the long-line spill file (engine/longLine.ts, a file scan
// of lines over its window) asks for a temporary folder, and the web build has no file system or
// file scan, so tmpdir fails as the other file-system shims do.
import { stub } from './unavailable';

export const tmpdir = stub('os.tmpdir');
export const homedir = stub('os.homedir');
export const EOL = '\n';
