// node:fs in the web-worker bundles. The web build reads records through the client
// (workspace.fs, see client/src/recordFiles.ts) and never touches a disk: every function fails
// as a missing file would (ENOENT), existsSync says false. A name missing here fails the build
// (esbuild's import-is-undefined is an error in the web build): add it when shared code needs it.
import { stub } from './unavailable';

export const existsSync = (): boolean => false;
export const statSync = stub('fs.statSync');
export const lstatSync = stub('fs.lstatSync');
export const fstatSync = stub('fs.fstatSync');
export const realpathSync = stub('fs.realpathSync');
export const readFileSync = stub('fs.readFileSync');
export const readdirSync = stub('fs.readdirSync');
export const openSync = stub('fs.openSync');
export const readSync = stub('fs.readSync');
export const writeSync = stub('fs.writeSync');
export const closeSync = stub('fs.closeSync');
export const fsync = stub('fs.fsync');
export const writeFileSync = stub('fs.writeFileSync');
export const mkdirSync = stub('fs.mkdirSync');
export const renameSync = stub('fs.renameSync');
export const rmSync = stub('fs.rmSync');
export const unlinkSync = stub('fs.unlinkSync');
export const createReadStream = stub('fs.createReadStream');
export const createWriteStream = stub('fs.createWriteStream');
export const watch = stub('fs.watch');

/** fs.promises: every method rejects with the same ENOENT error. */
export const promises: Record<string, (...args: unknown[]) => Promise<never>> = new Proxy(
  {},
  {
    get: (_t, name) => async () => stub(`fs.promises.${String(name)}`)(),
  },
);

export default { existsSync, statSync, lstatSync, fstatSync, realpathSync, readFileSync, readdirSync, openSync, readSync, writeSync, closeSync, fsync, writeFileSync, mkdirSync, renameSync, rmSync, unlinkSync, createReadStream, createWriteStream, watch, promises };
