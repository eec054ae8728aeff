// Reading source code around a point, language-aware enough for editor actions: bracket depth with
// strings and comments skipped, the statement that contains a line (what "Insert try/catch"
// surrounds when nothing is selected), the lines of a record's raise statement (the hover's short
// source excerpt) and the function a record is raised in (code actions on its calls).
// Heuristics over text, no parser: every function degrades to "undefined" on code it cannot read.
import type { ErrorRecord } from './record';
import { languageForPath } from './languages';

/** What a scanned line holds once strings and comments are set aside. */
export interface ScannedLine {
  /** Expression bracket depth ((, [ and braces of literals) before the line. */
  depthBefore: number;
  depthAfter: number;
  /** Block depth (braces of blocks in brace languages) before and after the line. */
  blocksBefore: number;
  blocksAfter: number;
  /** The line with comments removed and the contents of string literals blanked (quotes kept). */
  code: string;
  /** The line starts inside a string literal (a triple-quoted or template string of an earlier line). */
  startsInString: boolean;
}

interface Syntax {
  lineComment?: string;
  blockComment?: [string, string];
  quotes: string[];
  /** Python's ''' / """. */
  triple: boolean;
  /** Quotes whose strings may span lines (JS template literals, Go raw strings). */
  multiline: string[];
  /** Quotes without backslash escapes (Go raw strings). */
  raw?: string[];
  /** `{` opens blocks (C, JS, Go, Java, Rust …); false: braces are always literals (Python). */
  blockBraces: boolean;
}

const C_SYNTAX: Syntax = { lineComment: '//', blockComment: ['/*', '*/'], quotes: ['"', "'"], triple: false, multiline: [], blockBraces: true };

/** Syntax of a VS Code language id (C-like when unknown). */
function syntaxOf(languageId: string): Syntax {
  switch (languageId) {
    case 'python':
      return { lineComment: '#', quotes: ['"', "'"], triple: true, multiline: [], blockBraces: false };
    case 'javascript':
    case 'javascriptreact':
    case 'typescript':
    case 'typescriptreact':
      return { ...C_SYNTAX, quotes: ['"', "'", '`'], multiline: ['`'] };
    case 'go':
      return { ...C_SYNTAX, quotes: ['"', "'", '`'], multiline: ['`'], raw: ['`'] };
    case 'ruby':
    case 'shellscript':
    case 'perl':
    case 'r':
    case 'elixir':
    case 'julia':
    case 'yaml':
    case 'toml':
      return { lineComment: '#', quotes: ['"', "'"], triple: false, multiline: [], blockBraces: languageId === 'perl' || languageId === 'r' };
    case 'rust':
      return { ...C_SYNTAX, quotes: ['"'] }; // 'a is a lifetime, not a string
    default:
      return C_SYNTAX;
  }
}

/** After one of these (or a keyword like `return`), a `{` starts a literal, not a block. */
const EXPRESSION_BEFORE = new Set(['=', '(', '[', ',', ':', '?', '!', '&', '|', '+', '-', '*', '/', '%', '<', '~', '^']);

/**
 * Scans lines [from, to) and reports each line's bracket depths and code. The scan starts at depth 0
 * outside any string at `from`; a depth that would go negative (the scan began inside brackets)
 * is clamped to 0. Linear, char codes only (a code action scans up to a few thousand lines).
 */
export function scanCode(lines: readonly string[], from: number, to: number, languageId: string): ScannedLine[] {
  const syn = syntaxOf(languageId);
  const out: ScannedLine[] = [];
  const lc = syn.lineComment;
  const lc0 = lc ? lc.charCodeAt(0) : -1;
  const bc = syn.blockComment;
  const bc0 = bc ? bc[0].charCodeAt(0) : -1;
  const quoteCodes = new Set(syn.quotes.map((q) => q.charCodeAt(0)));
  let depth = 0;
  let blocks = 0;
  /** What each open bracket is: true = a block brace. */
  const stack: boolean[] = [];
  let lastSig = ''; // the last significant code character (across lines)
  let lastWord = ''; // the word before it, when lastSig ends a word
  let inString: string | undefined; // the closing delimiter of an open multi-line string
  let inBlock = false;
  for (let i = Math.max(0, from); i < Math.min(lines.length, to); i++) {
    const line = lines[i] ?? '';
    const startsInString = inString !== undefined;
    const depthBefore = depth;
    const blocksBefore = blocks;
    const parts: string[] = [];
    let seg = 0; // start of the code not yet copied to parts
    let j = 0;
    const n = line.length;
    while (j < n) {
      if (inBlock) {
        const end = line.indexOf(bc![1], j);
        if (end < 0) {
          j = n;
          seg = n;
          break;
        }
        j = end + bc![1].length;
        seg = j;
        inBlock = false;
        continue;
      }
      if (inString !== undefined) {
        const close = inString;
        const escapes = !syn.raw?.includes(close);
        let k = j;
        let closed = -1;
        while (k < n) {
          if (escapes && line.charCodeAt(k) === 92 /* \ */) {
            k += 2;
            continue;
          }
          if (line.startsWith(close, k)) {
            closed = k;
            break;
          }
          k++;
        }
        if (closed < 0) {
          j = n;
          seg = n;
          break;
        }
        j = closed + close.length;
        parts.push(close);
        seg = j;
        inString = undefined;
        continue;
      }
      const ch = line.charCodeAt(j);
      // letters, digits, _ and $: words (the common case)
      if ((ch >= 97 && ch <= 122) || (ch >= 65 && ch <= 90) || (ch >= 48 && ch <= 57) || ch === 95 || ch === 36) {
        let k = j + 1;
        while (k < n) {
          const c2 = line.charCodeAt(k);
          if ((c2 >= 97 && c2 <= 122) || (c2 >= 65 && c2 <= 90) || (c2 >= 48 && c2 <= 57) || c2 === 95 || c2 === 36) k++;
          else break;
        }
        lastWord = line.slice(j, k);
        lastSig = line[k - 1]!;
        j = k;
        continue;
      }
      if (ch === 32 || ch === 9) {
        j++;
        continue;
      }
      if (ch === lc0 && line.startsWith(lc!, j)) {
        parts.push(line.slice(seg, j));
        seg = n;
        j = n;
        break;
      }
      if (ch === bc0 && line.startsWith(bc![0], j)) {
        parts.push(line.slice(seg, j));
        inBlock = true;
        j += bc![0].length;
        seg = j;
        continue;
      }
      if (quoteCodes.has(ch)) {
        const c = line[j]!;
        if (syn.triple && line.startsWith(c + c + c, j)) {
          parts.push(line.slice(seg, j + 3));
          inString = c + c + c;
          j += 3;
          seg = j;
          continue;
        }
        if (syn.multiline.includes(c)) {
          parts.push(line.slice(seg, j + 1));
          inString = c;
          j++;
          seg = j;
          continue;
        }
        // a single-line string: to its closing quote or the end of the line
        let k = j + 1;
        while (k < n && line.charCodeAt(k) !== ch) k += line.charCodeAt(k) === 92 ? 2 : 1;
        parts.push(line.slice(seg, j + 1), c);
        lastSig = c;
        lastWord = '';
        j = Math.min(n, k + 1);
        seg = j;
        continue;
      }
      if (ch === 40 || ch === 91 || ch === 123) {
        const block = ch === 123 && syn.blockBraces && depth === 0 && !EXPRESSION_BEFORE.has(lastSig) && !/^(?:return|yield|await|throw|case)$/.test(/[\w$]$/.test(lastSig) ? lastWord : '');
        stack.push(block);
        if (block) blocks++;
        else depth++;
      } else if (ch === 41 || ch === 93 || ch === 125) {
        const block = stack.pop();
        if (block) blocks = Math.max(0, blocks - 1);
        else if (block === false) depth = Math.max(0, depth - 1);
      }
      lastSig = line[j]!;
      j++;
    }
    if (seg < n) parts.push(line.slice(seg));
    out.push({ depthBefore, depthAfter: depth, blocksBefore, blocksAfter: blocks, code: parts.join(''), startsInString });
  }
  return out;
}

const INDENT_LANGUAGES = new Set(['python']);
/** Lines that continue a clause of an earlier statement: never surrounded on their own. */
const CLAUSE = /^(?:else\b|elif\b|except\b|finally\b|catch\b|case\b|default\s*:|rescue\b|ensure\b|when\b|\}|\)|\])/;
/** Lines that start definitions or imports: wrapping them in try changes nothing useful (or is not allowed). */
const DEFINITION = /^(?:@|(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:def|class|function\*?|func|fn|interface|type|enum|struct|impl|trait|module|namespace|package)\b|(?:public|private|protected|static|abstract|final|override)\b|import\b(?!\s*\()|from\s+\S+\s+import\b|#include\b|using\b)/;
/** A line ending like this continues on the next one (besides open brackets). */
const CONTINUES_BRACE_LANG = /(?:[,+\-*/%=&|^<>?]|=>)\s*$/;

/**
 * The statement containing `line` as whole lines [start, end], or undefined when the line is
 * blank, a comment, part of a clause (`else`, `except`, `}` …) or a definition. A compound
 * statement (Python `for …:` / `if (…) {`) includes its block. Strings and brackets are read from
 * `behind` lines above (from the top of files shorter than that: a scan starting inside a docstring
 * would read it inside out); the statement may reach `ahead` lines below.
 */
export function statementAt(lines: readonly string[], line: number, languageId: string, behind = 5000, ahead = 200): { start: number; end: number } | undefined {
  if (line < 0 || line >= lines.length || !(lines[line] ?? '').trim()) return undefined;
  const from = Math.max(0, line - behind);
  const to = Math.min(lines.length, line + ahead + 1);
  const scan = scanCode(lines, from, to, languageId);
  const at = (i: number) => scan[i - from]!;
  const indentLang = INDENT_LANGUAGES.has(languageId);
  const chainStart = /^\s*(?:\.[A-Za-z_$]|\?\.|\|\||&&|\?|:(?!:))/;
  const continues = (i: number): boolean => {
    const s = at(i);
    if (s.depthAfter > 0 || (i + 1 < to && at(i + 1).startsInString)) return true;
    const code = s.code.trimEnd();
    if (indentLang) return code.endsWith('\\');
    if (code && CONTINUES_BRACE_LANG.test(code)) return true;
    // the next code line continues this one (`.then(…)`, `|| fallback`)
    for (let n = i + 1; n < to && n <= i + 3; n++) {
      if (!at(n).code.trim()) continue;
      return chainStart.test(at(n).code);
    }
    return false;
  };
  const continuation = (i: number): boolean => {
    // the line is the tail of a statement that began earlier
    if (i <= from) return false;
    if (at(i).depthBefore > 0 || at(i).startsInString) return true;
    const prev = at(i - 1).code.trimEnd();
    if (indentLang) return prev.endsWith('\\');
    if (chainStart.test(at(i).code)) return true; // method chains, operators
    return !!prev && CONTINUES_BRACE_LANG.test(prev);
  };
  // A blank or comment-only line at the cursor is no statement.
  if (!at(line).code.trim() && !at(line).startsInString) return undefined;
  let start = line;
  while (continuation(start) && start > from) start--;
  const head = at(start).code.trim();
  if (!head || CLAUSE.test(head) || DEFINITION.test(head)) return undefined;
  let end = start;
  while (end < to - 1 && continues(end)) end++;
  if (end < line) return undefined; // the scan could not connect the cursor line to a statement start
  if (indentLang) {
    // `for x in y:` / `with …:` own the indented block below
    const last = at(end).code.trimEnd();
    if (/:$/.test(last) && !/^\s*(?:lambda\b)/.test(last)) {
      const base = indentWidth(lines[start]!);
      let k = end + 1;
      let lastBody = end;
      while (k < to) {
        const l = lines[k]!;
        if (l.trim()) {
          if (indentWidth(l) <= base) break;
          lastBody = k;
        }
        k++;
      }
      if (lastBody === end) return undefined; // a header without a body (incomplete code)
      end = lastBody;
      // the statement continues with its own clauses (else/except/…): surround them too
      for (;;) {
        let n = end + 1;
        while (n < to && !lines[n]!.trim()) n++;
        if (n >= to || indentWidth(lines[n]!) !== base || !/^(?:else|elif|except|finally)\b/.test(lines[n]!.trim())) break;
        let b = n + 1;
        let lb = n;
        while (b < to) {
          const l = lines[b]!;
          if (l.trim()) {
            if (indentWidth(l) <= base) break;
            lb = b;
          }
          b++;
        }
        end = lb;
      }
    }
  } else {
    // `if (…) {` / `foo(() => {` own their block, and `} else {` / `} catch (e) {` chains belong to it
    const base = at(start).blocksBefore;
    while (end < to - 1 && at(end).blocksAfter > base) {
      end++;
      while (end < to - 1 && continues(end)) end++;
    }
    for (;;) {
      let n = end + 1;
      while (n < to && !lines[n]!.trim()) n++;
      if (n >= to || !/^\s*(?:else\b|catch\b|finally\b)/.test(lines[n]!)) break;
      end = n;
      while (end < to - 1 && (continues(end) || at(end).blocksAfter > base)) end++;
    }
  }
  return { start, end };
}

function indentWidth(line: string): number {
  let w = 0;
  for (const c of line) {
    if (c === ' ') w++;
    else if (c === '\t') w += 4 - (w % 4);
    else break;
  }
  return w;
}

/** The record's source lines as [first line number, lines], or undefined without a usable window. */
function sourceWindow(record: Pick<ErrorRecord, 'sourceCode' | 'sourceCodeStart' | 'lineNumber'>): { start: number; lines: string[]; raise: number } | undefined {
  if (!record.sourceCode || record.lineNumber == null) return undefined;
  const start = record.sourceCodeStart != null && Number.isInteger(record.sourceCodeStart) && record.sourceCodeStart > 0 ? record.sourceCodeStart : 1;
  const lines = record.sourceCode.replace(/\r\n?/g, '\n').split('\n');
  const raise = record.lineNumber - start;
  if (raise < 0 || raise >= lines.length) return undefined;
  return { start, lines, raise };
}

/**
 * A few lines of the record's source at the raise site: the line before it (when it is code) and
 * the raise statement (up to `maxStatementLines` lines). Common indentation removed.
 */
export function raiseExcerpt(
  record: Pick<ErrorRecord, 'sourceCode' | 'sourceCodeStart' | 'lineNumber' | 'filePath'>,
  maxStatementLines = 3,
): { firstLine: number; text: string } | undefined {
  const w = sourceWindow(record);
  if (!w) return undefined;
  const lang = languageForPath(record.filePath)?.id ?? 'plaintext';
  const scan = scanCode(w.lines, 0, w.lines.length, lang);
  let first = w.raise;
  if (first > 0 && w.lines[first - 1]!.trim() && scan[first - 1]!.depthAfter === 0 && scan[first - 1]!.depthBefore === 0) first--;
  let last = w.raise;
  while (last < w.lines.length - 1 && last - w.raise + 1 < maxStatementLines && scan[last]!.depthAfter > 0) last++;
  const picked = w.lines.slice(first, last + 1);
  let common = Infinity;
  for (const l of picked) if (l.trim()) common = Math.min(common, /^[ \t]*/.exec(l)![0].length);
  if (!Number.isFinite(common)) return undefined;
  return { firstLine: w.start + first, text: picked.map((l) => l.slice(common).trimEnd()).join('\n') };
}

const DEF_PATTERNS: RegExp[] = [
  /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/, // Python
  /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(/, // JS function
  /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s*)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>/, // arrow
  /^\s*func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\(/, // Go
  /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?fn\s+([A-Za-z_]\w*)/, // Rust
  /^\s*(?:(?:public|private|protected|static|final|abstract|synchronized|override|async|suspend|open|internal)\s+)*(?:[\w<>[\],.?]+\s+)?([A-Za-z_$][\w$]*)\s*\([^;]*\)\s*(?:throws\s+[\w.,\s]+)?\{?\s*$/, // methods
];
const NOT_FUNCTIONS = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'with', 'elif', 'else', 'new', 'throw', 'raise', 'sizeof', 'typeof', 'await', 'super', 'this']);

/**
 * The function (or method) the record's raise site is in, read from its source window: the nearest
 * definition above the raise line with less indentation. `__init__` / `constructor` give the class.
 */
export function enclosingFunction(record: Pick<ErrorRecord, 'sourceCode' | 'sourceCodeStart' | 'lineNumber'>): string | undefined {
  const w = sourceWindow(record);
  if (!w) return undefined;
  let indent = indentWidth(w.lines[w.raise]!);
  let fn: string | undefined;
  for (let i = w.raise - 1; i >= 0; i--) {
    const l = w.lines[i]!;
    if (!l.trim() || indentWidth(l) >= indent) continue;
    if (!fn) {
      for (const re of DEF_PATTERNS) {
        const m = re.exec(l);
        if (m && !NOT_FUNCTIONS.has(m[1]!)) {
          fn = m[1]!;
          break;
        }
      }
      if (fn && fn !== '__init__' && fn !== 'constructor' && fn !== 'new') return fn;
      if (fn) indent = indentWidth(l);
      continue;
    }
    const cls = /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:class|struct|impl)\s+([A-Za-z_$][\w$]*)/.exec(l);
    if (cls) return cls[1];
  }
  return fn && fn !== '__init__' && fn !== 'constructor' && fn !== 'new' ? fn : undefined;
}
