// Text of snippets inserted into code: a header comment naming the record, re-indentation for the
// target line and the document's tab/space setting, and surround-with-try for a selection.
// Inserting text never runs anything; this module only builds strings.
import type { ErrorRecord } from './record';
import { type LanguageInfo, commentLine, languageById, languageForPath } from './languages';
import { raiseSiteLabel, stripControls } from './render';

export interface SnippetTarget {
  /** VS Code language id of the document the snippet goes into. */
  languageId: string;
  /** Indentation of the target line (kept as is). */
  indent: string;
  insertSpaces: boolean;
  tabSize: number;
  eol: '\n' | '\r\n';
}

/** One comment line naming the record: `# error-explainer: <slug> (<repo>, raised at <file:line>)`. */
export function snippetHeader(record: ErrorRecord, lang: LanguageInfo): string {
  const one = (s: string) => stripControls(s).replace(/\s+/g, ' ').trim();
  const site = raiseSiteLabel(record);
  const where = [one(record.repo), site ? `raised at ${one(site)}` : ''].filter(Boolean).join(', ');
  const text = `error-explainer: ${one(record.slug)}${where ? ` (${where})` : ''}`;
  return commentLine(lang, text) ?? commentLine({ id: lang.id, lineComment: '#' }, text)!;
}

/** Comment syntax for a target: the document's language, else the record's, else `#`. */
function targetLanguage(record: ErrorRecord, target: SnippetTarget): LanguageInfo {
  const lang = languageById(target.languageId);
  if (lang && (lang.lineComment || lang.blockComment)) return lang;
  return languageForPath(record.filePath) ?? { id: target.languageId, lineComment: '#' };
}

function splitLines(text: string): string[] {
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
  const body = reindent(splitLines(code), target.indent, target);
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
  const recordLang = languageForPath(record.filePath)?.id;
  if (NO_TRY.has(target.languageId) || (recordLang && NO_TRY.has(recordLang))) return undefined;
  const lines = splitLines(tryCatchPattern);
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
  const out = [
    header,
    ...snippet.slice(0, shape.tryLine + 1),
    ...body,
    ...snippet.slice(shape.handlerLine),
  ];
  const endsWithBreak = /\r?\n$/.test(selected);
  return out.join(target.eol) + (endsWithBreak ? target.eol : '');
}
