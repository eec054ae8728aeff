// core/blocks: error blocks in real traces (test/fixtures/traces, made by running failing programs
// on this machine: see its make.sh) in every form logs wrap them in; the incremental index and the
// stream give what a full parse gives; frames name raise sites; junk never throws.
import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import {
  BlockIndex,
  BlockStream,
  blockAround,
  type ErrorBlock,
  LOOKAHEAD,
  MAX_BLOCK_LINES,
  arraySource,
  classify,
  compareHits,
  findBlocks,
  frameHit,
  framePathMatches,
  hasBlockShape,
  isFrameLine,
  lineInfo,
  normalizeFramePath,
  parseBlockAt,
  sameBlock,
  shiftBlock,
} from '../../server/src/core/blocks';
import { mayHoldBlockShape } from '../../server/src/core/blocks/shapes';
import { FORMS, facts, traceFiles, traceLines } from './traces';

const REAL = path.join(__dirname, '../fixtures/real');

type Expect = { kind: string; lines: [number, number]; cls?: string; message: string | null; raised: string | null; frames: number; chain?: string };

/** What each real trace holds (checked by reading the traces). */
const EXPECTED: Record<string, Expect[]> = {
  'python/asyncio_task_done.txt': [{ kind: 'python', lines: [0, 16], cls: 'ValueError', message: 'task_done() called too many times', raised: '/usr/lib/python3.11/asyncio/queues.py:201', frames: 6 }],
  'python/bz2_mode.txt': [{ kind: 'python', lines: [0, 8], cls: 'ValueError', message: "Invalid mode: 'rz'", raised: '/usr/lib/python3.11/bz2.py:78', frames: 3 }],
  'python/carets.txt': [{ kind: 'python', lines: [0, 6], cls: 'TypeError', message: "join() argument must be str, bytes, or os.PathLike object, not 'int'", raised: '<frozen genericpath>:152', frames: 3 }],
  // (the SyntaxError's `File "settings.cfg", line 1` says where the bad code is: compile() raised)
  'python/compile_error.txt': [{ kind: 'python', lines: [0, 6], cls: 'SyntaxError', message: 'invalid syntax', raised: '/tmp/ee-traces/python/compile_error.py:1', frames: 2 }],
  'python/configparser_nosection.txt': [{ kind: 'python', lines: [0, 8], cls: 'configparser.NoSectionError', message: "No section: 'b'", raised: '/usr/lib/python3.11/configparser.py:1168', frames: 3 }],
  'python/during_handling.txt': [{ kind: 'python', lines: [0, 5], cls: 'ValueError', message: "unknown archive format 'zipp'", raised: '/usr/lib/python3.11/shutil.py:1105', frames: 2 }],
  'python/gzip_mode.txt': [{ kind: 'python', lines: [0, 9], cls: 'ValueError', message: "invalid mode: 'rzb'", raised: '/usr/lib/python3.11/gzip.py:174', frames: 3 }],
  'python/json_cause.txt': [
    { kind: 'python', lines: [0, 13], cls: 'json.decoder.JSONDecodeError', message: 'Expecting property name enclosed in double quotes: line 1 column 2 (char 1)', raised: '/usr/lib/python3.11/json/decoder.py:353', frames: 4 },
    { kind: 'python', lines: [15, 22], cls: 'RuntimeError', message: 'config is not valid JSON', raised: '/tmp/ee-traces/python/json_cause.py:6', frames: 2, chain: 'caused-by-previous' },
  ],
  'python/logging_exception.txt': [{ kind: 'python', lines: [2, 7], cls: 'ValueError', message: "unknown archive format 'tgz'", raised: '/usr/lib/python3.11/shutil.py:1105', frames: 2 }],
  'python/lzma_encoding.txt': [{ kind: 'python', lines: [0, 5], cls: 'ValueError', message: "Argument 'encoding' not supported in binary mode", raised: '/usr/lib/python3.11/lzma.py:302', frames: 2 }],
  'python/multiline_message.txt': [{ kind: 'python', lines: [0, 8], cls: 'ValueError', message: '2 rows failed validation:', raised: '/tmp/ee-traces/python/multiline_message.py:4', frames: 2 }],
  // (pytest's own report of each test: from the `>` marker after the remote traceback, and from the
  // second test's `____ test_archive_inline ____` header; frames are its `path.py:N:` lines)
  'python/pytest_long_color.txt': [
    { kind: 'python', lines: [5, 12], cls: 'ValueError', message: "unknown archive format 'foo'", raised: '/root/.pyenv/versions/3.11.7/lib/python3.11/shutil.py:1105', frames: 2 },
    { kind: 'python', lines: [18, 35], cls: 'ValueError', message: "unknown archive format 'foo'", raised: '/root/.pyenv/versions/3.11.7/lib/python3.11/concurrent/futures/_base.py:401', frames: 3 },
    { kind: 'python', lines: [36, 73], cls: 'ValueError', message: "unknown archive format 'foo'", raised: '/root/.pyenv/versions/3.11.7/lib/python3.11/shutil.py:1105', frames: 2 },
  ],
  'python/pytest_native.txt': [
    { kind: 'python', lines: [5, 12], cls: 'ValueError', message: "unknown archive format 'foo'", raised: '/root/.pyenv/versions/3.11.7/lib/python3.11/shutil.py:1105', frames: 2 },
    { kind: 'python', lines: [14, 83], cls: 'ValueError', message: "unknown archive format 'foo'", raised: '/root/.pyenv/versions/3.11.7/lib/python3.11/concurrent/futures/_base.py:401', frames: 26, chain: 'caused-by-previous' },
    { kind: 'python', lines: [85, 149], cls: 'ValueError', message: "unknown archive format 'foo'", raised: '/root/.pyenv/versions/3.11.7/lib/python3.11/shutil.py:1105', frames: 25 },
  ],
  'python/queue_empty.txt': [{ kind: 'python', lines: [0, 8], cls: '_queue.Empty', message: '', raised: '/usr/lib/python3.11/queue.py:168', frames: 3 }],
  'python/queue_task_done.txt': [{ kind: 'python', lines: [0, 5], cls: 'ValueError', message: 'task_done() called too many times', raised: '/usr/lib/python3.11/queue.py:75', frames: 2 }],
  'python/recursion.txt': [{ kind: 'python', lines: [0, 13], cls: 'RecursionError', message: 'maximum recursion depth exceeded', raised: '/tmp/ee-traces/python/recursion.py:2', frames: 4 }],
  'python/shutil_archive.txt': [{ kind: 'python', lines: [0, 5], cls: 'ValueError', message: "unknown archive format 'foo'", raised: '/usr/lib/python3.11/shutil.py:1105', frames: 2 }],
  'python/socket_makefile.txt': [{ kind: 'python', lines: [0, 5], cls: 'ValueError', message: "invalid mode 'rz' (only r, w, b allowed)", raised: '/usr/lib/python3.11/socket.py:312', frames: 2 }],
  'python/subprocess_check.txt': [{ kind: 'python', lines: [0, 5], cls: 'subprocess.CalledProcessError', message: "Command '['false']' returned non-zero exit status 1.", raised: '/usr/lib/python3.11/subprocess.py:571', frames: 2 }],
  'python/syntax_error.txt': [{ kind: 'python', lines: [0, 3], cls: 'SyntaxError', message: 'invalid syntax', raised: '/tmp/ee-traces/python/syntax_error.py:1', frames: 1 }],
  'python/tarfile_open.txt': [{ kind: 'python', lines: [0, 9], cls: 'tarfile.ReadError', message: 'file could not be opened successfully:', raised: '/usr/lib/python3.11/tarfile.py:1669', frames: 2 }],
  // (threading's `Exception in thread worker-7:` heads its traceback)
  'python/thread_raise.txt': [{ kind: 'python', lines: [0, 8], cls: 'tarfile.CompressionError', message: "unknown compression type 'zz'", raised: '/usr/lib/python3.11/tarfile.py:1681', frames: 3 }],
  'python/threading_wait.txt': [{ kind: 'python', lines: [0, 5], cls: 'RuntimeError', message: 'cannot wait on un-acquired lock', raised: '/usr/lib/python3.11/threading.py:312', frames: 2 }],
  'python/wave_sampwidth.txt': [
    { kind: 'python', lines: [0, 5], cls: 'wave.Error', message: 'bad sample width', raised: '/usr/lib/python3.11/wave.py:474', frames: 2 },
    { kind: 'python', lines: [7, 11], cls: 'wave.Error', message: '# channels not specified', raised: '/usr/lib/python3.11/wave.py:583', frames: 3 },
  ],
  'python/zipfile_bad.txt': [{ kind: 'python', lines: [0, 7], cls: 'zipfile.BadZipFile', message: 'File is not a zip file', raised: '/usr/lib/python3.11/zipfile.py:1369', frames: 3 }],
  'node/arg_type.txt': [{ kind: 'node', lines: [0, 14], cls: 'TypeError', message: 'The "path" argument must be of type string. Received type number (7)', raised: 'node:path:1305', frames: 8 }],
  'node/async_json.txt': [{ kind: 'node', lines: [0, 7], cls: 'SyntaxError', message: 'Expected double-quoted property name in JSON at position 8', raised: '/tmp/ee-traces/node/async_json.js:3', frames: 2 }],
  'node/error_cause.txt': [
    { kind: 'node', lines: [0, 11], cls: 'Error', message: 'settings.json5 is invalid', raised: '/tmp/ee-traces/node/error_cause.js:6', frames: 6 },
    // (its last line: the `}` closing the properties of the error it is the cause of)
    { kind: 'node', lines: [12, 26], cls: 'SyntaxError', message: "JSON5: invalid character '}' at 1:5", raised: '/tmp/ee-traces/node/node_modules/json5/lib/parse.js:1110', frames: 10, chain: 'cause-of-previous' },
  ],
  'node/esm_throw.txt': [{ kind: 'node', lines: [0, 11], cls: 'TypeError', message: 'Expected pattern to be a non-empty string', raised: '/tmp/ee-traces/node/node_modules/picomatch/lib/picomatch.js:59', frames: 7 }],
  'node/fill_range.txt': [{ kind: 'node', lines: [0, 14], cls: 'RangeError', message: "Invalid range arguments: [ '1.5', '3' ]", raised: '/tmp/ee-traces/node/node_modules/fill-range/index.js:115', frames: 10 }],
  'node/fs_enoent.txt': [{ kind: 'node', lines: [0, 18], cls: 'Error', message: "ENOENT: no such file or directory, open '/nonexistent/ee-traces/config.json'", raised: 'node:fs:448', frames: 9 }],
  'node/inspect_colors.txt': [{ kind: 'node', lines: [0, 9], cls: 'TypeError', message: 'Expected step "x" to be a number', raised: '/tmp/ee-traces/node/node_modules/fill-range/index.js:125', frames: 9 }],
  'node/logged_stack.txt': [{ kind: 'node', lines: [1, 9], cls: 'TypeError', message: 'Invalid Version: not-a-version', raised: '/tmp/ee-traces/node/node_modules/semver/classes/semver.js:56', frames: 8 }],
  'node/minimatch_long.txt': [{ kind: 'node', lines: [0, 13], cls: 'TypeError', message: 'pattern is too long', raised: '/tmp/ee-traces/node/node_modules/minimatch/dist/commonjs/assert-valid-pattern.js:10', frames: 9 }],
  'node/picomatch_empty.txt': [{ kind: 'node', lines: [0, 13], cls: 'TypeError', message: 'Expected pattern to be a non-empty string', raised: '/tmp/ee-traces/node/node_modules/picomatch/lib/picomatch.js:59', frames: 9 }],
  'node/semver_invalid.txt': [{ kind: 'node', lines: [0, 13], cls: 'TypeError', message: 'Invalid Version: v1.two', raised: '/tmp/ee-traces/node/node_modules/semver/classes/semver.js:56', frames: 9 }],
  'node/yaml_multiline.txt': [{ kind: 'node', lines: [1, 28], cls: 'YAMLException', message: 'missed comma between flow collection entries (2:1)', raised: '/tmp/ee-traces/node/node_modules/js-yaml/lib/loader.js:197', frames: 10 }],
  'java/CausedBy.txt': [
    { kind: 'java', lines: [0, 3], cls: 'java.lang.IllegalStateException', message: 'cannot load settings from /nonexistent/ee-traces/settings.properties', raised: 'CausedBy.java:9', frames: 3 },
    { kind: 'java', lines: [4, 15], cls: 'java.nio.file.NoSuchFileException', message: '/nonexistent/ee-traces/settings.properties', raised: 'sun/nio/fs/UnixException.java:92', frames: 10, chain: 'cause-of-previous' },
  ],
  'java/Logged.txt': [
    { kind: 'java', lines: [2, 5], cls: 'java.lang.UnsupportedOperationException', message: '', raised: 'java/util/ImmutableCollections.java:142', frames: 3 },
    { kind: 'java', lines: [8, 10], cls: 'java.lang.ClassCastException', message: "class java.lang.String cannot be cast to class java.lang.Integer (java.lang.String and java.lang.Integer are in module java.base of loader 'bootstrap')", raised: 'Logged.java:14', frames: 2 },
  ],
  'java/Multiline.txt': [{ kind: 'java', lines: [0, 3], cls: 'java.lang.IllegalArgumentException', message: '2 fields are invalid:', raised: 'Multiline.java:3', frames: 1 }],
  'java/ParseConfig.txt': [{ kind: 'java', lines: [0, 5], cls: 'java.lang.NumberFormatException', message: 'For input string: "80a"', raised: 'java/lang/NumberFormatException.java:67', frames: 5 }],
  'java/Suppressed.txt': [
    { kind: 'java', lines: [0, 3], cls: 'java.lang.IndexOutOfBoundsException', message: 'Index: 5 Size: 2', raised: 'java/util/ImmutableCollections.java:333', frames: 3 },
    { kind: 'java', lines: [4, 6], cls: 'java.lang.IllegalStateException', message: 'close failed: connection reset', raised: 'Suppressed.java:4', frames: 2, chain: 'suppressed-in-previous' },
  ],
  'go/goroutine_panic.txt': [{ kind: 'go', lines: [0, 7], message: 'queue is closed', raised: '/tmp/ee-traces/go/goroutine_panic.go:12', frames: 2 }],
  'go/index_range.txt': [{ kind: 'go', lines: [0, 7], message: 'runtime error: index out of range [5] with length 3', raised: '/tmp/ee-traces/go/index_range.go:6', frames: 2 }],
  'go/nil_map.txt': [{ kind: 'go', lines: [0, 8], message: 'runtime error: invalid memory address or nil pointer dereference', raised: '/tmp/ee-traces/go/nil_map.go:5', frames: 2 }],
  'go/panic_error.txt': [{ kind: 'go', lines: [0, 7], message: 'load settings: open /nonexistent/ee-traces/settings.json: no such file or directory', raised: '/tmp/ee-traces/go/panic_error.go:11', frames: 2 }],
  'go/panic_explicit.txt': [{ kind: 'go', lines: [0, 7], message: 'no configuration file found in /etc/app', raised: '/tmp/ee-traces/go/panic_explicit.go:4', frames: 2 }],
  'rust/assert_eq.backtrace.txt': [{ kind: 'rust', lines: [1, 18], message: 'assertion `left == right` failed: arithmetic is broken', raised: 'assert_eq.rs:3', frames: 7 }],
  'rust/assert_eq.txt': [{ kind: 'rust', lines: [1, 5], message: 'assertion `left == right` failed: arithmetic is broken', raised: 'assert_eq.rs:3', frames: 1 }],
  'rust/index_backtrace.backtrace.txt': [{ kind: 'rust', lines: [1, 16], message: 'index out of bounds: the len is 3 but the index is 7', raised: 'index_backtrace.rs:2', frames: 7 }],
  'rust/index_backtrace.txt': [{ kind: 'rust', lines: [1, 3], message: 'index out of bounds: the len is 3 but the index is 7', raised: 'index_backtrace.rs:2', frames: 1 }],
  'rust/panic_explicit.backtrace.txt': [{ kind: 'rust', lines: [1, 12], message: 'no configuration file found in /etc/app', raised: 'panic_explicit.rs:4', frames: 5 }],
  'rust/panic_explicit.txt': [{ kind: 'rust', lines: [1, 3], message: 'no configuration file found in /etc/app', raised: 'panic_explicit.rs:4', frames: 1 }],
  'rust/thread_panic.backtrace.txt': [{ kind: 'rust', lines: [1, 18], message: 'no entry found for key', raised: 'thread_panic.rs:5', frames: 8 }],
  'rust/thread_panic.txt': [{ kind: 'rust', lines: [1, 3], message: 'no entry found for key', raised: 'thread_panic.rs:5', frames: 1 }],
  'rust/unwrap_err.backtrace.txt': [{ kind: 'rust', lines: [1, 18], message: 'called `Result::unwrap()` on an `Err` value: ParseIntError { kind: InvalidDigit }', raised: 'unwrap_err.rs:2', frames: 8 }],
  'rust/unwrap_err.txt': [{ kind: 'rust', lines: [1, 3], message: 'called `Result::unwrap()` on an `Err` value: ParseIntError { kind: InvalidDigit }', raised: 'unwrap_err.rs:2', frames: 1 }],
};

function summary(b: ErrorBlock, lines: readonly string[]): Expect {
  const e = b.exceptions[0];
  const r = b.frames[b.raising];
  const o: Expect = { kind: b.kind, lines: [b.first, b.last], message: e ? lines[e.lineIndex]!.slice(e.start, e.end) : null, raised: r ? `${r.file}:${r.line}` : null, frames: b.frames.length };
  if (b.errorClass) o.cls = b.errorClass;
  if (b.chain) o.chain = b.chain;
  return o;
}

/** 0-based index of the first line containing `text` (positions from the text, never counted). */
function lineWith(lines: readonly string[], text: string, from = 0): number {
  const i = lines.findIndex((l, k) => k >= from && l.includes(text));
  assert.ok(i >= 0, `no line with ${text}`);
  return i;
}

function roleOf(blocks: readonly ErrorBlock[], i: number): string {
  const b = blocks.find((x) => x.first <= i && i <= x.last);
  return b ? b.roles[i - b.first]! : 'outside';
}

describe('error blocks (core/blocks)', () => {
  describe('real traces', () => {
    it('every trace of the fixtures has an expectation (and the other way round)', () => {
      assert.deepEqual(traceFiles(), Object.keys(EXPECTED).sort((a, b) => traceFiles().indexOf(a) - traceFiles().indexOf(b)));
    });

    for (const name of traceFiles()) {
      it(`${name}: blocks, classes, messages, raising frames`, () => {
        const lines = traceLines(name);
        assert.deepEqual(findBlocks(lines).map((b) => summary(b, lines)), EXPECTED[name]);
      });
    }

    it("a Node error's properties cut short by the next log record: the block ends before that record", () => {
      const trace = traceLines('node/fs_enoent.txt');
      const open = trace.findIndex((l) => /\{\s*$/.test(l) && /^\s+at /.test(l));
      assert.ok(open > 0, 'the trace has a properties object');
      // the dump stops after the first property (a log that interleaves it with other records)
      const records = Array.from({ length: 150 }, (_, i) => `2026-12-01 09:00:00 ERROR unknown archive format 'zip${i}'`);
      const lines = [...trace.slice(0, open + 2), ...records];
      const blocks = findBlocks(lines);
      assert.equal(blocks.length, 1);
      assert.equal(blocks[0]!.last, open + 1, 'the block holds the frames and the property, not the records after it');
      // the whole dump is still one block with every property
      const whole = findBlocks(trace);
      assert.equal(whole[0]!.last, trace.findIndex((l, i) => i > open && l.trim() === '}'));
    });

    it('frame lines are frames; the code a traceback quotes and its carets are quoted', () => {
      for (const name of traceFiles()) {
        const lines = traceLines(name);
        const blocks = findBlocks(lines);
        lines.forEach((l, i) => {
          if (/^\s+at \S|^\s+File "|^goroutine \d+ \[|^\t\S+\.go:\d+/.test(l)) assert.equal(roleOf(blocks, i), 'frame', `${name}:${i + 1} ${l}`);
        });
      }
      const py = traceLines('python/carets.txt');
      const pb = findBlocks(py);
      assert.equal(roleOf(pb, lineWith(py, "target = os.path.join(parts[0], parts[1]) + '/data'")), 'quoted');
      assert.equal(roleOf(pb, lineWith(py, '^^^^^^^^')), 'quoted');
      const sh = traceLines('python/shutil_archive.txt');
      assert.equal(roleOf(findBlocks(sh), lineWith(sh, 'raise ValueError("unknown archive format')), 'quoted');
      const node = traceLines('node/picomatch_empty.txt');
      const nb = findBlocks(node);
      assert.equal(roleOf(nb, lineWith(node, "throw new TypeError('Expected pattern")), 'quoted', 'Node quotes the throw site above the error');
      assert.equal(roleOf(nb, lineWith(node, 'node_modules/picomatch/lib/picomatch.js:59')), 'frame');
      assert.equal(roleOf(nb, lineWith(node, 'TypeError: Expected pattern')), 'exception');
    });

    it('messages over several lines: every line is an exception line, up to the frames / a blank line / a new record', () => {
      const t = traceLines('python/tarfile_open.txt');
      const tb = findBlocks(t)[0]!;
      assert.deepEqual(tb.exceptions.map((e) => t[e.lineIndex]!.slice(e.start, e.end)), [
        'file could not be opened successfully:',
        "- method gz: ReadError('not a gzip file')",
        "- method bz2: ReadError('not a bzip2 file')",
        "- method xz: ReadError('not an lzma file')",
        "- method tar: ReadError('truncated header')",
      ]);
      const j = traceLines('java/Multiline.txt');
      assert.deepEqual(findBlocks(j)[0]!.exceptions.map((e) => j[e.lineIndex]!.slice(e.start, e.end)), ['2 fields are invalid:', 'name: empty', 'age: -1']);
      const y = traceLines('node/yaml_multiline.txt');
      assert.equal(findBlocks(y)[0]!.exceptions.length, 4, 'the snippet js-yaml puts in its message');
      const log = traceLines('python/logging_exception.txt');
      const lb = findBlocks(log);
      assert.equal(roleOf(lb, lineWith(log, 'INFO backup: done')), 'outside', 'the next log record ends the message');
      assert.equal(roleOf(lb, lineWith(log, 'ERROR backup: backup failed')), 'outside', "the logger's own line is not part of the traceback");
    });

    it('chains: each exception of a chain is a block of its own, linked to the one before', () => {
      const py = traceLines('python/json_cause.txt');
      const [a, b] = findBlocks(py);
      assert.equal(b!.chain, 'caused-by-previous');
      assert.equal(b!.first, lineWith(py, 'The above exception was the direct cause'));
      assert.equal(roleOf([a!, b!], b!.first), 'other');
      const node = traceLines('node/error_cause.txt');
      const nb = findBlocks(node);
      assert.equal(nb[1]!.first, lineWith(node, '[cause]: SyntaxError'));
      assert.equal(roleOf(nb, lineWith(node, 'lineNumber: 1')), 'other', "Node's error properties");
    });

    it('Node: the error code in brackets, properties after the stack, the throw site above', () => {
      const l = traceLines('node/arg_type.txt');
      const b = findBlocks(l)[0]!;
      assert.equal(b.errorClass, 'TypeError');
      assert.equal(b.errorCode, 'ERR_INVALID_ARG_TYPE');
      assert.equal(roleOf([b], lineWith(l, "code: 'ERR_INVALID_ARG_TYPE'")), 'other');
      assert.equal(roleOf([b], lineWith(l, 'node:internal/errors:541')), 'frame');
      assert.equal(roleOf([b], lineWith(l, 'Node.js v20')), 'outside');
    });

    it('the same blocks in every form: ANSI colours, a prefix on every line, a prefix on the first line only', () => {
      for (const name of traceFiles()) {
        const plain = traceLines(name);
        const blocks = findBlocks(plain);
        const want = blocks.map((b) => facts(b, plain));
        for (const form of FORMS) {
          const lines = form.apply(plain, blocks);
          const got = findBlocks(lines).map((b) => facts(b, lines));
          assert.deepEqual(got, want, `${name} (${form.name})`);
        }
      }
    });

    it('traces back to back, without a blank line between: the same blocks as each alone', () => {
      const trim = (l: string[]) => {
        const x = [...l];
        while (x.length && !x[x.length - 1]!.trim()) x.pop();
        while (x.length && !x[0]!.trim()) x.shift();
        return x;
      };
      const names = traceFiles();
      let pairs = 0;
      for (const a of names) {
        // (pytest's output starts with free text, `FF   [100%]`: after an exception line that reads
        // as one more line of its message, as it would in any log)
        for (const b of names.filter((n) => !n.includes('pytest'))) {
          const A = trim(traceLines(a));
          const B = trim(traceLines(b));
          const all = [...A, ...B];
          const want = [...findBlocks(A), ...findBlocks(B).map((x) => shiftBlock(x, A.length))].map((x) => facts(x, all));
          assert.deepEqual(findBlocks(all).map((x) => facts(x, all)), want, `${a} + ${b}`);
          pairs++;
        }
      }
      assert.ok(pairs > 2500);
    });

    it('a real ANSI trace (util.inspect with colours): frames in grey, paths underlined', () => {
      const l = traceLines('node/inspect_colors.txt');
      assert.ok(l.some((x) => x.includes('\x1b[')), 'the fixture has escapes');
      const b = findBlocks(l)[0]!;
      assert.equal(b.frames.length, 9);
      assert.equal(b.frames[0]!.file, '/tmp/ee-traces/node/node_modules/fill-range/index.js');
    });
  });

  describe('real corpora (test/fixtures/real: printed by Python and Node, truth from the exception objects)', () => {
    interface TruthBlock {
      id: string;
      form: string;
      firstLine: number;
      lastLine: number;
      exceptionLine: number;
      class: string;
      raise?: { logLine: number | null } | null;
      throwFrame?: { logLine: number };
      frames: { logLine: number | null }[];
    }
    const corpus = (name: string) => {
      const lines = readFileSync(path.join(REAL, `${name}.log`), 'utf8').split('\n');
      const truth = JSON.parse(readFileSync(path.join(REAL, `${name}.truth.json`), 'utf8')) as { blocks: TruthBlock[]; noiseLines: number[] };
      return { lines, truth, blocks: findBlocks(lines) };
    };
    /** The blocks a truth block spans: its exception's block with the chain around it (1-based). */
    const span = (blocks: ErrorBlock[], b: ErrorBlock): [number, number] => {
      let i = blocks.indexOf(b);
      while (i > 0 && blocks[i]!.chain && blocks[i]!.chain !== 'cause-of-previous') i--;
      let e = blocks.indexOf(b);
      while (e + 1 < blocks.length && blocks[e + 1]!.chain === 'cause-of-previous') e++;
      return [blocks[i]!.first + 1, blocks[e]!.last + 1];
    };

    for (const name of ['python-tracebacks', 'node-stacks']) {
      it(`${name}: every traceback's lines, exception line, frames and raising frame; no noise line inside a block`, () => {
        const { truth, blocks } = corpus(name);
        let checked = 0;
        for (const t of truth.blocks) {
          const k = t.exceptionLine - 1;
          const b = blocks.find((x) => x.first <= k && k <= x.last);
          assert.ok(b, `${t.id}: a block holds the exception line`);
          assert.equal(b.roles[k - b.first], 'exception', `${t.id}: exception line`);
          for (const f of t.frames) if (f.logLine !== null && f.logLine - 1 >= b.first) assert.equal(b.roles[f.logLine - 1 - b.first], 'frame', `${t.id}: frame at ${f.logLine}`);
          const raising = name === 'node-stacks' ? t.throwFrame!.logLine : t.raise?.logLine;
          if (raising) assert.equal(b.frames[b.raising]!.lineIndex + 1, raising, `${t.id}: the raising frame`);
          const [first, last] = span(blocks, b);
          assert.equal(last, t.lastLine, `${t.id}: last line`);
          if (t.form === 'logging') {
            // the logging call's own line above the traceback (`ERROR worker: job 1004 failed: …`)
            // is a log line of its own: text alone cannot tell it from any log line before a
            // traceback (the corpus has both)
            assert.equal(first, t.firstLine + 1, `${t.id}: first line`);
          } else if (t.id !== 'multiprocessing_pool_error') {
            // (there the worker's RemoteTraceback, a string, heads the chain: its block starts at its Traceback line)
            assert.equal(first, t.firstLine, `${t.id}: first line`);
          }
          checked++;
        }
        assert.equal(checked, name === 'node-stacks' ? 35 : 89);
        for (const l of truth.noiseLines) assert.ok(!blocks.some((b) => b.first <= l - 1 && l - 1 <= b.last), `noise line ${l} is in no block`);
      });
    }
  });

  describe('rules', () => {
    it('mayHoldBlockShape of raw bytes: never false where a line has a block shape, and false for most plain stretches (real corpora and logs)', () => {
      const files = ['python-tracebacks.log', 'node-stacks.log', 'tsc-output.log', ...readdirSync(path.join(REAL, 'unrelated-logs')).map((f) => path.join('unrelated-logs', f))];
      let windows = 0;
      let quiet = 0;
      let shaped = 0;
      for (const f of files) {
        // lines as the scan cuts them (\n, \r\n, a lone \r), each with its raw bytes and its line end
        const bytes = readFileSync(path.join(REAL, f));
        const starts: number[] = [0];
        for (let k = 0; k < bytes.length; k++) if (bytes[k] === 10 || (bytes[k] === 13 && bytes[k + 1] !== 10)) starts.push(k + 1);
        const lines = starts.slice(0, -1).map((st, k) => bytes.toString('utf8', st, starts[k + 1]).replace(/\r?\n$|\r$/, ''));
        const has = lines.map((l) => hasBlockShape(l));
        for (let i = 0; i + 9 <= lines.length; i++) {
          const window = lines.slice(i, i + 9);
          if (window.some((l) => l.indexOf('\x1b') >= 0)) continue;
          const any = has.slice(i, i + 9).some((x) => x);
          const maybe = mayHoldBlockShape(bytes.subarray(starts[i], starts[i + 9]));
          windows++;
          if (any) {
            shaped++;
            assert.ok(maybe, `${f} line ${i + 1}: a block shape in ${JSON.stringify(window)}`);
          } else if (!maybe) quiet++;
        }
      }
      // (both kinds are there, and the check rules out most stretches without a shape)
      assert.ok(shaped > 1000, `${shaped} windows with a shape`);
      assert.ok(quiet > 0.6 * (windows - shaped), `${quiet} of ${windows - shaped} plain windows ruled out`);
      // a frame's `at ` after indentation, a tab or at the start is a maybe; the word "at" of a message is not
      for (const l of ['    at f (/srv/a.js:1:2)', 'x\tat y', 'at x.js:3:4', 'INFO  at Foo.bar(Foo.java:3)', ' at q']) assert.ok(mayHoldBlockShape(Buffer.from(`ok\n${l}\n`)), l);
      for (const l of ['the job failed at startup', 'retry at 10:02 for user x', 'é at ü']) assert.ok(!mayHoldBlockShape(Buffer.from(`ok\n${l}\n`)), l);
    });

    it('frame lines are frames by their own text; ordinary text with "at" is not', () => {
      for (const f of [
        '    at Object.<anonymous> (/srv/app/index.js:3:9)',
        '    at async main (/srv/app/main.mjs:6:3)',
        '    at file:///srv/app/x.mjs:5:1',
        '    at new SemVer (/srv/node_modules/semver/classes/semver.js:56:13)',
        '    at JSON.parse (<anonymous>)',
        '\tat java.base/java.lang.Integer.parseInt(Integer.java:668)',
        '\tat app//org.example.Main.main(Main.java:3)',
        '\tat MainKt.main(Main.kt:2)',
        '\tat sun.reflect.NativeMethodAccessorImpl.invoke0(Native Method)',
        '  File "/usr/lib/python3.11/shutil.py", line 1105, in make_archive',
        'goroutine 1 [running]:',
        '\t/tmp/main.go:8 +0x1d',
        '\t... 2 more',
        '  [Previous line repeated 996 more times]',
        '2026-12-01T09:00:00Z stderr F     at f (/x.js:1:2)',
      ]) assert.ok(isFrameLine(f), f);
      for (const t of [
        'ERROR failed at step 3 (build.js:10:2)',
        'look at this',
        'Traceback (most recent call last):',
        "ValueError: unknown archive format 'foo'",
        'the server is at capacity',
        'at',
      ]) assert.ok(!isFrameLine(t), t);
      assert.ok(hasBlockShape('Traceback (most recent call last):'));
      assert.ok(!hasBlockShape('2026-12-01 INFO all good'));
    });

    it('pytest reports: location lines are frames by their own text; quoted mail, headings and tables are no reports', () => {
      for (const f of ['tests/test_jobs.py:29: ', '/usr/lib/python3.11/queue.py:168: Empty', 'tests/test_jobs.py:13: in test_month_range']) assert.ok(isFrameLine(f), f);
      for (const t of ['src/x.c:12: error: expected', 'see notes.txt:3: the plan', 'app.py:12: warning here']) assert.ok(!isFrameLine(t), t);
      const notReports = [
        ['> On Monday, Ann wrote:', '> the build failed', '> E   nothing here', 'thanks'],
        ['_____ Results _____', 'all tests passed', '_____ Notes _____'],
        ['_ _ _ _ _ _ _ _', '    indented text', 'ValueError: x'],
      ];
      for (const l of notReports) assert.deepEqual(findBlocks(l), [], l.join(' / '));
      // a short (--tb=short) report, as pytest 9 prints it
      const short = [
        '_________________ test_month_range _________________',
        'tests/test_jobs.py:13: in test_month_range',
        '    assert calendar.monthrange(2024, 13)[1] == 31',
        '           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
        '/usr/lib/python3.11/calendar.py:126: in monthrange',
        '    raise IllegalMonthError(month)',
        'E   calendar.IllegalMonthError: bad month number 13; must be 1-12',
        '_________________ test_parse_payload _________________',
      ];
      const [b, next] = findBlocks(short);
      assert.equal(next, undefined);
      assert.deepEqual([b!.first, b!.last, b!.roles.join(',')], [0, 6, 'other,frame,quoted,quoted,frame,quoted,exception']);
      assert.equal(b!.errorClass, 'calendar.IllegalMonthError');
      assert.equal(b!.frames[b!.raising]!.file, '/usr/lib/python3.11/calendar.py');
      assert.equal(short[6]!.slice(b!.exceptions[0]!.start, b!.exceptions[0]!.end), 'bad month number 13; must be 1-12');
    });

    it('a truncated traceback (no exception line) ends at the next log record; its frame and quoted line stay context', () => {
      const lines = [
        '2026-08-28T05:10:07Z ERROR encoder: MMError: no staged embedding for /send req_id=req-7f3a9 (already released)',
        'Traceback (most recent call last):',
        '  File "/opt/sglang/python/sglang/srt/disaggregation/encoder/runtime.py", line 1295, in _dp_worker_handle',
        '    raise MMError(',
        '2026-08-28T05:10:09Z WARN  encoder: encode metadata not ready',
      ];
      const [b, ...rest] = findBlocks(lines);
      assert.equal(rest.length, 0);
      assert.deepEqual([b!.first, b!.last, b!.roles.join(',')], [1, 3, 'other,frame,quoted']);
      assert.deepEqual(b!.exceptions, []);
    });

    it('the line right above a stack is its message when no header says so', () => {
      const lines = ['2026-08-28T05:10:12Z WARN  payments: payment gateway stripe timed out after 30s', '    at charge (src/payments.ts:3:11)', '2026-08-28T05:10:13Z INFO  done'];
      const [b] = findBlocks(lines);
      assert.deepEqual([b!.first, b!.last], [0, 1]);
      assert.equal(lines[0]!.slice(b!.exceptions[0]!.start, b!.exceptions[0]!.end), 'payment gateway stripe timed out after 30s');
      assert.equal(b!.errorClass, undefined);
    });

    it('a header followed by frames wins over earlier lines; a new log record in between breaks it', () => {
      const lines = ['2026-12-01 10:00:00 ERROR TypeError: x is not a function', '2026-12-01 10:00:01 INFO unrelated', 'Error: boom', '    at f (/x.js:1:2)'];
      const [b] = findBlocks(lines);
      assert.equal(b!.first, 2);
      assert.equal(b!.errorClass, 'Error');
    });

    it('a Go panic needs its goroutine dump; a Python chain marker needs its traceback', () => {
      assert.equal(findBlocks(['kernel panic: not syncing', 'reboot in 10s']).length, 0);
      assert.equal(findBlocks(['During handling of the above exception, another exception occurred:', '', 'nothing here']).length, 0);
    });

    it('reads at most LOOKAHEAD lines past a block (or past a line where no block starts)', () => {
      let all: string[] = [];
      for (const name of traceFiles()) all = all.concat(traceLines(name), ['2026-12-01 INFO between traces']);
      let maxRead = -1;
      const inner = arraySource(all.length, (i) => all[i]!);
      const src = { get: (i: number) => ((maxRead = Math.max(maxRead, i)), inner.get(i)) };
      for (let i = 0; i < all.length; ) {
        maxRead = -1;
        const b = parseBlockAt(src, i);
        const end = b ? b.last : i;
        assert.ok(maxRead <= end + LOOKAHEAD, `line ${i}: read ${maxRead}, block ends ${end}`);
        i = end + 1;
      }
    });

    it('a block is cut after MAX_BLOCK_LINES lines; the frames after it are a block of their own', () => {
      const lines = ['Error: deep', ...Array.from({ length: MAX_BLOCK_LINES + 10 }, (_, i) => `    at f${i} (/x.js:${i + 1}:1)`)];
      const bs = findBlocks(lines);
      assert.equal(bs[0]!.last - bs[0]!.first + 1, MAX_BLOCK_LINES);
      assert.equal(bs[1]!.first, MAX_BLOCK_LINES);
      assert.ok(bs[1]!.roles.every((r) => r === 'frame'));
    });
  });

  describe('frames and raise sites', () => {
    it('frame paths against records\' repository-relative paths', () => {
      const yes: [string, string][] = [
        ['/usr/lib/python3.11/shutil.py', 'shutil.py'],
        ['/usr/lib/python3.11/shutil.py', 'Lib/shutil.py'],
        ['/usr/lib/python3.11/json/decoder.py', 'Lib/json/decoder.py'],
        ['/srv/venv/lib/python3.12/site-packages/requests/models.py', 'src/requests/models.py'],
        ['/usr/lib/python3/dist-packages/yaml/constructor.py', 'lib/yaml/constructor.py'],
        ['/app/node_modules/picomatch/lib/picomatch.js', 'picomatch/lib/picomatch.js'],
        ['/app/node_modules/picomatch/lib/picomatch.js', 'lib/picomatch.js'],
        ['/app/node_modules/.pnpm/picomatch@4.0.2/node_modules/picomatch/lib/picomatch.js', 'lib/picomatch.js'],
        ['file:///srv/app/src/x.mjs', 'src/x.mjs'],
        ['C:\\app\\node_modules\\semver\\classes\\semver.js', 'classes/semver.js'],
        ['java/lang/Integer.java', 'src/java.base/share/classes/java/lang/Integer.java'],
        ['<frozen genericpath>', 'Lib/genericpath.py'],
        ['./src/main.rs', 'src/main.rs'],
      ];
      for (const [f, r] of yes) assert.ok(framePathMatches(f, r), `${f} ~ ${r}`);
      const no: [string, string][] = [
        ['/app/node_modules/picomatch/lib/picomatch.js', 'tsx/dist/cli.mjs'],
        ['/usr/lib/python3.11/shutil.py', 'distutils/archive_util.py'],
        ['/usr/lib/python3.11/queue.py', 'asyncio/queues.py'],
        ['node:internal/errors', 'errors'],
        ['/srv/x/myshutil.py', 'shutil.py'],
      ];
      for (const [f, r] of no) assert.ok(!framePathMatches(f, r), `${f} !~ ${r}`);
      assert.equal(normalizeFramePath('file:///C:/app/x.js'), 'C:/app/x.js');
    });

    it('the raising frame first, then nearer frames; the raise line before the file only', () => {
      const py = traceLines('python/asyncio_task_done.txt');
      const b = findBlocks(py)[0]!;
      assert.deepEqual(frameHit(b, 'asyncio/queues.py', 201), { index: 5, distance: 0, line: true, whole: true });
      assert.deepEqual(frameHit(b, 'asyncio/queues.py', 150), { index: 5, distance: 0, line: false, whole: true });
      assert.deepEqual(frameHit(b, 'asyncio/base_events.py', 653), { index: 3, distance: 2, line: true, whole: true });
      assert.equal(frameHit(b, 'queue.py', 75), undefined);
      assert.equal(frameHit(b, null, 1), undefined);
      const node = traceLines('node/esm_throw.txt');
      const nb = findBlocks(node)[0]!;
      assert.deepEqual(frameHit(nb, 'picomatch/lib/picomatch.js', 59), { index: 0, distance: 0, line: true, whole: true });
      assert.deepEqual(frameHit(nb, 'picomatch/index.js', 13), { index: 1, distance: 1, line: true, whole: true });
      assert.equal(frameHit(nb, 'tsx/dist/cli.mjs', 21), undefined, "tsx's bundled copy of picomatch is not in the stack");
    });

    it('frameHit is what comparing every frame gives (framePathMatches, compareHits): every trace, record paths cut from their frames', () => {
      // (frameHit looks only at frames whose path ends with the record path's file name)
      let hits = 0;
      let paths = 0;
      for (const name of traceFiles()) {
        for (const b of findBlocks(traceLines(name))) {
          const files = b.frames.map((f) => normalizeFramePath(f.file));
          // record paths: each frame's path and its last 1-3 parts, other spellings, unrelated ones
          const cands = new Set<string>(['x.py', 'lib/x.js', 'index.js', '__init__.py']);
          for (const f of files) {
            const parts = f.split('/');
            for (let k = 1; k <= Math.min(3, parts.length); k++) cands.add(parts.slice(-k).join('/'));
            cands.add(f);
            cands.add('src/' + parts[parts.length - 1]!.replace(/\.js$/, '.ts'));
          }
          for (const r of cands) {
            for (const line of [b.frames[0]?.line ?? 1, 1]) {
              paths++;
              let want: ReturnType<typeof frameHit>;
              b.frames.forEach((f, i) => {
                if (!framePathMatches(f.file, r)) return;
                const raising = b.raising < 0 ? 0 : b.raising;
                const got = frameHit({ frames: [f], raising: 0 }, r, line)!;
                const hit = { index: i, distance: Math.abs(i - raising), line: got.line, whole: got.whole };
                if (!want || compareHits(hit, want) < 0) want = hit;
              });
              assert.deepEqual(frameHit(b, r, line), want, `${name}: ${r}:${line}`);
              if (want) hits++;
            }
          }
        }
      }
      assert.ok(hits > 500 && paths - hits > 500, `${hits} hits of ${paths} record paths`);
    });

    it('one frame naming a package and a copy nested in another package: the package first (real node-stacks.log, minimatch)', () => {
      const lines = readFileSync(path.join(REAL, 'node-stacks.log'), 'utf8').split('\n');
      const exc = lines.indexOf('TypeError: pattern is too long');
      const b = findBlocks(lines).find((x) => x.first === exc)!;
      const top = frameHit(b, 'minimatch/dist/commonjs/assert-valid-pattern.js', 10)!;
      const nested = frameHit(b, 'mocha/node_modules/minimatch/dist/commonjs/assert-valid-pattern.js', 10)!;
      // the frame names both (a frame of mocha's copy would print .../mocha/node_modules/minimatch/...)
      assert.deepEqual([top, nested], [
        { index: 0, distance: 0, line: true, whole: true },
        { index: 0, distance: 0, line: true, whole: false },
      ]);
      assert.ok(compareHits(top, nested) < 0 && compareHits(nested, top) > 0);
    });
  });

  describe('incremental index (BlockIndex) and stream (BlockStream)', () => {
    /** All traces, with log lines between them. */
    function corpus(): string[] {
      let all: string[] = [];
      traceFiles().forEach((name, i) => {
        all = all.concat([`2026-12-01 09:00:${String(i % 60).padStart(2, '0')} INFO step ${i}`], traceLines(name));
      });
      return all;
    }
    const src = (lines: string[]) => arraySource(lines.length, (i) => lines[i]!);
    const key = (bs: readonly ErrorBlock[], lines: string[]) => bs.map((b) => facts(b, lines));

    it('built from scratch: the same blocks as findBlocks; partial refreshes too', () => {
      const lines = corpus();
      const idx = new BlockIndex(lines.length);
      for (let upTo = 0; upTo < lines.length; upTo += 97) {
        idx.refresh(src(lines), upTo);
        assert.ok(idx.isFresh(upTo));
      }
      idx.refresh(src(lines));
      assert.deepEqual(key(idx.blocks, lines), key(findBlocks(lines), lines));
    });

    it('blockAround: the block of a line from a parse of the lines before it only is the full parse\'s (every line of the corpus, from 200 lines back)', () => {
      const lines = corpus();
      const full = findBlocks(lines);
      const of: (ErrorBlock | undefined)[] = new Array(lines.length);
      for (const b of full) for (let i = b.first; i <= b.last; i++) of[i] = b;
      let inBlocks = 0;
      for (let i = 0; i < lines.length; i++) {
        const got = blockAround(src(lines), i - 200, i);
        const want = of[i];
        if (want) inBlocks++;
        assert.deepEqual(got ? facts(got, lines) : undefined, want ? facts(want, lines) : undefined, `line ${i}: ${JSON.stringify(lines[i])}`);
      }
      assert.ok(inBlocks > lines.length / 3, `the corpus is mostly blocks (${inBlocks} of ${lines.length} lines)`);
    });

    /** Deterministic pseudo-random numbers. */
    function prng(seed: number) {
      return (n: number) => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return seed % n;
      };
    }
    function randomEdit(lines: string[], rnd: (n: number) => number, pool: string[]) {
      const start = rnd(lines.length + 1);
      const removed = Math.min(rnd(4), lines.length - start);
      const inserted = Array.from({ length: rnd(4) }, () => pool[rnd(pool.length)]!);
      return { start, removed, inserted, lines: [...lines.slice(0, start), ...inserted, ...lines.slice(start + removed)] };
    }
    const editPool = (lines: string[]) => [...lines.filter((l) => l.trim()), '', 'plain text', '    at g (/y.js:2:3)', 'Traceback (most recent call last):', 'Error: boom'];

    it('after random edits (several between refreshes): exactly what a full parse gives', () => {
      let lines = corpus();
      const pool = editPool(lines);
      const rnd = prng(12345);
      const idx = new BlockIndex(lines.length);
      idx.refresh(src(lines));
      for (let step = 0; step < 240; step++) {
        const e = randomEdit(lines, rnd, pool);
        lines = e.lines;
        idx.edit(e.start, e.removed, e.inserted.length);
        if (step % 3 !== 0) continue;
        idx.refresh(src(lines), step % 2 ? Infinity : rnd(lines.length));
        idx.refresh(src(lines));
        assert.deepEqual(key(idx.blocks, lines), key(findBlocks(lines), lines), `step ${step}`);
      }
    });

    it('after an edit, every line outside it whose block changed is in a reported change', () => {
      let lines = corpus();
      const pool = editPool(lines);
      const rnd = prng(777);
      const idx = new BlockIndex(lines.length);
      idx.refresh(src(lines));
      const blockOfLine = (bs: ErrorBlock[], n: number) => {
        const m: (ErrorBlock | undefined)[] = new Array(n);
        for (const b of bs) for (let i = b.first; i <= b.last; i++) m[i] = b;
        return m;
      };
      let before = findBlocks(lines);
      for (let step = 0; step < 150; step++) {
        const e = randomEdit(lines, rnd, pool);
        lines = e.lines;
        idx.edit(e.start, e.removed, e.inserted.length);
        const changes = idx.refresh(src(lines));
        const after = findBlocks(lines);
        const delta = e.inserted.length - e.removed;
        const inChange = (i: number) => changes.some((c) => c.from <= i && i < c.to);
        const oldOf = blockOfLine(before, lines.length - delta);
        const newOf = blockOfLine(after, lines.length);
        for (let i = 0; i < lines.length; i++) {
          if (i >= e.start && i < e.start + e.inserted.length) continue; // edited lines are re-matched anyway
          const j = i < e.start ? i : i - delta; // the same line before the edit
          const ob = oldOf[j];
          const nb = newOf[i];
          const same = !ob && !nb ? true : !!ob && !!nb && sameBlock(ob.first >= e.start + e.removed ? shiftBlock(ob, delta) : ob, nb);
          if (!same) assert.ok(inChange(i), `step ${step}: line ${i} changed its block but is not reported (${JSON.stringify(changes)})`);
        }
        before = after;
      }
    });

    it('reports as changed the lines of blocks that appeared, went or differ, and nothing else', () => {
      const lines = ['plain', 'Error: boom', 'plain 2'];
      const idx = new BlockIndex(lines.length);
      assert.deepEqual(idx.refresh(src(lines)), []);
      // append a frame under the header: a block appears on lines 1-2
      lines.splice(2, 0, '    at f (/x.js:1:2)');
      idx.edit(2, 0, 1);
      assert.deepEqual(idx.refresh(src(lines)), [{ from: 1, to: 3 }]);
      // append an unrelated line at the end: nothing changes
      lines.push('plain 3');
      idx.edit(lines.length - 1, 0, 1);
      assert.deepEqual(idx.refresh(src(lines)), []);
      // delete the frame: the block goes
      lines.splice(2, 1);
      idx.edit(2, 1, 0);
      assert.deepEqual(idx.refresh(src(lines)), [{ from: 1, to: 2 }], 'the header line left of it');
      assert.equal(idx.blocks.length, 0);
    });

    it('an edit re-parses only around it (a 100,000-line document)', () => {
      const lines = corpus();
      while (lines.length < 100_000) lines.push(...corpus());
      const idx = new BlockIndex(lines.length);
      idx.refresh(src(lines));
      let reads = 0;
      const counting = (ls: string[]) => {
        const s = src(ls);
        return { get: (i: number) => (reads++, s.get(i)) };
      };
      lines.push('2026-12-01 INFO appended');
      idx.edit(lines.length - 1, 0, 1);
      idx.refresh(counting(lines));
      assert.ok(reads < 4 * LOOKAHEAD, `append read ${reads} lines`);
      reads = 0;
      const mid = 50_000;
      lines[mid] = 'edited';
      idx.edit(mid, 1, 1);
      idx.refresh(counting(lines));
      assert.ok(reads < 2000, `an edit in the middle read ${reads} lines`);
      assert.deepEqual(key(idx.blocks, lines).length, findBlocks(lines).length);
    });

    it('the stream hands every line back, in order, with the roles of a full parse', () => {
      const lines = corpus();
      const want = findBlocks(lines);
      const got: { n: number; role: string }[] = [];
      const s = new BlockStream<number>((l) => got.push({ n: l.lineNumber, role: l.role ?? 'outside' }));
      lines.forEach((l, i) => s.push(i, l, i));
      s.end();
      assert.deepEqual(got.map((g) => g.n), lines.map((_, i) => i));
      assert.deepEqual(got.map((g) => g.role), lines.map((_, i) => roleOf(want, i)));
    });

    it('the stream: a gap in the line numbers ends what is pending (windows of lines)', () => {
      const lines = traceLines('python/shutil_archive.txt');
      const got: string[] = [];
      const s = new BlockStream((l) => got.push(`${l.lineNumber}:${l.role ?? '-'}`));
      // only the last three lines of the traceback, then a far away line
      for (let i = 3; i < 6; i++) s.push(100 + i, lines[i]!);
      s.push(500, 'ValueError: not in a block');
      s.end();
      assert.deepEqual(got, ['103:frame', '104:quoted', '105:exception', '500:-']);
    });

    it('the stream counts the lines with a payload it has not handed back (pendingPayloads)', () => {
      const lines = traceLines('python/shutil_archive.txt');
      const exc = lines.findIndex((l) => l.startsWith('ValueError:'));
      const handed: number[] = [];
      const s = new BlockStream<number>((l) => {
        if (l.payload !== undefined) handed.push(l.payload);
      });
      const pending: number[] = [];
      lines.forEach((l, i) => {
        s.push(i, l, i === 0 || i === exc ? i : undefined);
        pending.push(s.pendingPayloads);
      });
      // the traceback is decided only once LOOKAHEAD lines follow its start (not there yet)
      assert.equal(pending[exc], 2);
      for (let i = 0; i < LOOKAHEAD + 1; i++) s.push(lines.length + i, `2026-12-01 INFO line ${i}`);
      assert.equal(s.pendingPayloads, 0);
      assert.deepEqual(handed, [0, exc]);
      s.push(1000, 'ValueError: alone', 7);
      assert.equal(s.pendingPayloads, 1);
      s.end();
      assert.equal(s.pendingPayloads, 0);
      assert.deepEqual(handed, [0, exc, 7]);
    });

    it('the stream keeps a bounded buffer on endless frames', () => {
      let maxPending = 0;
      let emitted = 0;
      const s = new BlockStream(() => emitted++);
      const n = 3 * MAX_BLOCK_LINES;
      for (let i = 0; i < n; i++) {
        s.push(i, i === 0 ? 'Error: deep' : `    at f${i} (/x.js:${i}:1)`);
        maxPending = Math.max(maxPending, i + 1 - emitted);
      }
      s.end();
      assert.equal(emitted, n);
      assert.ok(maxPending <= 2 * (MAX_BLOCK_LINES + LOOKAHEAD) + 1, `pending ${maxPending}`);
    });
  });

  describe('hostile input', () => {
    it('junk never throws, and every block is well-formed', () => {
      let seed = 7;
      const rnd = (n: number) => {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        return seed % n;
      };
      const atoms = ['at ', '(', ')', ':', '1', '"', 'File "', ', line ', 'Traceback (most recent call last):', '\t', '  ', '^', 'Error', 'panic: ', 'goroutine 1 [running]:', "thread 'x' panicked at ", '\x1b[31m', '\x1b]633;A\x07', '{', '}', '\u0000', '\ud800', 'é', '... 3 more', 'Caused by: X: y'];
      const lines: string[] = [];
      for (let i = 0; i < 20_000; i++) {
        let l = '';
        for (let k = rnd(12); k > 0; k--) l += atoms[rnd(atoms.length)];
        lines.push(l);
      }
      const bs = findBlocks(lines);
      for (const b of bs) {
        assert.equal(b.roles.length, b.last - b.first + 1);
        for (const e of b.exceptions) assert.ok(e.lineIndex >= b.first && e.lineIndex <= b.last && e.start <= e.end && e.end <= lines[e.lineIndex]!.length);
        for (const f of b.frames) assert.ok(f.lineIndex >= b.first && f.lineIndex <= b.last && f.start <= f.end && f.end <= lines[f.lineIndex]!.length);
        assert.ok(b.raising < b.frames.length);
      }
    });

    it('linear time on long and repetitive lines', () => {
      const long = [
        '    at '.repeat(200_000),
        ' ('.repeat(200_000) + ')',
        'File "'.repeat(100_000),
        'x'.repeat(1_000_000) + ':1',
        'Error: ' + 'a: '.repeat(300_000),
        '\t' + 'a.go:1 '.repeat(100_000),
        ' '.repeat(1_000_000) + 'at f (x.js:1:1)',
      ];
      // CPU time, not wall time: other jobs share this machine
      const cpuMs = (f: () => void) => {
        const c = process.cpuUsage();
        f();
        const d = process.cpuUsage(c);
        return (d.user + d.system) / 1000;
      };
      const t0 = cpuMs(() => {
        for (const l of long) {
          classify(l);
          lineInfo(l);
          findBlocks([l, '    at f (/x.js:1:2)', l]);
        }
      });
      assert.ok(t0 < 2000, `${t0} ms of CPU for ${long.length} long lines`);
      const many = Array.from({ length: 100_000 }, (_, i) => (i % 3 === 0 ? 'Error: e' : i % 3 === 1 ? '    at f (/x.js:1:2)' : '2026-12-01 INFO ok'));
      const t1 = cpuMs(() => findBlocks(many));
      assert.ok(t1 < 2000, `100k lines: ${t1} ms of CPU`);
    });
  });
});
