// The Node-module shims of the web build (server/src/web/shims, esbuild.mjs aliases them) behave
// like the Node modules they replace, for what shared code uses.
import * as assert from 'node:assert/strict';
import { isUtf8 as nodeIsUtf8 } from 'node:buffer';
import { createHash as nodeCreateHash } from 'node:crypto';
import { StringDecoder as NodeStringDecoder } from 'node:string_decoder';
import * as nodeUrl from 'node:url';
import { isUtf8 } from '../../server/src/web/shims/buffer';
import { createHash } from '../../server/src/web/shims/crypto';
import * as fs from '../../server/src/web/shims/fs';
import * as os from '../../server/src/web/shims/os';
import * as v8 from '../../server/src/web/shims/v8';
import { clearImmediate, process as webProcess, setImmediate } from '../../server/src/web/shims/globals';
import { StringDecoder } from '../../server/src/web/shims/stringDecoder';
import { fileURLToPath, pathToFileURL } from '../../server/src/web/shims/url';
import * as zlib from '../../server/src/web/shims/zlib';

describe('web build: Node-module shims', () => {
  it('url: fileURLToPath and pathToFileURL as node:url does on POSIX', () => {
    const paths = ['/tmp/a.log', '/tmp/with space/x.json', '/tmp/ü ñ/日本.log', '/a%b/c#d?e', '/back\\slash', '/tab\there', '/new\nline', '/dir/', '/', '/a/../b/./c', '/[x]{y}&=+;,@$!\'()*', '/a^b|c`d~e'];
    // every code unit up to U+2000 in a file name (the whole escape table of node:url)
    for (let c = 1; c < 0x2000; c++) if (c !== 0x2f && (c < 0xd800 || c > 0xdfff)) paths.push(`/a${String.fromCharCode(c)}b`);
    for (const p of paths) {
      assert.equal(pathToFileURL(p).href, nodeUrl.pathToFileURL(p).href, p);
      assert.equal(fileURLToPath(pathToFileURL(p).href), nodeUrl.fileURLToPath(nodeUrl.pathToFileURL(p).href), p);
    }
    for (const u of ['file:///tmp/x%20y', 'file:///%E6%97%A5', 'file://localhost/etc/hosts']) assert.equal(fileURLToPath(u), nodeUrl.fileURLToPath(u), u);
    for (const bad of ['https://x/y', 'file://host/share/x', 'file:///a%2Fb']) {
      assert.throws(() => nodeUrl.fileURLToPath(bad));
      assert.throws(() => fileURLToPath(bad), bad);
    }
  });

  it('crypto: sha256 digests equal node:crypto (strings, bytes, several updates)', () => {
    for (const input of ['', 'abc', 'local/records\nquota of {tenant} exhausted\n', 'ü'.repeat(1000)]) {
      assert.equal(createHash('sha256').update(input).digest('hex'), nodeCreateHash('sha256').update(input).digest('hex'));
    }
    const bytes = new Uint8Array(70_000).map((_, i) => i * 7);
    assert.equal(createHash('sha256').update(bytes.subarray(0, 1000)).update(bytes.subarray(1000)).digest('hex'), nodeCreateHash('sha256').update(bytes).digest('hex'));
    assert.equal(createHash('SHA256').update('x').digest('base64'), nodeCreateHash('sha256').update('x').digest('base64'));
    assert.throws(() => createHash('md5'), /only sha256/);
  });

  it('buffer: isUtf8 agrees with node:buffer', () => {
    const cases = [[], [0x61, 0x62], [0xef, 0xbb, 0xbf, 0x61], [0xc3, 0xbc], [0xc3], [0xff, 0xfe, 0x61, 0x00], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]];
    for (const c of cases) assert.equal(isUtf8(new Uint8Array(c)), nodeIsUtf8(new Uint8Array(c)), JSON.stringify(c));
  });

  it('string_decoder: UTF-8 split across chunks decodes as node:string_decoder does', () => {
    const bytes = Buffer.from('aü日本😀z');
    for (let cut = 0; cut <= bytes.length; cut++) {
      const a = new StringDecoder('utf8');
      const b = new NodeStringDecoder('utf8');
      assert.equal(a.write(bytes.subarray(0, cut)) + a.write(bytes.subarray(cut)) + a.end(), b.write(bytes.subarray(0, cut)) + b.write(bytes.subarray(cut)) + b.end());
    }
    assert.throws(() => new StringDecoder('latin1'), /only UTF-8/);
  });

  it('fs, os, zlib and v8: fail as a missing file would, and say why', async () => {
    assert.equal(fs.existsSync(), false);
    assert.throws(() => fs.readFileSync('/etc/hosts'), (e: NodeJS.ErrnoException) => e.code === 'ENOENT' && /fs\.readFileSync is not available in the web worker/.test(e.message));
    await assert.rejects(fs.promises.readFile!('/x'), (e: NodeJS.ErrnoException) => e.code === 'ENOENT' && /fs\.promises\.readFile/.test(e.message));
    assert.throws(() => zlib.gunzipSync(), /zlib\.gunzipSync is not available/);
    assert.throws(() => os.tmpdir(), (e: NodeJS.ErrnoException) => e.code === 'ENOENT' && /os\.tmpdir is not available/.test(e.message));
    assert.throws(() => v8.serialize({}), (e: NodeJS.ErrnoException) => e.code === 'ENOENT' && /v8\.serialize is not available/.test(e.message));
  });

  it('globals: setImmediate runs in order, after the current task; clearImmediate cancels; process has what shared code reads', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('a'));
    const h = setImmediate(() => order.push('cancelled'));
    setImmediate((x: string) => order.push(x), 'b');
    clearImmediate(h);
    order.push('sync');
    await new Promise<void>((r) => setImmediate(() => r()));
    assert.deepEqual(order, ['sync', 'a', 'b']);
    assert.equal(webProcess.cwd(), '/');
    assert.notEqual(webProcess.platform, 'win32');
    assert.deepEqual(webProcess.env, {});
  });
});
