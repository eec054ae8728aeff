// The CLI's version, from package.json (bundled into dist/cli.js by esbuild).
import pkg from '../../../package.json';

export const VERSION: string = (pkg as { version: string }).version;
