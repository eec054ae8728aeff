// The shape of one line of log text, from its own text alone: a stack-frame line, a traceback
// header, a chain marker, a Go/Rust panic header, ... or plain text. Shapes are found after any
// prefix (a timestamp, a logger name, `web_1  | `, pytest's `E   `): `at` is where the shape's
// token starts, and the prefix is the text before it. Whether a plain line is an exception line or
// quoted code needs its neighbours: see parse.ts.
//
// Every regular expression here runs on one line at a time and is linear in its length (no nested
// or adjacent unbounded quantifiers that can overlap); lines longer than MAX_SHAPE_LINE are text.

/** Lines longer than this are never frames or headers (they can still be an exception's message). */
export const MAX_SHAPE_LINE = 4096;

export type ShapeKind =
  | 'text'
  | 'blank'
  | 'py-header' // Traceback (most recent call last):
  | 'py-chain' // During handling of the above exception, ... / The above exception was the direct cause ...
  | 'py-frame' // File "x.py", line 12, in f
  | 'py-repeat' // [Previous line repeated 996 more times]
  | 'java-thread' // Exception in thread "main" java.lang.X: msg
  | 'caused-by' // Caused by: X: msg
  | 'suppressed' // Suppressed: X: msg
  | 'java-more' // ... 2 more | ... 12 common frames omitted
  | 'at-java' // at pkg.Class.method(File.java:12)
  | 'at-js' // at f (file:1:2) | at file:1:2 | at async f (...) | at new X (...) | at <anonymous>
  | 'js-more' // ... 2 lines matching cause stack trace ...
  | 'go-panic' // panic: msg | fatal error: msg
  | 'goroutine' // goroutine 1 [running]:
  | 'go-file' // \t/path/x.go:12 +0x1d
  | 'go-exit' // exit status 2
  | 'rust-panic' // thread 'main' panicked at src/x.rs:2:5:
  | 'rust-note' // note: run with `RUST_BACKTRACE=1` ... | note: Some details are omitted ...
  | 'rust-backtrace'; // stack backtrace:

export interface FrameLocation {
  file: string;
  line: number;
  column?: number;
  function?: string;
  /** The location's span in the (stripped) text: `file:line[:col]` or the quoted file name. */
  start: number;
  end: number;
}

export interface Shape {
  kind: ShapeKind;
  /** Start of the shape's token in the stripped text (its prefix and indentation come before). */
  at: number;
  /** Frame lines (and a Rust panic header): the location. */
  frame?: FrameLocation;
  /** Headers that name the exception: class and message spans in the stripped text. */
  cls?: [number, number];
  msg?: [number, number];
  /** `[ERR_X]` after a JS error class. */
  code?: string;
  chain?: 'caused-by' | 'during-handling';
  /** A JS frame ending with ` {`: Node prints the error's own properties after it. */
  props?: boolean;
}

const TEXT: Shape = Object.freeze({ kind: 'text', at: 0 }) as Shape;
const BLANK: Shape = Object.freeze({ kind: 'blank', at: 0 }) as Shape;

/**
 * Could a line have a shape at all? It needs one of these tokens (`\d`: a digit) or a frame's `at`
 * (mayHaveShape); most log lines have none and are text at once. Each token comes with where in it
 * TokenSearch looks (its window's offset): chosen, by measuring on logs, to stop the search least
 * often; any offset finds the same.
 */
const SHAPE_TOKENS: readonly (readonly [token: string, window: number])[] = [
  ['File "', 1],
  ['Traceback', 4],
  ['... \\d', 0],
  ['Caused by: ', 6],
  ['Suppressed: ', 7],
  ['panic', 0],
  ['goroutine ', 0],
  ['.go:\\d', 0],
  ['exit status', 0],
  ['During handling', 7],
  ['The above exception', 2],
  ["thread '", 1],
  ['note: ', 1],
  ['stack backtrace:', 5],
  ['Exception in thread', 14],
  ['[Previous line', 3],
];

const DIGIT = -1;
const SPACE = -2; // (a RegExp's \s)

/** Is c in a RegExp's \s? */
function isRegExpSpace(c: number): boolean {
  if (c <= 0xa0) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0;
  return c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Is one of some tokens (`\d`: a digit, `\s`: a RegExp's \s) in a text? Looks at few of its
 * characters (Wu-Manber), where a regular expression of them all tries each at every character (and
 * takes twice as long on log text: measured): a window as wide as the shortest token (the wider,
 * the faster) moves along the text, and the pair of characters at its end
 * says how far it can move on without passing over a token (how near the end of a token's window
 * that pair is in it), or, where that is 0, which tokens can end there: each is then compared in
 * full. Characters above 255 (in no token but as a \s) are looked up as 255: sharing a pair's
 * entry only makes the window stop where it need not.
 */
class TokenSearch {
  /** By pair (both characters' codes up to 255): how far the window moves on (1 .. width - 1), or
   * width + k: compare the tokens of groups[k]. */
  private readonly table: Uint8Array;
  private readonly groups: { codes: number[]; end: number }[][] = [];

  private readonly tokenCodes: { text: string; codes: number[] }[] = [];

  constructor(tokens: readonly (readonly [string, number])[], private readonly width: number) {
    this.table = new Uint8Array(65536).fill(width - 1);
    for (const [text, window] of tokens) {
      const codes = [...text.matchAll(/\\([ds])|[^]/g)].map((m) => (m[1] === 'd' ? DIGIT : m[1] === 's' ? SPACE : m[0].charCodeAt(0)));
      this.tokenCodes.push({ text, codes });
      if (window + width > codes.length) throw new Error(`shapes: ${text}: its window is past its end`);
      const token = { codes, end: window + width - 1 };
      for (let q = 0; q + 1 < width; q++) {
        const move = width - 2 - q;
        for (const a of lookedUpAs(codes[window + q]!)) {
          for (const b of lookedUpAs(codes[window + q + 1]!)) {
            const key = (a << 8) | b;
            const v = this.table[key]!;
            if (move > 0) {
              if (v < width && move < v) this.table[key] = move;
            } else if (v >= width) this.groups[v - width]!.push(token);
            else {
              if (width + this.groups.length > 255) throw new Error('shapes: too many token ends');
              this.table[key] = width + this.groups.length;
              this.groups.push([token]);
            }
          }
        }
      }
    }
  }

  found(text: string): boolean {
    const table = this.table;
    const width = this.width;
    for (let at = width - 1; at < text.length; ) {
      const v = table[(Math.min(text.charCodeAt(at - 1), 255) << 8) | Math.min(text.charCodeAt(at), 255)]!;
      if (v < width) {
        at += v;
        continue;
      }
      for (const t of this.groups[v - width]!) if (holds(text, at - t.end, t.codes)) return true;
      at++;
    }
    return false;
  }

  /** The tokens searched for, each as written and as its codes (a character's, DIGIT or SPACE):
   * for a byte search elsewhere that must find the same (the WebAssembly one of
   * core/blocks/quiet.ts). */
  get tokens(): readonly { text: string; codes: readonly number[] }[] {
    return this.tokenCodes;
  }

  /** found() of the text whose characters are the bytes b (latin1): no string is made. */
  foundIn(b: Uint8Array): boolean {
    const table = this.table;
    const width = this.width;
    for (let at = width - 1; at < b.length; ) {
      const v = table[(b[at - 1]! << 8) | b[at]!]!;
      if (v < width) {
        at += v;
        continue;
      }
      for (const t of this.groups[v - width]!) if (holdsIn(b, at - t.end, t.codes)) return true;
      at++;
    }
    return false;
  }
}

const SPACES_LOOKED_UP = (() => {
  const codes = new Set<number>();
  for (let c = 0; c <= 0xffff; c++) if (isRegExpSpace(c)) codes.add(Math.min(c, 255));
  return [...codes];
})();

/** The codes (up to 255) a token's character is looked up as. */
function lookedUpAs(code: number): number[] {
  if (code === DIGIT) return [0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39];
  return code === SPACE ? SPACES_LOOKED_UP : [Math.min(code, 255)];
}

/** Is the token (its codes) in text at `at`? */
function holds(text: string, at: number, codes: number[]): boolean {
  if (at < 0 || at + codes.length > text.length) return false;
  for (let j = 0; j < codes.length; j++) {
    if (!fits(codes[j]!, text.charCodeAt(at + j))) return false;
  }
  return true;
}

/** Is character c what a token's code `want` asks for (DIGIT, SPACE, or that character)? */
function fits(want: number, c: number): boolean {
  return want === DIGIT ? c >= 0x30 && c <= 0x39 : want === SPACE ? isRegExpSpace(c) : c === want;
}

/** holds() in bytes (latin1 characters). */
function holdsIn(b: Uint8Array, at: number, codes: number[]): boolean {
  if (at < 0 || at + codes.length > b.length) return false;
  for (let j = 0; j < codes.length; j++) {
    if (!fits(codes[j]!, b[at + j]!)) return false;
  }
  return true;
}

const LINE_SEARCH = new TokenSearch([...SHAPE_TOKENS, ['\\sat\\s', 0]], 4);

/** Could this line (ANSI already stripped) have a shape at all (SHAPE_TOKENS, or `at` with \s after
 * it and \s or the line's start before it)? False: classify says text. */
export function mayHaveShape(line: string): boolean {
  return (line.charCodeAt(0) === 0x61 && line.charCodeAt(1) === 0x74 && isRegExpSpace(line.charCodeAt(2))) || LINE_SEARCH.found(line);
}

/**
 * mayHaveShape for several lines at once, read from their raw bytes: `bytes` is lines with their
 * line ends (\n, \r\n or a lone \r) in UTF-8, read as latin1 (one character per byte; no ESC
 * among them); no string is made of them. False: no line of it has a block shape
 * (hasBlockShape), so a reader can skip decoding and classifying each. Every token a shape needs is ASCII, so it is the same bytes in
 * either decoding. The frame's `at` is narrowed to what a frame's `at ` needs before it
 * (indented(…, 2): the line's start or only blanks from there, two blanks, or a tab), so the word
 * "at" of a message does not count: `at ` or ` at ` at a line's start or after a tab, or `  at `;
 * and a pytest line starts with one of `_ > E = -` or holds `.py:` and a digit. True may be wrong
 * (then each line is classified); false never is. Line starts and tabs are looked at apart, so the
 * search's window can be 5 wide.
 */
const BYTES_SEARCH = new TokenSearch([...SHAPE_TOKENS, ['.py:\\d', 0], ['  at ', 0]], 5);
export function mayHoldBlockShape(bytes: Uint8Array): boolean {
  if (lineStartMayHold(bytes, 0)) return true;
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) if (lineStartMayHold(bytes, i + 1)) return true;
  for (let i = bytes.indexOf(0x0d); i >= 0; i = bytes.indexOf(0x0d, i + 1)) if (lineStartMayHold(bytes, i + 1)) return true;
  for (let i = bytes.indexOf(0x09); i >= 0; i = bytes.indexOf(0x09, i + 1)) if (frameAt(bytes, i + 1)) return true;
  return BYTES_SEARCH.foundIn(bytes);
}

/** Does the line starting at i start like a pytest line or a frame's `at `? */
function lineStartMayHold(b: Uint8Array, i: number): boolean {
  const c = b[i];
  return c === 0x5f /* _ */ || c === 0x3e /* > */ || c === 0x45 /* E */ || c === 0x3d /* = */ || c === 0x2d /* - */ || frameAt(b, i);
}

/** `at ` or ` at ` at i. */
function frameAt(b: Uint8Array, i: number): boolean {
  if (b[i] === 0x20) i++;
  return b[i] === 0x61 && b[i + 1] === 0x74 && b[i + 2] === 0x20;
}

/** The tokens mayHoldBlockShape searches for (each as its codes), the codes of the classes a
 * token's character may be (DIGIT, SPACE), and the bytes a code may be (a class's, at least). */
export function blockShapeTokens(): { tokens: readonly { text: string; codes: readonly number[] }[]; digit: number; space: number; bytesOf: (code: number) => number[] } {
  return { tokens: BYTES_SEARCH.tokens, digit: DIGIT, space: SPACE, bytesOf: lookedUpAs };
}

const PY_HEADER = guarded('Traceback (', /(?:^|[\s|\]>:])(Traceback \(most recent call last\):)$/);
const PY_CHAIN = guarded(' exception', /(?:^|[\s|\]>:])(During handling of the above exception, another exception occurred:|The above exception was the direct cause of the following exception:)$/);
const PY_FRAME = /(?:^|\s)File "([^"]*)", line (\d{1,9})(?:, in (.+))?$/;
const PY_REPEAT = guarded('[Previous line ', /(?:^|\s)\[Previous line repeated \d{1,9} more times?\]$/);
const JAVA_CLASS = '((?:[A-Za-z_$][\\w$]*\\.)*[A-Za-z_$][\\w$]*)';
const JAVA_THREAD = guarded('Exception in thread "', new RegExp(`(?:^|\\s)Exception in thread "[^"]*" ${JAVA_CLASS}(?:(:) ?(.*))?$`));
const CAUSED_BY = guarded('Caused by: ', new RegExp(`(?:^|\\s)Caused by: ${JAVA_CLASS}(?:(:) ?(.*))?$`));
const SUPPRESSED = guarded('Suppressed: ', new RegExp(`(?:^|\\s)Suppressed: ${JAVA_CLASS}(?:(:) ?(.*))?$`));
const JAVA_MORE = guarded('... ', /(?:^|\s)\.\.\. \d{1,9} (?:more|common frames omitted)$/);
/** `at [module/ | loader//]pkg.Class.method(Location)`, optionally `~[jar:version]` (logback). */
const AT_JAVA = /(?:^|\s)at (?:[\w$.@-]*\/){0,3}([\w$.<>-]+)\(([^()]*)\)(?: ~?\[[^\]]*\])?$/;
const AT_JS = /(?:^|\s)at (?:async )?(?:(\S(?:.*\S)?) \((.*)\)|(\S+))( \{)?$/;
const JS_MORE = guarded('... ', /(?:^|\s)\.\.\. \d{1,9} lines? matching cause stack trace \.\.\.$/);
const GO_PANIC = guarded(': ', /(?:^|\s)(?:panic|fatal error): /);
const GOROUTINE = guarded('goroutine ', /(?:^|\s)goroutine \d{1,12} \[[^\]]*\]:$/);
const GO_FILE = /\t((?:[A-Za-z]:)?[^\t]*\.go):(\d{1,9})(?: \+0x[0-9a-f]+)?$/;
const GO_EXIT = guarded('exit status ', /(?:^|\s)exit status \d{1,5}$/);
const RUST_PANIC = guarded(' panicked at ', /(?:^|\s)thread '[^']*'(?: \(\d+\))? panicked at (?:'(.*)', )?(\S+?):(\d{1,9}):(\d{1,9}):?$/);
const RUST_NOTE = guarded('note: ', /(?:^|\s)note: (?:run with `RUST_BACKTRACE=|Some details are omitted)/);
const RUST_BACKTRACE = guarded('stack backtrace:', /(?:^|\s)stack backtrace:$/);
const LOCATION = /^(.*?):(\d{1,9})(?::(\d{1,9}))?$/;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a || c === 0x0b || c === 0x0c || c === 0xa0;
}

/** Is the text before a frame token indentation (or a prefix followed by indentation)? */
function indented(text: string, at: number, minRun: number): boolean {
  if (at === 0) return true;
  let k = at;
  while (k > 0 && (text.charCodeAt(k - 1) === 0x20 || text.charCodeAt(k - 1) === 0x09)) k--;
  if (k === 0) return true;
  const run = at - k;
  return run >= minRun || text.charCodeAt(at - 1) === 0x09;
}

function tokenStart(m: RegExpExecArray, token: string): number {
  return m.index + m[0].indexOf(token);
}

/** A JS frame's `file:line:col` (or `file:line`); undefined for `<anonymous>`, `native`, `index 0`. */
export function parseJsLocation(loc: string, at: number): { file: string; line: number; column?: number; start: number; end: number } | undefined {
  let s = loc;
  let off = at;
  // `eval at f (file:1:2), <anonymous>:1:1`: the location of the eval call
  const inner = /\(([^()]+:\d+:\d+)\)/.exec(s);
  if (inner && s.indexOf('eval at') >= 0) {
    off += inner.index + 1;
    s = inner[1]!;
  }
  const m = LOCATION.exec(s);
  if (!m || !m[1]) return undefined;
  const out: FrameLocation = { file: m[1], line: Number(m[2]), start: off, end: off + s.length };
  if (m[3]) out.column = Number(m[3]);
  return out;
}

/** The shape of a line (ANSI already stripped). */
export function classify(raw: string): Shape {
  const n = raw.length;
  let e = n;
  while (e > 0 && isSpace(raw.charCodeAt(e - 1))) e--;
  if (e === 0) return BLANK;
  if (n > MAX_SHAPE_LINE || !mayHaveShape(raw)) return TEXT;
  const text = e === n ? raw : raw.slice(0, e);
  let m: RegExpExecArray | null;
  if (text.indexOf('File "') >= 0 && (m = PY_FRAME.exec(text))) {
    const at = tokenStart(m, 'File "');
    if (indented(text, at, 1)) {
      const fileStart = at + 6;
      const frame: FrameLocation = { file: m[1]!, line: Number(m[2]), start: fileStart, end: fileStart + m[1]!.length };
      if (m[3]) frame.function = m[3];
      return { kind: 'py-frame', at, frame };
    }
  }
  if ((m = PY_HEADER.exec(text))) return { kind: 'py-header', at: tokenStart(m, 'Traceback') };
  if ((m = PY_CHAIN.exec(text))) {
    const t = m[1]!;
    return { kind: 'py-chain', at: tokenStart(m, t), chain: t.startsWith('During') ? 'during-handling' : 'caused-by' };
  }
  if ((m = PY_REPEAT.exec(text))) return { kind: 'py-repeat', at: tokenStart(m, '[') };
  if (text.indexOf('at ') >= 0) {
    if ((m = AT_JAVA.exec(text))) {
      const at = tokenStart(m, 'at ');
      if (indented(text, at, 2)) {
        const full = m[1]!;
        const loc = m[2]!;
        const locStart = m.index + m[0].lastIndexOf('(' + loc + ')') + 1;
        const lm = /^(.*):(\d{1,9})$/.exec(loc);
        const dot = full.lastIndexOf('.');
        const cls = dot > 0 ? full.slice(0, dot) : full;
        const frame: FrameLocation | undefined = lm
          ? { file: javaPath(cls, lm[1]!), line: Number(lm[2]), function: full, start: locStart, end: locStart + loc.length }
          : undefined;
        const shape: Shape = { kind: 'at-java', at };
        if (frame) shape.frame = frame;
        return shape;
      }
    }
    if ((m = AT_JS.exec(text))) {
      const at = tokenStart(m, 'at ');
      if (indented(text, at, 2)) {
        const fn = m[1];
        const locText = m[2] ?? m[3]!;
        const locAt = m.index + m[0].lastIndexOf(locText);
        const loc = parseJsLocation(locText, locAt);
        // (the location is parseJsLocation's own object: the function is set on it)
        const frame: FrameLocation | undefined = loc;
        if (frame && fn) frame.function = fn.replace(/^async /, '');
        // `at X` without parentheses must be a location (`at file:1:2`) or a known marker
        if (frame || fn !== undefined || /^(?:<anonymous>|native)$/.test(locText)) {
          const shape: Shape = { kind: 'at-js', at };
          if (frame) shape.frame = frame;
          if (m[4]) shape.props = true;
          return shape;
        }
      }
    }
  }
  if ((m = JAVA_THREAD.exec(text))) return header('java-thread', text, m, tokenStart(m, 'Exception in thread'));
  if ((m = CAUSED_BY.exec(text))) return header('caused-by', text, m, tokenStart(m, 'Caused by: '));
  if ((m = SUPPRESSED.exec(text))) return header('suppressed', text, m, tokenStart(m, 'Suppressed: '));
  if ((m = JAVA_MORE.exec(text))) return { kind: 'java-more', at: tokenStart(m, '...') };
  if ((m = JS_MORE.exec(text))) return { kind: 'js-more', at: tokenStart(m, '...') };
  if ((m = GOROUTINE.exec(text))) return { kind: 'goroutine', at: tokenStart(m, 'goroutine') };
  if (text.indexOf('\t') >= 0 && (m = GO_FILE.exec(text))) {
    const at = m.index + 1;
    return { kind: 'go-file', at, frame: { file: m[1]!, line: Number(m[2]), start: at, end: at + m[1]!.length + 1 + m[2]!.length } };
  }
  if ((m = GO_EXIT.exec(text))) return { kind: 'go-exit', at: tokenStart(m, 'exit status') };
  if ((m = RUST_PANIC.exec(text))) {
    const at = tokenStart(m, 'thread');
    const file = m[2]!;
    const locStart = m.index + m[0].lastIndexOf(`${file}:${m[3]}:${m[4]}`);
    const shape: Shape = {
      kind: 'rust-panic',
      at,
      frame: { file, line: Number(m[3]), column: Number(m[4]), start: locStart, end: locStart + file.length + m[3]!.length + m[4]!.length + 2 },
    };
    if (m[1] !== undefined) {
      // old format: thread 'main' panicked at 'message', src/main.rs:2:5
      const ms = text.indexOf("'", text.indexOf('panicked at ') + 11) + 1;
      shape.msg = [ms, ms + m[1].length];
    }
    return shape;
  }
  if ((m = RUST_NOTE.exec(text))) return { kind: 'rust-note', at: tokenStart(m, 'note: ') };
  if ((m = RUST_BACKTRACE.exec(text))) return { kind: 'rust-backtrace', at: tokenStart(m, 'stack backtrace:') };
  if ((m = GO_PANIC.exec(text))) {
    const at = m.index + (m[0].startsWith('p') || m[0].startsWith('f') ? 0 : 1);
    const ms = m.index + m[0].length;
    return { kind: 'go-panic', at, msg: [ms, text.length] };
  }
  return TEXT;
}

function header(kind: ShapeKind, text: string, m: RegExpExecArray, at: number): Shape {
  const cls = m[1]!;
  const cs = text.indexOf(cls, at);
  const shape: Shape = { kind, at, cls: [cs, cs + cls.length] };
  if (m[2]) {
    const ms = m[3] !== undefined ? text.length - m[3].length : text.length;
    shape.msg = [ms, text.length];
  } else shape.msg = [text.length, text.length];
  return shape;
}

/** `java.lang.Integer` + `Integer.java` -> `java/lang/Integer.java` (a path records can end with). */
export function javaPath(cls: string, file: string): string {
  if (file.indexOf('/') >= 0 || file.indexOf('\\') >= 0) return file;
  const dot = cls.lastIndexOf('.');
  return dot > 0 ? `${cls.slice(0, dot).replace(/\./g, '/')}/${file}` : file;
}

// ---------------------------------------------------------------------------------------------
// Exception lines (need their position in a block; see parse.ts)

/** The words an exception class ends with: the error-class names a stack-trace header starts
 * with when nothing else says it is one (exceptionHeader). A line holds one where it finds a
 * header, so its pre-test looks for them first (`Error`, in most headers, alone; the others in one
 * expression), and a reader of a line's bytes may skip it where none is (core/blocks/quiet.ts). */
export const HEADER_TOKENS = ['Error', 'Exception', 'Throwable', 'Failure', 'Fault', 'Warning', 'Rejection', 'Interrupt', 'Panic', 'Abort', 'Timeout', 'Exit'] as const;
const OTHER_HEADER_TOKENS = new RegExp(HEADER_TOKENS.slice(1).join('|'));
const CLASS_SUFFIX = `(?:${HEADER_TOKENS.join('|')})`;
const EXC_HEADER = new RegExp(`(^|[\\s:\\]|>(])(?:Uncaught )?((?:[A-Za-z_$][\\w$]*\\.)*(?:[A-Z_$][\\w$]*)?${CLASS_SUFFIX})(?: \\[([\\w.:-]{1,64})\\])?(:(?= |$)|$)`, 'g');
/** How far into a line an exception class is looked for. */
const HEADER_SCAN = 512;

export interface HeaderMatch {
  cls: [number, number];
  msg: [number, number];
  code?: string;
}

/** A regular expression that needs `token` in the text to match: exec() looks for the token first
 * (one string search) and runs the expression only where it is (most lines of a log have none of
 * the tokens: each expression would try every position of the line). */
function guarded(token: string, re: RegExp): { exec(text: string): RegExpExecArray | null } {
  return { exec: (text) => (text.indexOf(token) >= 0 ? re.exec(text) : null) };
}

/** The first `SomeError: message` / `pkg.SomeException` (at the end of the line) in a line, if any. */
export function exceptionHeader(text: string): HeaderMatch | undefined {
  const t = text.length > HEADER_SCAN ? text.slice(0, HEADER_SCAN) : text.trimEnd();
  if (t.indexOf(HEADER_TOKENS[0]) < 0 && !OTHER_HEADER_TOKENS.test(t)) return undefined;
  EXC_HEADER.lastIndex = 0;
  const m = EXC_HEADER.exec(t);
  if (!m) return undefined;
  const cs = m.index + m[1]!.length + (m[0].slice(m[1]!.length).startsWith('Uncaught ') ? 9 : 0);
  const ce = cs + m[2]!.length;
  const after = m.index + m[0].length;
  let ms = after;
  const end = text.trimEnd().length;
  if (m[4] === ':' && text.charCodeAt(ms) === 0x20) ms++;
  const h: HeaderMatch = { cls: [cs, ce], msg: [Math.min(ms, end), end] };
  if (m[3]) h.code = m[3];
  return h;
}

const PY_CLASS = /^([A-Za-z_][\w]*(?:\.(?:<locals>|[A-Za-z_][\w]*))*)(?:(:)(?: |$)|$)/;

/** A Python exception line's class and message (the text after its indentation), or undefined. */
export function pythonException(body: string, from: number): HeaderMatch | undefined {
  const m = PY_CLASS.exec(body.length > HEADER_SCAN ? body.slice(from, from + HEADER_SCAN) : body.slice(from));
  if (!m) return undefined;
  const cs = from;
  const ce = from + m[1]!.length;
  const end = body.trimEnd().length;
  const ms = Math.min(end, from + m[0].length);
  return { cls: [cs, ce], msg: [ms, end] };
}

/** Does the line start a new log record (timestamp, level, JSON object)? Ends an exception message. */
export function looksLikeRecordStart(text: string): boolean {
  return /^\s*(?:[=_\-*#~]{8}|Exception ignored in:)|^\s*(?:\[?\d{4}-\d\d-\d\d|\[?\d\d:\d\d:\d\d|\[?\d\d?\/\w{3}\/\d{4}|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d|\[?(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL|SEVERE|NOTICE)\b|\{")/.test(text);
}

/** A caret line under quoted code: `    ^^^^`, `~~~^^^`, `  ^`. */
export function isCaretLine(body: string): boolean {
  return /^\s*[~^]*\^[~^]*$/.test(body.length > MAX_SHAPE_LINE ? '' : body.trimEnd());
}

// ---------------------------------------------------------------------------------------------
// pytest's failure reports (`--tb=long` / `--tb=short`): a test's section from its
// `____ test_x ____` header: quoted source (the failing line marked `>`), `E   ` lines (the
// exception), and a location line per frame (`path.py:12: ` / `path.py:12: in f` / the last one
// `path.py:12: ValueError`), frames separated by `_ _ _ _` lines.

export type PytestLine = 'header' | 'separator' | 'section' | 'marker' | 'e' | 'location';

const PYTEST_HEADER = /^_{3,} \S.*? _{3,}$/;
const PYTEST_SEPARATOR = /^(?:_ ){4,}_\s*$/;
const PYTEST_SECTION = /^(?:={3,}|-{3,} Captured |-{3,} generated )/;
/** `path.py:12: `, `path.py:12: in func`, `path.py:12: ValueError` (the file ends in `.py`). */
const PYTEST_LOCATION = /^((?:[A-Za-z]:)?[^\s:"'][^:"']*\.py):(\d{1,9}): ?(?:in ([\w.<>]+)|[A-Za-z_][\w.]*)?\s*$/;

/** What a line of a pytest report is, by its own (ANSI-stripped) text; undefined: none of these. */
export function pytestLine(text: string): PytestLine | undefined {
  const c = text.charCodeAt(0);
  if (c === 0x5f /* _ */) return PYTEST_HEADER.test(text) ? 'header' : PYTEST_SEPARATOR.test(text) ? 'separator' : undefined;
  if (c === 0x3e /* > */) return text.length === 1 || text.charCodeAt(1) === 0x20 ? 'marker' : undefined;
  if (c === 0x45 /* E */) return text.length === 1 || text.charCodeAt(1) === 0x20 ? 'e' : undefined;
  if (c === 0x3d /* = */ || c === 0x2d /* - */) return PYTEST_SECTION.test(text) ? 'section' : undefined;
  return text.length <= MAX_SHAPE_LINE && PYTEST_LOCATION.test(text) ? 'location' : undefined;
}

const PYTEST_HEADER_AFTER = /(?:^|\s)(_{3,} \S.*? _{3,}|(?:_ ){4,}_)\s*$/;

/** Where a pytest report can start on this line: at a test's header, a frame separator or a `>`
 * marker (after a log prefix, if any); -1: it cannot. */
export function pytestStart(text: string): number {
  const c = text.charCodeAt(0);
  if (c === 0x3e /* > */) return pytestLine(text) === 'marker' ? 0 : -1;
  const gt = text.indexOf('> ');
  if (gt > 0 && gt <= 80 && isSpace(text.charCodeAt(gt - 1))) return gt;
  let e = text.length;
  while (e > 0 && isSpace(text.charCodeAt(e - 1))) e--;
  if (e === 0 || text.charCodeAt(e - 1) !== 0x5f /* _ */ || text.length > MAX_SHAPE_LINE) return -1;
  const m = PYTEST_HEADER_AFTER.exec(text);
  return m ? m.index + m[0].indexOf(m[1]!) : -1;
}

/** A pytest location line's frame (pytestLine(text) === 'location'). */
export function pytestLocation(text: string): FrameLocation | undefined {
  const m = PYTEST_LOCATION.exec(text);
  if (!m) return undefined;
  const end = m[1]!.length + 1 + m[2]!.length;
  const loc: FrameLocation = { file: m[1]!, line: Number(m[2]), start: 0, end };
  if (m[3]) loc.function = m[3];
  return loc;
}

/** A shape that is a stack frame (or frame-like marker) by its own text: never an error of its own. */
export function isFrameShape(kind: ShapeKind): boolean {
  return kind === 'py-frame' || kind === 'at-java' || kind === 'at-js' || kind === 'go-file' || kind === 'goroutine' || kind === 'java-more' || kind === 'js-more' || kind === 'py-repeat';
}
