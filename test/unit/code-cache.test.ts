// The CLI's launcher (server/src/cli/launch.ts, built to dist/cli.js): the bundle runs through
// V8's code cache kept under the index cache folder. Each run here is the built command as a
// child process; ERROR_EXPLAINER_DEBUG makes it say what the cache did. A cache file that is
// missing, truncated, flipped, of another build or rejected by V8 is never used and written anew;
// an unwritable folder, ERROR_EXPLAINER_CODE_CACHE=off or --no-cache changes nothing but the speed; the
// output and exit code are the bundle's own in every case.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { COMMAND_NAMES } from '../../server/src/cli/commandNames';
import { codeCacheFile } from '../../server/src/core/codeCache';
import { COMMANDS } from '../../server/src/cli/main';
import { CLI, REPO, tempDir } from '../shared/paths';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const MAGIC = 'EECODE1\n';
const BUNDLE = path.join(REPO, 'dist', 'cli-main.js');

describe('CLI code cache (dist/cli.js runs dist/cli-main.js through V8 code cache)', function () {
  this.timeout(60_000);
  let root: string;
  let codeDir: string;
  const run = (args: string[], env: Record<string, string> = {}): Run => {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: REPO, encoding: 'utf8', env: { ...process.env, ERROR_EXPLAINER_INDEX_CACHE: root, ERROR_EXPLAINER_DEBUG: '1', ...env } });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  /** What the cache did in a run (the launcher's first debug line). */
  const stateOf = (r: Run): string => /error-explainer: code cache (\w+)/.exec(r.stderr)?.[1] ?? `none in: ${r.stderr}`;
  const written = (r: Run): boolean => /code cache written/.test(r.stderr);
  const bundleSha = () => createHash('sha256').update(readFileSync(BUNDLE, 'utf8').replace(/^#!.*/, '')).digest('hex');
  const fileFor = (command: string) => codeCacheFile(codeDir, bundleSha(), command);
  const EXPLAIN = ['explain', 'MMError: no staged embedding for /send req_id=7d1c0a52 (already released)'];

  beforeEach(() => {
    root = tempDir('code-cache');
    codeDir = path.join(root, 'code');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('the first run of a command writes its cache, the next one uses it; the same output', () => {
    const first = run(EXPLAIN);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(stateOf(first), 'absent');
    assert.ok(written(first), first.stderr);
    const file = fileFor('explain');
    assert.ok(existsSync(file), `no ${file} in ${readdirSync(codeDir).join(', ')}`);
    assert.equal(readFileSync(file).subarray(0, MAGIC.length).toString('latin1'), MAGIC);
    const second = run(EXPLAIN);
    assert.equal(stateOf(second), 'used');
    assert.ok(!written(second), 'a used cache is not written again');
    assert.equal(second.code, first.code);
    assert.equal(second.stdout, first.stdout);
    assert.match(second.stdout, /no staged embedding/);
    // each command has its own file (a run compiles the functions its command runs)
    const version = run(['--version']);
    assert.equal(stateOf(version), 'absent');
    assert.ok(existsSync(fileFor('other')));
    assert.equal(stateOf(run(EXPLAIN)), 'used');
  });

  it('a flipped, truncated or foreign file is never used: the run is the same and the file is written anew', () => {
    const good = run(EXPLAIN);
    const file = fileFor('explain');
    const bytes = readFileSync(file);
    const damaged: [string, () => void][] = [
      ['a byte of the payload flipped', () => {
        const b = Buffer.from(bytes);
        const at = Math.floor(b.length * 0.7);
        b[at] = b[at]! ^ 0x40;
        writeFileSync(file, b);
      }],
      ['a byte of its checksum flipped', () => {
        const b = Buffer.from(bytes);
        b[MAGIC.length + 3] = b[MAGIC.length + 3]! ^ 0x01;
        writeFileSync(file, b);
      }],
      ['truncated', () => truncateSync(file, Math.floor(bytes.length / 2))],
      ['empty', () => truncateSync(file, 0)],
      ['another format', () => writeFileSync(file, Buffer.concat([Buffer.from('EECODE9\n'), bytes.subarray(MAGIC.length)]))],
    ];
    for (const [what, damage] of damaged) {
      damage();
      const r = run(EXPLAIN);
      assert.equal(stateOf(r), 'corrupt', what);
      assert.equal(r.code, good.code, what);
      assert.equal(r.stdout, good.stdout, what);
      assert.ok(written(r), `${what}: not written anew`);
      assert.equal(stateOf(run(EXPLAIN)), 'used', `${what}: the new file is used`);
    }
  });

  it('a well-framed file whose payload V8 rejects is not used and is replaced', () => {
    const good = run(EXPLAIN);
    // a payload of noise with a valid checksum: past our check, V8 must reject it
    const noise = Buffer.alloc(4096, 0x37);
    writeFileSync(fileFor('explain'), Buffer.concat([Buffer.from(MAGIC, 'latin1'), createHash('sha256').update(noise).digest(), noise]));
    const r = run(EXPLAIN);
    assert.equal(stateOf(r), 'rejected');
    assert.equal(r.stdout, good.stdout);
    assert.equal(r.code, good.code);
    assert.ok(written(r));
    assert.equal(stateOf(run(EXPLAIN)), 'used');
  });

  it("another build's files are removed when this build writes; other commands' files stay", () => {
    run(['--version']);
    const foreign = path.join(codeDir, `${'0'.repeat(32)}-${process.version}-${process.platform}-${process.arch}-explain.v8`);
    const unrelated = path.join(codeDir, 'notes.txt');
    writeFileSync(foreign, 'old build');
    writeFileSync(unrelated, 'not ours');
    assert.equal(stateOf(run(EXPLAIN)), 'absent', "another build's file is not this build's");
    assert.ok(!existsSync(foreign), "another build's file is gone");
    assert.ok(existsSync(unrelated), 'a file that is not a code cache file is left alone');
    assert.ok(existsSync(fileFor('other')), "this build's other command keeps its file");
  });

  it('an unwritable folder, ERROR_EXPLAINER_CODE_CACHE=off or --no-cache: the same run, no cache', () => {
    const good = run(EXPLAIN, { ERROR_EXPLAINER_CODE_CACHE: 'off' });
    assert.equal(stateOf(good), 'off');
    assert.ok(!existsSync(codeDir), 'off writes nothing');
    const noCache = run([...EXPLAIN, '--no-cache']);
    assert.equal(stateOf(noCache), 'off');
    assert.equal(noCache.stdout, good.stdout);
    assert.ok(!existsSync(root) || !existsSync(codeDir), '--no-cache writes nothing');
    // the code folder's place taken by a file: nothing can be written there
    writeFileSync(codeDir, 'a file, not a folder');
    const r = run(EXPLAIN);
    assert.equal(r.code, good.code);
    assert.equal(r.stdout, good.stdout);
    assert.equal(stateOf(r), 'unreadable');
    assert.ok(!written(r));
    // without ERROR_EXPLAINER_DEBUG nothing is said about it
    const quiet = spawnSync(process.execPath, [CLI, ...EXPLAIN], { cwd: REPO, encoding: 'utf8', env: { ...process.env, ERROR_EXPLAINER_INDEX_CACHE: root, ERROR_EXPLAINER_DEBUG: '' } });
    assert.equal(quiet.stdout, good.stdout);
    assert.doesNotMatch(quiet.stderr, /code cache/);
  });

  it('errors and exit codes are the bundle\'s own: a usage error exits 2 with its one line', () => {
    for (let k = 0; k < 2; k++) {
      const r = run(['no-such-command']);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /error-explainer: unknown command 'no-such-command'/);
      assert.equal(stateOf(r), k === 0 ? 'absent' : 'used');
    }
    // (a word that names no command shares the file of --help and --version)
    assert.ok(existsSync(fileFor('other')));
    assert.ok(!readdirSync(codeDir).some((f) => f.includes('no-such-command')));
  });

  it('the launcher knows every command by name', () => {
    assert.deepEqual(COMMANDS.map((c) => c.name), [...COMMAND_NAMES]);
  });
});
