// Multi-line error blocks from a sequence of lines: Python tracebacks, Java/Kotlin stack traces,
// Node/JavaScript stacks, Go panics and Rust panics, each with its exception line(s), its frames
// and the role of every line. parseBlockAt(src, i) reads only forward: whether a block starts at
// line i (and where it ends) depends on lines i .. last + LOOKAHEAD, never on lines before i. So a
// greedy scan (block at i? take it and continue after it : continue at i + 1) can be restarted at
// any line it visits, which is what the incremental BlockIndex and the streaming BlockStream use.
import { baseView, type LineView } from '../text';
import {
  classify,
  exceptionHeader,
  type HeaderMatch,
  isCaretLine,
  looksLikeRecordStart,
  pythonException,
  pytestLine,
  pytestLocation,
  pytestStart,
  type Shape,
  type ShapeKind,
} from './shapes';

export type BlockKind = 'python' | 'java' | 'node' | 'go' | 'rust';
/** exception: the exception line(s); frame: a stack frame or frame marker; quoted: source code the
 * trace prints (and its `^^^` markers); other: headers, chain markers, blank lines, notes. */
export type BlockLineRole = 'exception' | 'frame' | 'quoted' | 'other';
/** How a block relates to the block just before it (chained exceptions). */
export type ChainRelation =
  | 'caused-by-previous' // Python: The above exception was the direct cause of the following exception
  | 'during-handling-of-previous' // Python: During handling of the above exception, another exception occurred
  | 'cause-of-previous' // Java `Caused by:`, Node `[cause]:`
  | 'suppressed-in-previous'; // Java `Suppressed:`

export interface Frame {
  /** As printed (Java: the package path + file name, e.g. `java/lang/Integer.java`). */
  file: string;
  /** 1-based. */
  line: number;
  column?: number;
  function?: string;
  /** Line of the text where the frame's location is printed. */
  lineIndex: number;
  /** The location's span in that line (UTF-16 offsets of the original line, end exclusive). */
  start: number;
  end: number;
}

export interface BlockException {
  lineIndex: number;
  /** The message's span in the original line (UTF-16 offsets, end exclusive; empty when the line
   * holds only the class, as `_queue.Empty`). */
  start: number;
  end: number;
}

export interface ErrorBlock {
  kind: BlockKind;
  /** First and last line of the block (inclusive). */
  first: number;
  last: number;
  /** The exception line first, then the further lines of a message that spans several lines. */
  exceptions: BlockException[];
  errorClass?: string;
  /** A code printed with the class: `TypeError [ERR_INVALID_ARG_TYPE]: ...`. */
  errorCode?: string;
  /** In printed order. */
  frames: Frame[];
  /** Index in `frames` of the frame that raised (Python: the last; Java, JS, Go: the first; Rust:
   * the `panicked at` location), -1 when there is none. */
  raising: number;
  /** The role of each line: roles[i - first]. */
  roles: BlockLineRole[];
  chain?: ChainRelation;
}

/** A line as the parser sees it. */
export interface LineInfo {
  /** ANSI escapes and trailing CRs removed. */
  text: string;
  view: LineView;
  shape: Shape;
}

export interface LineSource {
  /** Line i, or undefined past the end. */
  get(i: number): LineInfo | undefined;
}

/** The parser reads at most this many lines past a block's last line (or past a line where no
 * block starts). */
export const LOOKAHEAD = 32;
/** A block is cut after this many lines (Java prints up to 1024 frames per exception). */
export const MAX_BLOCK_LINES = 5000;
/** How far after a header its first frame may come (the lines between are its message). */
const HEADER_REACH = 24;
/** Further lines of an exception message after the exception line. */
const MAX_MESSAGE_LINES = 20;
/** Quoted lines after one Python frame (3.13 quotes multi-line statements). */
const MAX_QUOTED = 10;
/** Lines of the properties Node prints after a stack (`{ code: 'ENOENT', ... }`). */
const MAX_PROPS_LINES = 200;
/** A Go panic's `goroutine N [running]:` line comes within this many lines. */
const GO_REACH = 10;
/** A pytest report's lines without an `E` line or a location line: after this many it is not one
 * (or it has ended). */
const PYTEST_REACH = 200;

export function lineInfo(line: string): LineInfo {
  const view = baseView(line);
  return { text: view.text, view, shape: classify(view.text) };
}

/** A LineSource over an array (or any indexable list) of lines, with a small cache of parsed lines. */
export function arraySource(count: number, line: (i: number) => string): LineSource {
  const size = 256;
  const keys = new Int32Array(size).fill(-1);
  const vals: (LineInfo | undefined)[] = new Array(size);
  return {
    get(i: number): LineInfo | undefined {
      if (i < 0 || i >= count) return undefined;
      const k = i & (size - 1);
      if (keys[k] === i) return vals[k];
      const info = lineInfo(line(i));
      keys[k] = i;
      vals[k] = info;
      return info;
    },
  };
}

/** Every block in lines[from, to), in order (a block may end after `to`). */
export function findBlocks(lines: readonly string[], from = 0, to = lines.length): ErrorBlock[] {
  const src = arraySource(lines.length, (i) => lines[i]!);
  const out: ErrorBlock[] = [];
  let i = Math.max(0, from);
  while (i < to) {
    const b = parseBlockAt(src, i);
    if (b) {
      out.push(b);
      i = b.last + 1;
    } else i++;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Prefixes: `2026-… ERROR app: `, `web_1  | `, pytest's `E   ` on every line of a block, or on
// its first line only. A prefix is compared by shape (digits as 0), so timestamps may differ.

const digitsToZero = (s: string) => s.replace(/\d/g, '0');

class Prefixed {
  private mode: 'none' | 'undecided' | 'every' | 'first';
  readonly key: string;
  readonly len: number;

  constructor(
    private readonly src: LineSource,
    firstText: string,
    at: number,
  ) {
    // (`[cause]:` and `Uncaught` belong to the header, not to the prefix)
    const p = firstText.slice(0, at).replace(/\s*(?:\[cause\]:|Uncaught)\s*$/, '').trimEnd();
    this.len = p.length;
    this.key = digitsToZero(p);
    this.mode = this.len ? 'undecided' : 'none';
  }

  get prefixed(): boolean {
    return this.mode === 'every';
  }

  /** Is this line's start the prefix? */
  has(text: string): boolean {
    return text.length >= this.len && digitsToZero(text.slice(0, this.len)) === this.key;
  }

  /** Line j of this block and where its body starts; undefined past the end or when the line
   * cannot belong to the block (no prefix where every line has it; the prefix again where only the
   * first line had it: a new log record). */
  line(j: number): { info: LineInfo; off: number } | undefined {
    const info = this.src.get(j);
    if (!info) return undefined;
    if (this.mode === 'none') return { info, off: 0 };
    const has = this.has(info.text);
    if (this.mode === 'undecided') this.mode = has ? 'every' : 'first';
    if (this.mode === 'every') return has ? { info, off: this.len } : undefined;
    return has ? undefined : { info, off: 0 };
  }
}

function indentOf(text: string, off: number): number {
  let k = off;
  while (k < text.length && (text.charCodeAt(k) === 0x20 || text.charCodeAt(k) === 0x09)) k++;
  return k - off;
}

function isBlankBody(text: string, off: number): boolean {
  return indentOf(text, off) + off >= text.trimEnd().length;
}

/** Shapes that start a block of their own: they end a message that spans lines. */
function startsBlock(k: ShapeKind): boolean {
  return (
    k === 'py-header' ||
    k === 'py-chain' ||
    k === 'py-frame' ||
    k === 'java-thread' ||
    k === 'caused-by' ||
    k === 'suppressed' ||
    k === 'at-java' ||
    k === 'at-js' ||
    k === 'go-panic' ||
    k === 'goroutine' ||
    k === 'rust-panic'
  );
}

/** Collects a block's lines, frames and exception lines. */
class Builder {
  readonly roles: BlockLineRole[] = [];
  readonly frames: Frame[] = [];
  readonly exceptions: BlockException[] = [];
  errorClass: string | undefined;
  errorCode: string | undefined;

  constructor(readonly first: number) {}

  get next(): number {
    return this.first + this.roles.length;
  }
  get full(): boolean {
    return this.roles.length >= MAX_BLOCK_LINES;
  }

  role(r: BlockLineRole): void {
    this.roles.push(r);
  }

  frame(info: LineInfo, j: number, s: Shape, fn?: string): void {
    const f = s.frame;
    if (!f) return;
    // (optional fields set where present, not spread: real tracebacks make tens of thousands)
    const fr: Frame = { file: f.file, line: f.line, lineIndex: j, start: info.view.toOriginal(f.start), end: info.view.toOriginal(f.end, true) };
    if (f.column !== undefined) fr.column = f.column;
    const name = fn ?? f.function;
    if (name !== undefined) fr.function = name;
    this.frames.push(fr);
  }

  exception(info: LineInfo, j: number, msg: [number, number], cls?: [number, number], code?: string): void {
    this.exceptions.push({ lineIndex: j, start: info.view.toOriginal(msg[0]), end: info.view.toOriginal(msg[1], true) });
    if (cls && cls[1] > cls[0] && this.errorClass === undefined) this.errorClass = info.text.slice(cls[0], cls[1]);
    if (code && this.errorCode === undefined) this.errorCode = code;
  }

  build(kind: BlockKind, raising: 'first' | 'last', chain?: ChainRelation): ErrorBlock | undefined {
    if (this.roles.length === 0) return undefined;
    const b: ErrorBlock = {
      kind,
      first: this.first,
      last: this.first + this.roles.length - 1,
      exceptions: this.exceptions,
      frames: this.frames,
      raising: this.frames.length === 0 ? -1 : raising === 'first' ? 0 : this.frames.length - 1,
      roles: this.roles,
    };
    if (this.errorClass !== undefined) b.errorClass = this.errorClass;
    if (this.errorCode !== undefined) b.errorCode = this.errorCode;
    if (chain) b.chain = chain;
    return b;
  }
}

/** The block that starts at line i, if one does. Never throws on junk. */
export function parseBlockAt(src: LineSource, i: number): ErrorBlock | undefined {
  const info = src.get(i);
  if (!info) return undefined;
  const s = info.shape;
  switch (s.kind) {
    case 'py-header':
      return python(src, i, i, s.at, undefined);
    case 'py-chain': {
      const pre = new Prefixed(src, info.text, s.at);
      for (let j = i + 1; j <= i + 3; j++) {
        const n = pre.line(j);
        if (!n) return undefined;
        if (n.info.shape.kind === 'py-header') {
          return python(src, i, j, s.at, s.chain === 'during-handling' ? 'during-handling-of-previous' : 'caused-by-previous');
        }
        if (!isBlankBody(n.info.text, n.off)) return undefined;
      }
      return undefined;
    }
    case 'py-frame':
      return python(src, i, -1, s.at, undefined);
    case 'java-thread':
    case 'caused-by':
    case 'suppressed':
      return stackFromHeader(src, i, info, s);
    case 'at-java':
    case 'at-js':
    case 'java-more':
    case 'js-more':
      return stack(src, i, -1, i, new Prefixed(src, info.text, s.at), s.kind === 'at-java' ? 'java' : 'node', undefined);
    case 'go-panic':
      return goFromPanic(src, i, info, s);
    case 'goroutine':
      return go(src, i, new Prefixed(src, info.text, s.at), false);
    case 'rust-panic':
      return rust(src, i, info, s);
    case 'text':
      return fromText(src, i, info);
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Python

function python(src: LineSource, start: number, headerAt: number, at: number, chain: ChainRelation | undefined): ErrorBlock | undefined {
  const firstInfo = src.get(start)!;
  const pre = new Prefixed(src, firstInfo.text, at);
  const b = new Builder(start);
  let j = start;
  let headerIndent = 0;
  if (headerAt >= 0) {
    for (; j <= headerAt; j++) {
      const l = j === start ? { info: firstInfo, off: pre.len } : pre.line(j);
      if (!l) return undefined;
      if (j === headerAt) headerIndent = l.info.shape.at - l.off;
      b.role('other');
    }
  }
  let frameIndent = -1;
  let quoted = 0;
  for (; !b.full; j++) {
    const l = j === start ? { info: firstInfo, off: pre.len } : pre.line(j);
    if (!l) break;
    const { info, off } = l;
    const s = info.shape;
    if (s.kind === 'py-frame' && s.at >= off) {
      b.role('frame');
      b.frame(info, j, s);
      frameIndent = s.at - off;
      quoted = 0;
      continue;
    }
    if (s.kind === 'py-repeat' && frameIndent >= 0) {
      b.role('frame');
      continue;
    }
    if (isBlankBody(info.text, off)) break;
    const indent = indentOf(info.text, off);
    if (frameIndent >= 0 && indent > frameIndent && quoted < MAX_QUOTED && !startsBlock(s.kind)) {
      b.role('quoted');
      quoted++;
      continue;
    }
    const limit = frameIndent >= 0 ? frameIndent : headerIndent + 1;
    if ((b.frames.length > 0 || headerAt >= 0) && indent < limit && !startsBlock(s.kind)) {
      const pe = pythonException(info.text, off + indent);
      if (pe) {
        b.role('exception');
        b.exception(info, j, pe.msg, pe.cls);
        j++;
        messageLines(b, pre, j, MAX_MESSAGE_LINES);
      }
    }
    break;
  }
  if (b.frames.length === 0 && b.exceptions.length === 0 && headerAt < 0) return undefined;
  const block = b.build('python', 'last', chain);
  // a SyntaxError prints where the bad code is as a last `File "x", line N` without `, in f`: not
  // a call, so the raising frame is the last call frame before it (ast.parse -> compile)
  const fr = block?.frames;
  if (block && fr && fr.length > 1 && fr[fr.length - 1]!.function === undefined) {
    let k = fr.length - 2;
    while (k >= 0 && fr[k]!.function === undefined) k--;
    if (k >= 0) block.raising = k;
  }
  return block;
}

/** `Exception in thread worker-1:` (threading's excepthook; Java's has the class on the line). */
const PY_THREAD = /(?:^|\s)Exception in thread [^"\s][^"]*:$/;

/** A Python thread's traceback: the `Exception in thread NAME:` line right above its header. */
function pythonThread(src: LineSource, i: number, info: LineInfo): ErrorBlock | undefined {
  if (info.text.charCodeAt(info.text.length - 1) !== 0x3a /* : */) return undefined;
  const m = PY_THREAD.exec(info.text);
  if (!m) return undefined;
  const at = m.index + (m[0].startsWith('E') ? 0 : 1);
  const next = new Prefixed(src, info.text, at).line(i + 1);
  if (!next || next.info.shape.kind !== 'py-header' || next.info.shape.at < next.off) return undefined;
  return python(src, i, i + 1, at, undefined);
}

/** Further lines of an exception message, from line j: until a blank line, a new block, a new log
 * record or `max` lines. */
function messageLines(b: Builder, pre: Prefixed, j: number, max: number): void {
  for (let k = 0; k < max && !b.full; k++, j++) {
    const l = pre.line(j);
    if (!l) return;
    const { info, off } = l;
    if (isBlankBody(info.text, off) || startsBlock(info.shape.kind) || startsStack(pre, j, info)) return;
    if (looksLikeRecordStart(info.text.slice(off))) return;
    b.role('exception');
    const s = off + indentOf(info.text, off);
    b.exception(info, j, [s, info.text.trimEnd().length]);
  }
}

/** Does a stack start at line j whose first line has no shape of its own (Node's throw site with
 * its source line and caret, a header right above a frame, a Python thread's header)? A cheap look
 * at j + 1 and j + 2. */
function startsStack(pre: Prefixed, j: number, info: LineInfo): boolean {
  if (trailingLocation(info.text) >= 0) {
    const caret = pre.line(j + 2);
    if (caret && isCaretLine(caret.info.text.slice(caret.off))) return true;
  }
  const next = pre.line(j + 1);
  if (!next) return false;
  // a Python thread's `Exception in thread NAME:` above its Traceback header
  if (next.info.shape.kind === 'py-header') return PY_THREAD.test(info.text);
  return isFrameKind(next.info.shape.kind) && !!exceptionHeader(info.text);
}

// ---------------------------------------------------------------------------------------------
// Java / Kotlin / Node

function stackFromHeader(src: LineSource, i: number, info: LineInfo, s: Shape): ErrorBlock | undefined {
  const pre = new Prefixed(src, info.text, s.at);
  const f = framesAfter(pre, i);
  const chain: ChainRelation | undefined = s.kind === 'caused-by' ? 'cause-of-previous' : s.kind === 'suppressed' ? 'suppressed-in-previous' : undefined;
  const kind: BlockKind = f < 0 || src.get(f)!.shape.kind !== 'at-js' ? 'java' : 'node';
  return stack(src, i, i, f < 0 ? i + 1 : f, pre, kind, { cls: s.cls!, msg: s.msg! }, chain);
}

/**
 * A stack from `start`: [preamble lines (Node: location, code, caret, blank)], the header line
 * `header` (or none: -1), message lines up to the first frame `f`, then frames.
 */
function stack(
  src: LineSource,
  start: number,
  header: number,
  f: number,
  pre: Prefixed,
  kind: BlockKind,
  h?: HeaderMatch,
  chain?: ChainRelation,
): ErrorBlock | undefined {
  const b = new Builder(start);
  let j = start;
  /** Indentation of a Node `[cause]:` header, else -1. */
  let causeIndent = -1;
  if (header >= 0) {
    // Node's preamble: the throw site, the source line, the caret, maybe a blank line
    // (the throw site is the same place as the first `at` line: a frame line, not a second frame)
    for (; j < header; j++) b.role(j === start ? 'frame' : j <= start + 2 ? 'quoted' : 'other');
    const hi = src.get(header)!;
    b.role('exception');
    b.exception(hi, header, h!.msg, h!.cls, h!.code);
    if (/\[cause\]: \S/.test(hi.text.slice(0, h!.cls[0] + 1))) {
      chain = 'cause-of-previous';
      causeIndent = indentOf(hi.text, pre.len);
    }
    for (j = header + 1; j < f; j++) {
      const l = pre.line(j);
      if (!l) return b.build(kind, 'first', chain);
      if (isBlankBody(l.info.text, l.off)) b.role('other');
      else {
        b.role('exception');
        b.exception(l.info, j, [l.off + indentOf(l.info.text, l.off), l.info.text.trimEnd().length]);
      }
    }
  }
  for (; !b.full; j++) {
    const l = pre.line(j);
    if (!l) break;
    const s = l.info.shape;
    if (s.at < l.off) break;
    if (s.kind === 'at-java' || s.kind === 'at-js') {
      b.role('frame');
      b.frame(l.info, j, s);
      if (s.props) {
        j = props(b, pre, j + 1);
        break;
      }
      continue;
    }
    if (s.kind === 'java-more' || s.kind === 'js-more') {
      b.role('frame');
      continue;
    }
    break;
  }
  if (causeIndent >= 0) {
    // a `[cause]:` is printed inside its error's properties: the `}` lines that close them (less
    // indented than the cause) end the whole error, so they end its last cause's block
    for (let k = 0; k < 8 && !b.full; k++, j++) {
      const l = pre.line(j);
      if (!l || l.info.text.slice(l.off).trim() !== '}' || indentOf(l.info.text, l.off) >= causeIndent) break;
      b.role('other');
    }
  }
  return b.build(kind, 'first', chain);
}

/** Node's properties after the last frame (`{`, `  code: 'ENOENT',`, `}`); stops before a
 * `[cause]: Error: ...` line (the cause is a block of its own) or a new log record. Returns the
 * next line. */
function props(b: Builder, pre: Prefixed, j: number): number {
  let depth = 1;
  for (let k = 0; k < MAX_PROPS_LINES && depth > 0 && !b.full; k++, j++) {
    const l = pre.line(j);
    if (!l) return j;
    const t = l.info.text.slice(l.off).trim();
    if (/^\[cause\]: /.test(t) && exceptionHeader(t)) return j;
    // (a new log record ends properties cut short: a log that holds part of an error's dump)
    if (looksLikeRecordStart(t)) return j;
    if (/^[}\]]/.test(t)) depth--;
    if (/[{[]$/.test(t)) depth++;
    b.role('other');
  }
  return j;
}

/** A block starting at a line of free text: Node's uncaught-exception preamble, an exception
 * header whose frames follow (`Error: msg` + `    at …`), or the message line right above a stack. */
function fromText(src: LineSource, i: number, info: LineInfo): ErrorBlock | undefined {
  const at = pytestStart(info.text);
  if (at >= 0) {
    const b = pytest(src, i, info, at);
    if (b) return b;
  }
  return nodePreamble(src, i, info) ?? pythonThread(src, i, info) ?? headerAbove(src, i, info);
}

// ---------------------------------------------------------------------------------------------
// pytest's failure reports (shapes.ts: pytestLine). A block starts at a test's `____ test_x ____`
// header, or, for a reader that sees only part of a report (the CLI's windows), at a `_ _ _ _`
// frame separator or a `>` marker line, and runs to the next header or `====` / `---- Captured`
// line, or to a line that is no part of a report (free text at the start of a line). Its frames
// are the location lines, the raising one the last; its exception is the last group of `E` lines
// (the first of them with the class, the others the message's further lines); everything else is
// quoted code, locals and separators.

function pytest(src: LineSource, i: number, info: LineInfo, at: number): ErrorBlock | undefined {
  const pre = new Prefixed(src, info.text, at);
  // (the space between a prefix and the report's text, as on the first line)
  const gap = at - pre.len;
  const b = new Builder(i);
  let inE = false;
  let since = 0;
  let lastUsed = -1;
  for (let j = i; !b.full; j++) {
    const l = j === i ? { info, off: at } : pre.line(j);
    if (!l) break;
    const li = l.info;
    const full = li.text;
    const off = j === i || l.off === 0 ? l.off : l.off + gap;
    if (off > full.length || (off > l.off && full.slice(l.off, off).trim() !== '')) break;
    const t = off ? full.slice(off) : full;
    const k = pytestLine(t);
    if (j > i && (k === 'header' || k === 'section')) break;
    if (k === 'e') {
      const from = off + 1 + indentOf(full, off + 1);
      if (!inE) {
        // a new group of E lines: the exception is the last group
        for (const e of b.exceptions) b.roles[e.lineIndex - b.first] = 'other';
        b.exceptions.length = 0;
        b.errorClass = undefined;
        const pe = pythonException(full, from);
        b.exception(li, j, pe ? pe.msg : [from, full.trimEnd().length], pe?.cls);
      } else b.exception(li, j, [from, full.trimEnd().length]);
      inE = true;
      b.role('exception');
      since = 0;
      lastUsed = j;
      continue;
    }
    inE = false;
    if (k === 'location') {
      b.role('frame');
      const loc = pytestLocation(t)!;
      b.frame(li, j, { kind: 'py-frame', at: off, frame: { ...loc, start: loc.start + off, end: loc.end + off } });
      since = 0;
      lastUsed = j;
      continue;
    }
    if (++since > PYTEST_REACH) break;
    if (k === 'header' || k === 'separator') b.role('other');
    else if (k === 'marker' || isCaretLine(t)) b.role('quoted');
    else if (isBlankBody(full, off)) {
      b.role('other');
      continue; // (trailing blank lines are not the block's)
    } else if (indentOf(full, off) >= 2) b.role('quoted');
    else if (/^[A-Za-z_][\w.]* = /.test(t)) b.role('other'); // a frame's locals: `self = <…>`
    else break;
    lastUsed = j;
  }
  if (b.exceptions.length === 0 || b.frames.length === 0) return undefined;
  b.roles.length = lastUsed - i + 1;
  return b.build('python', 'last');
}

/** Where `file:line` starts when the line ends with one (Node's throw site), else -1. */
function trailingLocation(t: string): number {
  let k = t.length;
  while (k > 0 && (t.charCodeAt(k - 1) === 0x20 || t.charCodeAt(k - 1) === 0x09)) k--;
  const end = k;
  while (k > 0 && t.charCodeAt(k - 1) >= 0x30 && t.charCodeAt(k - 1) <= 0x39) k--;
  if (k === end || end - k > 9 || k < 2 || t.charCodeAt(k - 1) !== 0x3a /* : */) return -1;
  let s = k - 1;
  while (s > 0 && t.charCodeAt(s - 1) !== 0x20 && t.charCodeAt(s - 1) !== 0x09) s--;
  return s < k - 1 ? s : -1;
}

function nodePreamble(src: LineSource, i: number, info: LineInfo): ErrorBlock | undefined {
  const at = trailingLocation(info.text);
  if (at < 0) return undefined;
  const pre = new Prefixed(src, info.text, at);
  const code = pre.line(i + 1);
  const caret = pre.line(i + 2);
  if (!code || !caret || isBlankBody(code.info.text, code.off) || !isCaretLine(caret.info.text.slice(caret.off))) return undefined;
  let h = i + 3;
  let hl = pre.line(h);
  if (hl && isBlankBody(hl.info.text, hl.off)) hl = pre.line(++h);
  if (!hl) return undefined;
  const hm = exceptionHeader(hl.info.text);
  if (!hm || hm.cls[0] !== hl.off + indentOf(hl.info.text, hl.off)) return undefined;
  const f = framesAfter(pre, h);
  if (f < 0) return undefined;
  return stack(src, i, h, f, pre, src.get(f)!.shape.kind === 'at-java' ? 'java' : 'node', hm, undefined);
}

/** The first frame after header line h, when every line between is a message line; else -1. */
function framesAfter(pre: Prefixed, h: number): number {
  for (let j = h + 1; j <= h + HEADER_REACH; j++) {
    const l = pre.line(j);
    if (!l) return -1;
    const s = l.info.shape;
    if ((s.kind === 'at-java' || s.kind === 'at-js') && s.at >= l.off) return j;
    if (startsBlock(s.kind)) return -1;
    const body = l.info.text.slice(l.off);
    if (looksLikeRecordStart(body)) return -1;
    if (exceptionHeader(body)) return -1; // a later header is the stack's own
  }
  return -1;
}

/** What the last look for a frame line found, per source: lines (from, to] hold no frame line and
 * no block start; or `hit` is the first such line after `from`. The greedy scan asks for i + 1 ..
 * i + HEADER_REACH at every line: with this, each line is looked at once. */
interface Ahead {
  from: number;
  to: number;
  hit: number;
}
const aheads = new WeakMap<LineSource, Ahead>();

/** The first frame line in (i, i + HEADER_REACH], unless a block start comes first; -1 if none. */
function frameAhead(src: LineSource, i: number): number {
  const limit = i + HEADER_REACH;
  let a = aheads.get(src);
  let j = i + 1;
  if (a && a.from <= i) {
    if (a.hit > i) return a.hit <= limit && isFrameKind(src.get(a.hit)!.shape.kind) ? a.hit : -1;
    if (a.hit < 0 && a.to > i) j = a.to + 1;
  }
  if (!a) aheads.set(src, (a = { from: i, to: i, hit: -1 }));
  a.from = i;
  for (; j <= limit; j++) {
    const n = src.get(j);
    if (!n) break;
    const k = n.shape.kind;
    if (isFrameKind(k) || startsBlock(k)) {
      a.to = j;
      a.hit = j;
      return isFrameKind(k) ? j : -1;
    }
  }
  a.to = j - 1;
  a.hit = -1;
  return -1;
}

function isFrameKind(k: ShapeKind): boolean {
  return k === 'at-java' || k === 'at-js';
}

function headerAbove(src: LineSource, i: number, info: LineInfo): ErrorBlock | undefined {
  // cheap test first: is there a frame line within reach at all?
  const f = frameAhead(src, i);
  if (f < 0) return undefined;
  const hm = exceptionHeader(info.text);
  if (hm) {
    let at = hm.cls[0];
    const uncaught = info.text.lastIndexOf('Uncaught ', at);
    if (uncaught >= 0 && uncaught + 9 === at) at = uncaught;
    const pre = new Prefixed(src, info.text, at);
    const ff = framesAfter(pre, i);
    if (ff < 0) return undefined;
    return stack(src, i, i, ff, pre, src.get(ff)!.shape.kind === 'at-java' ? 'java' : 'node', hm, undefined);
  }
  if (f !== i + 1 || isBlankBody(info.text, 0)) return undefined;
  // the line right above a stack is its message (a logger's `ERROR request failed` + `err.stack`
  // without its first line): the exception line, without a class
  const fs = src.get(f)!.shape;
  const pre = new Prefixed(src, src.get(f)!.text, fs.at);
  if (pre.len > 0 && !pre.has(info.text)) return undefined;
  const ms = messageStartOf(info.text, pre.len);
  return stack(src, i, i, f, pre, fs.kind === 'at-java' ? 'java' : 'node', { cls: [ms, ms], msg: [ms, info.text.trimEnd().length] }, undefined);
}

/** Where a log line's message starts: after its prefix, timestamp, level and logger name. */
function messageStartOf(text: string, from: number): number {
  const m = /^\s*(?:(?:\[[^\]]{0,80}\]|\d[\d\-:T.,/+Z ]{5,40}[\dZ]|[A-Z]{3,9}\b:?|[\w.$-]{1,60}:(?= ))\s*){0,6}/.exec(text.slice(from));
  return from + (m ? m[0].length : 0);
}

// ---------------------------------------------------------------------------------------------
// Go

function goFromPanic(src: LineSource, i: number, info: LineInfo, s: Shape): ErrorBlock | undefined {
  const pre = new Prefixed(src, info.text, s.at);
  let found = false;
  for (let j = i + 1; j <= i + GO_REACH; j++) {
    const l = pre.line(j);
    if (!l) break;
    if (l.info.shape.kind === 'goroutine') {
      found = true;
      break;
    }
  }
  if (!found) return undefined;
  return go(src, i, pre, true);
}

/** `main.(*Store).Put(...)` -> `main.(*Store).Put`; `created by main.main in goroutine 1` -> `main.main`. */
export function goFunction(line: string): string {
  let t = line.trim().replace(/^created by /, '').replace(/ in goroutine \d+$/, '');
  if (t.endsWith(')')) {
    let depth = 0;
    for (let k = t.length - 1; k >= 0; k--) {
      const c = t.charCodeAt(k);
      if (c === 0x29) depth++;
      else if (c === 0x28 && --depth === 0) {
        if (k > 0) t = t.slice(0, k);
        break;
      }
    }
  }
  return t;
}

function go(src: LineSource, start: number, pre: Prefixed, panic: boolean): ErrorBlock | undefined {
  const b = new Builder(start);
  let j = start;
  if (panic) {
    const l = src.get(start)!;
    b.role('exception');
    b.exception(l, start, l.shape.msg!);
    j++;
    for (let k = 0; k < MAX_MESSAGE_LINES; k++, j++) {
      const n = pre.line(j);
      if (!n) return b.build('go', 'first');
      const t = n.info.text.slice(n.off).trim();
      if (!t || n.info.shape.kind === 'goroutine') break;
      if (t.startsWith('[signal ')) b.role('other');
      else {
        b.role('exception');
        b.exception(n.info, j, [n.off + indentOf(n.info.text, n.off), n.info.text.trimEnd().length]);
      }
    }
  }
  let inGoroutine = false;
  for (; !b.full; j++) {
    const l = pre.line(j);
    if (!l) break;
    const { info, off } = l;
    const k = info.shape.kind;
    if (k === 'goroutine') {
      b.role('frame');
      inGoroutine = true;
      continue;
    }
    if (isBlankBody(info.text, off)) {
      // blank lines between the panic and its goroutines, or between goroutines
      const n = pre.line(j + 1);
      if (n && (n.info.shape.kind === 'goroutine' || isBlankBody(n.info.text, n.off))) {
        b.role('other');
        continue;
      }
      break;
    }
    if (k === 'go-exit') {
      b.role('other');
      break;
    }
    if (!inGoroutine) break;
    if (k === 'go-file') {
      b.role('frame');
      b.frame(info, j, info.shape);
      continue;
    }
    const n = pre.line(j + 1);
    if (n && n.info.shape.kind === 'go-file') {
      b.role('frame');
      b.role('frame');
      b.frame(n.info, j + 1, n.info.shape, goFunction(info.text.slice(off)));
      j++;
      continue;
    }
    break;
  }
  if (!inGoroutine && !panic) return undefined;
  return b.build('go', 'first');
}

// ---------------------------------------------------------------------------------------------
// Rust

const RUST_FRAME_FN = /^\s*\d{1,5}: (.+)$/;
const RUST_FRAME_AT = /^\s+at (.+?):(\d{1,9})(?::(\d{1,9}))?$/;

function rust(src: LineSource, start: number, info: LineInfo, s: Shape): ErrorBlock | undefined {
  const pre = new Prefixed(src, info.text, s.at);
  const b = new Builder(start);
  if (s.msg) {
    // old format: the message is on the header line
    b.role('exception');
    b.exception(info, start, s.msg);
  } else b.role('frame');
  b.frame(info, start, s);
  let j = start + 1;
  if (!s.msg) {
    for (let k = 0; k < MAX_MESSAGE_LINES; k++, j++) {
      const l = pre.line(j);
      if (!l) return b.build('rust', 'first');
      const sk = l.info.shape.kind;
      if (isBlankBody(l.info.text, l.off) || sk === 'rust-note' || sk === 'rust-backtrace' || startsBlock(sk)) break;
      b.role('exception');
      b.exception(l.info, j, [l.off + indentOf(l.info.text, l.off), l.info.text.trimEnd().length]);
    }
  }
  let l = pre.line(j);
  if (l && l.info.shape.kind === 'rust-backtrace') {
    b.role('other');
    let fn: string | undefined;
    for (j++; !b.full; j++) {
      l = pre.line(j);
      if (!l) break;
      const body = l.info.text.slice(l.off).trimEnd();
      const fm = RUST_FRAME_FN.exec(body);
      if (fm) {
        fn = fm[1];
        b.role('frame');
        continue;
      }
      const am = RUST_FRAME_AT.exec(body);
      if (am) {
        b.role('frame');
        const fs = l.off + body.indexOf(am[1]!);
        const fe = fs + am[1]!.length + 1 + am[2]!.length + (am[3] ? 1 + am[3].length : 0);
        b.frame(l.info, j, { kind: 'at-js', at: 0, frame: { file: am[1]!, line: Number(am[2]), ...(am[3] ? { column: Number(am[3]) } : {}), start: fs, end: fe } }, fn);
        continue;
      }
      break;
    }
    l = pre.line(j);
  }
  if (l && l.info.shape.kind === 'rust-note') b.role('other');
  return b.build('rust', 'first');
}
