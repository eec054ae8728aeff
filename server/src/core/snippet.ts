// Text of snippets inserted into code: a short header comment naming the record, re-indentation
// for the target line and the document's tab/space setting, surround-with-try for a selection or
// (without one) for the statement at the cursor, and tab stops on the names of the record's code
// that the document does not know (planSnippet: plain text for any client, snippet syntax for
// editors with tab stops). Inserting text never runs anything; this module only builds strings.
import type { ErrorRecord } from './record';
import { type LanguageInfo, commentLine, documentLanguage, languageForPath } from './languages';
import { stripControls } from './render';
import { statementAt } from './sourceContext';

export interface SnippetTarget {
  /** VS Code language id of the document the snippet goes into. */
  languageId: string;
  /** Indentation of the target line (kept as is). */
  indent: string;
  insertSpaces: boolean;
  tabSize: number;
  eol: '\n' | '\r\n';
}

/** Longest slug in the header comment (longer ones are cut at a hyphen). */
const HEADER_SLUG = 40;

/** One short comment line naming the record: `# error-explainer: <slug>` (searchable by slug). */
export function snippetHeader(record: ErrorRecord, lang: LanguageInfo): string {
  let slug = stripControls(record.slug).replace(/\s+/g, ' ').trim();
  if (slug.length > HEADER_SLUG) {
    const cut = slug.slice(0, HEADER_SLUG);
    const dash = cut.lastIndexOf('-');
    slug = dash > HEADER_SLUG / 2 ? cut.slice(0, dash) : cut;
  }
  const text = `error-explainer: ${slug}`;
  return commentLine(lang, text) ?? commentLine({ id: lang.id, lineComment: '#' }, text)!;
}

/**
 * The language a snippet is written in, the one rule: the document's (its language id when known
 * here, else its path's); else the id as given (or, without one, the record's language; else
 * plaintext) with the record's comment syntax, else `#`.
 */
export function snippetLanguage(record: ErrorRecord, languageId: string | undefined, filePath: string | null = null): LanguageInfo {
  const known = documentLanguage(languageId, filePath);
  if (known) return known;
  const recordLang = languageForPath(record.filePath);
  const id = languageId ?? recordLang?.id ?? 'plaintext';
  return recordLang ? { ...recordLang, id } : { id, lineComment: '#' };
}

/** Comment syntax for a target (its languageId resolved by snippetLanguage). */
function targetLanguage(record: ErrorRecord, target: SnippetTarget): LanguageInfo {
  return snippetLanguage(record, target.languageId);
}

/** The lines of a record's code field as a snippet body: control characters removed, blank lines
 * at the start and end dropped. */
function codeLines(text: string): string[] {
  const lines = stripControls(text).split('\n');
  while (lines.length && !lines[lines.length - 1]!.trim()) lines.pop();
  while (lines.length && !lines[0]!.trim()) lines.shift();
  return lines;
}

function leading(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

/** Display width of an indentation string (tabs advance to the next multiple of tabSize). */
function width(ws: string, tabSize: number): number {
  let w = 0;
  for (const c of ws) w = c === '\t' ? w + tabSize - (w % tabSize) : w + 1;
  return w;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * Re-indents lines written in the record's style: strips their common indentation, finds the
 * snippet's indentation unit (tab = one unit; spaces: the gcd of the relative widths) and writes
 * each level as one unit of the target (`\t` or tabSize spaces), after `base`. Blank lines stay empty.
 */
function reindent(lines: string[], base: string, target: SnippetTarget): string[] {
  const srcTab = 4;
  const widths = lines.map((l) => (l.trim() ? width(leading(l), srcTab) : -1));
  const real = widths.filter((w) => w >= 0);
  let common = real.length ? Infinity : 0; // a loop, not Math.min(...real): a snippet can have more lines than spread arguments allow
  for (const w of real) if (w < common) common = w;
  let unit = 0;
  for (const w of real) if (w > common) unit = gcd(unit, w - common);
  if (unit === 0) unit = srcTab;
  const targetUnit = target.insertSpaces ? ' '.repeat(Math.max(1, target.tabSize)) : '\t';
  return lines.map((line, i) => {
    const w = widths[i]!;
    if (w < 0) return '';
    const rel = w - common;
    const levels = Math.floor(rel / unit);
    const rest = rel - levels * unit;
    return base + targetUnit.repeat(levels) + ' '.repeat(rest) + line.slice(leading(line).length);
  });
}

/** Header comment + the code re-indented for the target; ends with the target's eol. */
export function formatSnippet(code: string, record: ErrorRecord, target: SnippetTarget): string {
  const header = target.indent + snippetHeader(record, targetLanguage(record, target));
  const body = reindent(codeLines(code), target.indent, target);
  return [header, ...body].join(target.eol) + target.eol;
}

/** Languages without try/catch: error values, not exceptions. */
const NO_TRY = new Set(['go', 'rust', 'c', 'zig']);

interface TryShape {
  /** Index of the `try` line; lines before it are comments/blank only. */
  tryLine: number;
  /** Index of the first handler line (`except`, `} catch`, `rescue`, ...). */
  handlerLine: number;
}

/**
 * Finds `try:`/`try {`/`do {`/`begin` as the first code line of the snippet and the handler
 * line at the same indentation that ends its body. Undefined when the snippet is shaped otherwise
 * (e.g. a retry loop around the try: the selection would change meaning inside it).
 */
function findTry(lines: string[]): TryShape | undefined {
  let i = 0;
  while (i < lines.length && (!lines[i]!.trim() || /^\s*(#|\/\/)/.test(lines[i]!))) i++;
  const tryText = lines[i];
  if (tryText === undefined) return undefined;
  const ind = leading(tryText);
  const t = tryText.trim();
  let handler: RegExp;
  if (/^try\s*:\s*(#.*)?$/.test(t)) handler = /^(except\b|finally\s*:)/;
  else if (/^(try|do)\s*\{\s*(\/\/.*)?$/.test(t)) handler = /^\}\s*(catch\b|finally\b)/;
  else if (/^begin\s*(#.*)?$/.test(t)) handler = /^(rescue\b|ensure\b)/;
  else return undefined;
  for (let j = i + 1; j < lines.length; j++) {
    const l = lines[j]!;
    if (!l.trim()) continue;
    const li = leading(l);
    if (li === ind && handler.test(l.trim())) return { tryLine: i, handlerLine: j };
    if (li.length <= ind.length && li === ind.slice(0, li.length)) return undefined; // body ended without a handler
  }
  return undefined;
}

/**
 * The try/catch snippet with its try body replaced by `selected` (whole lines of the document),
 * which is re-indented one level deeper than `try`; the handler part is kept. Starts with the
 * header comment; ends with eol exactly when `selected` ends with a line break. Undefined when
 * the language has no try (Go, Rust, C) or the snippet is not shaped as try + handler: the caller
 * then inserts the snippet above instead.
 */
export function surroundWithTry(
  tryCatchPattern: string,
  selected: string,
  record: ErrorRecord,
  target: SnippetTarget,
): string | undefined {
  const parts = surroundParts(tryCatchPattern, selected, record, target);
  if (!parts) return undefined;
  const out = [parts.header, ...parts.head, ...parts.body, ...parts.tail];
  const endsWithBreak = /\r?\n$/.test(selected);
  return out.join(target.eol) + (endsWithBreak ? target.eol : '');
}

/** surroundWithTry's lines: the header, the snippet up to `try`, the selection (re-indented), the handler. */
function surroundParts(
  tryCatchPattern: string,
  selected: string,
  record: ErrorRecord,
  target: SnippetTarget,
): { header: string; head: string[]; body: string[]; tail: string[] } | undefined {
  const recordLang = languageForPath(record.filePath)?.id;
  if (NO_TRY.has(target.languageId) || (recordLang && NO_TRY.has(recordLang))) return undefined;
  const lines = codeLines(tryCatchPattern);
  const shape = findTry(lines);
  if (!shape || !selected.trim()) return undefined;

  const snippet = reindent(lines, target.indent, target);
  const unit = target.insertSpaces ? ' '.repeat(Math.max(1, target.tabSize)) : '\t';
  const bodyIndent = leading(snippet[shape.tryLine]!) + unit;

  const sel = selected.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  const nonBlank = sel.filter((l) => l.trim());
  let common = nonBlank.length ? leading(nonBlank[0]!) : '';
  for (const l of nonBlank) {
    const li = leading(l);
    let k = 0;
    while (k < common.length && k < li.length && common[k] === li[k]) k++;
    common = common.slice(0, k);
  }
  const body = sel.map((l) => (l.trim() ? bodyIndent + l.slice(common.length) : ''));
  const header = target.indent + snippetHeader(record, targetLanguage(record, target));
  return { header, head: snippet.slice(0, shape.tryLine + 1), body, tail: snippet.slice(shape.handlerLine) };
}

// ---------------------------------------------------------------------------------------------
// Planned insertions with tab stops

export type SnippetKind = 'validation' | 'tryCatch' | 'typeGuard' | 'exampleFix';

export interface SnippetDocument {
  lines: readonly string[];
  languageId: string;
}

export interface PlannedSnippet {
  /** Whole lines [start, end] are replaced (`replace`), or the text goes before line `start`. */
  start: number;
  end: number;
  replace: boolean;
  /** Plain text (each tab stop's default). Replacements end without a line break, insertions with one. */
  text: string;
  /** The same in snippet syntax: `${1:name}` on names the document does not know, `$`, `}` and `\\` escaped. */
  snippet: string;
  /** True when the snippet surrounds code with try (else it is inserted above). */
  surrounds: boolean;
}

/**
 * Where and what to insert for a record's snippet at `line` (0-based) of a document. A try/catch
 * surrounds the selected lines or, without a selection, the statement at the line; other kinds,
 * and try/catch snippets that cannot surround (no try in the language, not try-shaped, no
 * statement), go above that statement (or the line). Names the record's code uses that the
 * document does not contain become tab stops.
 */
export function planSnippet(
  kind: SnippetKind,
  code: string,
  record: ErrorRecord,
  doc: SnippetDocument,
  at: { line: number; selection?: { start: number; end: number } },
  fmt: { insertSpaces: boolean; tabSize: number; eol: '\n' | '\r\n' },
): PlannedSnippet {
  const lines = doc.lines;
  const line = Math.max(0, Math.min(at.line, Math.max(0, lines.length - 1)));
  const range = at.selection ? { start: at.selection.start, end: Math.max(at.selection.start, at.selection.end) } : statementAt(lines, line, doc.languageId);
  const first = range?.start ?? line;
  const known = knownNames(lines);
  for (const part of (record.errorClass ?? '').split(/[.:]+/)) if (part) known.add(part);
  const target: SnippetTarget = { languageId: doc.languageId, indent: indentAt(lines, first), ...fmt };
  const header = target.indent + snippetHeader(record, targetLanguage(record, target));
  const stops = new TabStops(known, doc.languageId);
  if (kind === 'tryCatch' && range) {
    const selected = lines.slice(range.start, range.end + 1).join('\n');
    const hoisted = hoistDeclaration(selected, doc.languageId);
    const parts = surroundParts(code, hoisted?.body ?? selected, record, target);
    if (parts) {
      const decl = hoisted ? [target.indent + hoisted.declaration] : [];
      const plain = [parts.header, ...decl, ...parts.head, ...parts.body, ...parts.tail];
      const snippet = [
        escapeSnippet(parts.header),
        ...decl.map(escapeSnippet),
        ...parts.head.map((l) => stops.apply(l)),
        ...parts.body.map(escapeSnippet),
        ...parts.tail.map((l) => stops.apply(l)),
      ];
      return { start: range.start, end: range.end, replace: true, text: plain.join(fmt.eol), snippet: snippet.join(fmt.eol), surrounds: true };
    }
  }
  const body = reindent(codeLines(code), target.indent, target);
  return {
    start: first,
    end: first,
    replace: false,
    text: [header, ...body].join(fmt.eol) + fmt.eol,
    snippet: [escapeSnippet(header), ...body.map((l) => stops.apply(l))].join(fmt.eol) + fmt.eol,
    surrounds: false,
  };
}

const BLOCK_SCOPED = new Set(['javascript', 'javascriptreact', 'typescript', 'typescriptreact']);

/**
 * `const x = f()` moved into a try block would be out of scope after it: in JS/TS the declaration
 * stays before the try (`let x;`, its type kept) and the try assigns it (`x = f()`).
 */
function hoistDeclaration(selected: string, languageId: string): { declaration: string; body: string } | undefined {
  if (!BLOCK_SCOPED.has(languageId)) return undefined;
  const m = /^([ \t]*)(?:const|let|var)\s+([A-Za-z_$][\w$]*)(\s*:\s*[^=]+?)?\s*=(?![=>])\s*/.exec(selected);
  if (!m) return undefined;
  const type = m[3] ? m[3].trim().replace(/^:\s*/, ': ') : '';
  return { declaration: `let ${m[2]}${type};`, body: `${m[1]}${m[2]} = ${selected.slice(m[0].length)}` };
}

/** Indentation for code placed at `line`: its own, or (blank line) the next code line's, else the previous one's. */
function indentAt(lines: readonly string[], line: number): string {
  const own = lines[line];
  if (own !== undefined && own.trim()) return leading(own);
  for (let i = line + 1; i < Math.min(lines.length, line + 50); i++) if (lines[i]!.trim()) return leading(lines[i]!);
  for (let i = line - 1; i >= Math.max(0, line - 50); i--) if (lines[i]!.trim()) return leading(lines[i]!);
  return '';
}

const IDENT = /[A-Za-z_$][\w$]*/g;
/** The same, sticky: an identifier exactly at lastIndex (a separate object: matchAll copies IDENT's lastIndex). */
const IDENT_AT = /[A-Za-z_$][\w$]*/y;
const MAX_KNOWN_SCAN = 2_000_000;

/** Every identifier-like word of the document (what it "knows"). */
function knownNames(lines: readonly string[]): Set<string> {
  const out = new Set<string>();
  let size = 0;
  for (const l of lines) {
    size += l.length;
    if (size > MAX_KNOWN_SCAN) break;
    for (const m of l.matchAll(IDENT)) out.add(m[0]);
  }
  return out;
}

/** Escapes text for snippet syntax: `\\`, `$` and `}`. */
export function escapeSnippet(text: string): string {
  return text.replace(/[\\$}]/g, '\\$&');
}

/** Snippet syntax back to plain text: placeholders become their defaults, escapes are undone. */
export function snippetToText(snippet: string): string {
  let out = '';
  for (let i = 0; i < snippet.length; i++) {
    const c = snippet[i]!;
    if (c === '\\' && i + 1 < snippet.length && '\\$}'.includes(snippet[i + 1]!)) {
      out += snippet[++i];
      continue;
    }
    if (c === '$') {
      const m = /^\$\{\d+:/.exec(snippet.slice(i));
      if (m) {
        i += m[0].length - 1;
        continue; // the default follows; its closing } is dropped below
      }
      const n = /^\$(?:\d+|\{\d+\})/.exec(snippet.slice(i));
      if (n) {
        i += n[0].length - 1;
        continue;
      }
    }
    if (c === '}') continue; // the end of a placeholder (literal braces are escaped)
    out += c;
  }
  return out;
}

const COMMON_WORDS: Record<string, string> = {
  python:
    'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield self cls ' +
    'print len str int float bool bytes list dict set frozenset tuple range isinstance issubclass open super object type getattr setattr hasattr repr sorted reversed min max sum any all enumerate zip map filter iter next abs round format id hash vars dir callable ' +
    'Exception BaseException ValueError TypeError KeyError IndexError RuntimeError OSError IOError LookupError AttributeError NotImplementedError StopIteration TimeoutError ConnectionError FileNotFoundError PermissionError logging log logger time sleep os sys json re math',
  js:
    'break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof let new return super switch this throw try typeof var void while with yield async await of null undefined true false NaN Infinity ' +
    'console Error TypeError RangeError SyntaxError ReferenceError Promise JSON Object Array String Number Boolean Math Date Map Set WeakMap Symbol RegExp BigInt setTimeout clearTimeout setInterval clearInterval process require module exports globalThis window document fetch AbortController URL logger log',
  go: 'break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false err error errors fmt log len cap make new append panic recover string int int64 uint byte rune bool float64 context ctx',
  rust: 'as break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while async await dyn Some None Ok Err Result Option Box Vec String println eprintln format panic unwrap expect',
  java: 'abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while true false null var String Integer Long Object Exception RuntimeException IllegalArgumentException IllegalStateException System out println log logger e ex',
};
const WORDS_BY_LANGUAGE = new Map<string, Set<string>>();
function commonWords(languageId: string): Set<string> {
  const family = languageId === 'python' ? 'python' : /^(?:java|kotlin|scala|groovy|csharp)$/.test(languageId) ? 'java' : languageId === 'go' ? 'go' : languageId === 'rust' ? 'rust' : 'js';
  let set = WORDS_BY_LANGUAGE.get(family);
  if (!set) WORDS_BY_LANGUAGE.set(family, (set = new Set(COMMON_WORDS[family]!.split(' '))));
  return set;
}

/** Names a snippet line binds (assignments, `as e`, `catch (e)`, `for x in`, declarations): known from then on. */
const BINDINGS = [
  /^\s*([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=(?!=)/,
  /\bas\s+([A-Za-z_]\w*)/g,
  /\bcatch\s*\(\s*([A-Za-z_$][\w$]*)/g,
  /\bfor\s*\(?\s*(?:const|let|var)?\s*([A-Za-z_$][\w$]*)/g,
  /\b(?:const|let|var|val)\s+([A-Za-z_$][\w$]*)/g,
  /\b([A-Za-z_]\w*)\s*:=/g,
];

/** Numbers tab stops by name across one snippet: the same unknown name is the same (mirrored) stop. */
class TabStops {
  private readonly numbers = new Map<string, number>();
  private readonly common: Set<string>;
  constructor(
    private readonly known: Set<string>,
    languageId: string,
  ) {
    this.common = commonWords(languageId);
  }

  /** One line in snippet syntax: unknown names outside strings and comments become `${n:name}`. */
  apply(line: string): string {
    for (const re of BINDINGS) {
      re.lastIndex = 0;
      if (re.global) for (const m of line.matchAll(re)) this.known.add(m[1]!);
      else {
        const m = re.exec(line);
        if (m) this.known.add(m[1]!);
      }
    }
    let out = '';
    let i = 0;
    while (i < line.length) {
      const c = line[i]!;
      // comments: the rest of the line stays literal
      if (c === '#' || (c === '/' && line[i + 1] === '/')) {
        out += escapeSnippet(line.slice(i));
        break;
      }
      if (c === '"' || c === "'" || c === '`') {
        let k = i + 1;
        while (k < line.length && line[k] !== c) k += line[k] === '\\' ? 2 : 1;
        out += escapeSnippet(line.slice(i, k + 1));
        i = k + 1;
        continue;
      }
      IDENT_AT.lastIndex = i;
      const m = IDENT_AT.exec(line);
      if (m && !/[\w$]/.test(line[i - 1] ?? '')) {
        const name = m[0];
        const attribute = /\.\s*$/.test(line.slice(0, i)) || /^\s*=(?!=)/.test(line.slice(i + name.length));
        if (attribute || this.known.has(name) || this.common.has(name) || name.length < 2) out += escapeSnippet(name);
        else {
          let n = this.numbers.get(name);
          if (n === undefined) this.numbers.set(name, (n = this.numbers.size + 1));
          out += `\${${n}:${escapeSnippet(name)}}`;
        }
        i += name.length;
        continue;
      }
      out += escapeSnippet(c);
      i++;
    }
    return out;
  }
}
