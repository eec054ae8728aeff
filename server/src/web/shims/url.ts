// node:url for the web-worker bundles: fileURLToPath / pathToFileURL with Node's POSIX rules
// (test/unit/web-shims.test.ts compares them with node:url).
import * as path from 'path-browserify';

export function fileURLToPath(input: string | URL): string {
  const url = typeof input === 'string' ? new URL(input) : input;
  if (url.protocol !== 'file:') throw new TypeError('The URL must be of scheme file');
  if (url.hostname !== '') throw new TypeError('File URL host must be "localhost" or empty on linux');
  const pathname = url.pathname;
  for (let i = 0; i < pathname.length; i++) {
    if (pathname[i] === '%' && pathname[i + 1] === '2' && (pathname[i + 2] ?? '').toLowerCase() === 'f') {
      throw new TypeError('File URL path must not include encoded / characters');
    }
  }
  return decodeURIComponent(pathname);
}

export function pathToFileURL(filepath: string): URL {
  let resolved = path.resolve(filepath);
  if (filepath.endsWith('/') && !resolved.endsWith('/')) resolved += '/';
  // what the URL parser would not escape, as Node escapes it
  const escaped = resolved
    .replace(/%/g, '%25')
    .replace(/\\/g, '%5C')
    .replace(/\n/g, '%0A')
    .replace(/\r/g, '%0D')
    .replace(/\t/g, '%09')
    .replace(/\?/g, '%3F')
    .replace(/#/g, '%23')
    .replace(/\[/g, '%5B')
    .replace(/\]/g, '%5D')
    .replace(/\^/g, '%5E')
    .replace(/\|/g, '%7C')
    .replace(/~/g, '%7E');
  return new URL(`file://${escaped}`);
}
