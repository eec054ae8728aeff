// Record -> Markdown for hovers, the record view and the CLI.
//
// Record text is DATA, never markup: everything taken from a record (or from a log line) goes
// through escapeMarkdown / codeSpan / fencedBlock, so it can never become a link, a `command:` URI,
// raw HTML, an image or an entity. The only live link is the raise site: a record's githubUrl when
// it is an https://github.com/ URL, or a local href given by the caller. `opts.footer` is trusted
// Markdown built by the caller (the extension's own command links).
import type { ErrorRecord } from './record';
import { fenceLanguage } from './languages';
import { isLiteRecord } from './dataset/lite';
import { raiseExcerpt } from './sourceContext';

export interface RenderOptions {
  match?: { text: string; captures: { name: string; value: string }[] };
  /** Resolved local raise site (href = file URI); when absent, the record's githubUrl is used. */
  raiseSite?: { label: string; href?: string };
  /**
   * Hover: a glance that fits a hover box. One-line title (with the raise site), `actions` right
   * under it, the first sentences of the documentation, the first fix, the captures on one line,
   * the confidence when the match is only possible or unlikely; a skeleton record shows a few
   * lines of its raise statement instead. The full record is the record view's.
   */
  compact?: boolean;
  /**
   * A terminal or report summary (CLI `scan`, SARIF help): documentation, causes, solutions, the
   * try/catch and validation snippets, the raise site; a skeleton record shows a short source
   * window. Ignored when `compact` is set.
   */
  summary?: boolean;
  /** Trusted Markdown appended at the end (command links built by the caller). */
  footer?: string;
  /** Trusted Markdown put right under the title (the hover's command links, built by the caller). */
  actions?: string;
  /** How sure the match is (RecordMatch.confidence): its label and reasons, strongest first. */
  confidence?: { label: string; reasons: readonly string[] };
  /**
   * Plain text for a terminal: no Markdown escaping of record text (control characters are still
   * removed, so a record cannot drive the terminal). Never feed plain output to a Markdown renderer.
   */
  plain?: boolean;
}

// Characters no output may carry (stripControls removes them, showInvisible writes them as \u
// escapes): C0/C1 controls except TAB/LF, DEL, and the invisible format characters that can make
// text read differently from what it is (Trojan Source, CVE-2021-42574): bidi marks, embeddings,
// overrides and isolates (U+061C, U+200E-200F, U+202A-202E, U+2066-2069), zero-width characters
// (U+200B-200D, U+2060-2064, U+180E, U+FEFF), deprecated format controls (U+206A-206F), interlinear
// annotations (U+FFF9-FFFB) and tag characters (U+E0000-E007F). This is the one definition; every
// output (Markdown, plain text, diagnostics, code-action titles, tooltips, snippets, CLI) uses it.
const INVISIBLE_SOURCE =
  '[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F\\u061C\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u206F\\uFEFF\\uFFF9-\\uFFFB]|\\uDB40[\\uDC00-\\uDC7F]';
// eslint-disable-next-line no-control-regex
const CONTROL = new RegExp(INVISIBLE_SOURCE, 'g');

const HAS_CONTROL = new RegExp(INVISIBLE_SOURCE);

/** Removes control and invisible format characters (keeps tab and newline; CR and CRLF become newline). */
export function stripControls(text: string): string {
  const t = text.indexOf('\r') >= 0 ? text.replace(/\r\n?/g, '\n') : text;
  return HAS_CONTROL.test(t) ? t.replace(CONTROL, '') : t;
}

/** The same characters written as visible `\uXXXX` escapes (lossless; inside a JSON string this is
 * the JSON escape of the character itself). TAB, LF and CR are kept. */
export function showInvisible(text: string): string {
  if (!HAS_CONTROL.test(text)) return text;
  return text.replace(CONTROL, (c) => {
    if (c === '\t' || c === '\n' || c === '\r') return c;
    let out = '';
    for (let i = 0; i < c.length; i++) out += '\\u' + c.charCodeAt(i).toString(16).padStart(4, '0');
    return out;
  });
}

// URL-like runs are shown as code spans (no renderer links inside a code span). This is for
// looks: safety does not depend on finding them (see escapeRun).
const LINKISH =
  /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s<>|`]*|www\.[^\s<>|`]+|\b(?:command|vscode|vscode-insiders|vscode-file|file|data|javascript|vbscript|mailto|tel):[^\s<>|`]*|[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/gi;

// ASCII punctuation that can start or close a Markdown construct, or make an autolink: `:` (every
// scheme, `://`), `@` (e-mail autolinks) and `.` (www. and bare domains such as evil.com).
// CommonMark allows a backslash before any ASCII punctuation and renders the character itself; a
// backslash escape also ends the text run a linkifier looks at (marked's GFM autolinks,
// markdown-it's linkify), so no run of escaped text can hold a scheme, a www., an @ or a domain.
const META = /[\\`*_{}[\]()#!|<>&~$:@.]/g;

/**
 * Escapes text so a Markdown renderer shows it literally and links nothing: metacharacters and
 * `: @ .` are backslash-escaped, URL-like runs are put in code spans, a leading `1)` cannot start a
 * list. Newlines are kept (paragraph text).
 */
export function escapeMarkdown(text: string): string {
  const clean = stripControls(text);
  let out = '';
  let last = 0;
  LINKISH.lastIndex = 0;
  for (let m = LINKISH.exec(clean); m; m = LINKISH.exec(clean)) {
    // like GFM autolinks, trailing punctuation is not part of the URL: `(see https://x.y/z).`
    const url = m[0].replace(/[).,;:!?'"\]]+$/, '');
    if (!url) continue;
    out += escapeRun(clean.slice(last, m.index)) + codeSpan(url);
    last = m.index + url.length;
  }
  out += escapeRun(clean.slice(last));
  return out;
}

function escapeRun(text: string): string {
  return text
    .replace(META, '\\$&')
    .replace(/(^|\n)([ \t]*)([-+=])/g, '$1$2\\$3')
    .replace(/(^|\n)([ \t]*\d+)(\))/g, '$1$2\\$3');
}

/** One line of plain text (diagnostic messages, titles, tooltips, CLI lines): control and invisible
 * characters removed, runs of white space one space, trimmed. */
export function oneLine(text: string): string {
  return stripControls(text).replace(/\s+/g, ' ').trim();
}

/** Text on one line (titles, table cells): escaped, newlines and tabs become spaces. */
export function escapeInline(text: string): string {
  return escapeMarkdown(stripControls(text).replace(/[\n\t]+/g, ' '));
}

function longestRun(text: string, ch: string): number {
  let best = 0;
  let run = 0;
  for (const c of text) {
    if (c === ch) best = Math.max(best, ++run);
    else run = 0;
  }
  return best;
}

/** An inline code span showing `text` literally (fence longer than any backtick run inside). */
export function codeSpan(text: string): string {
  const clean = stripControls(text).replace(/\n/g, ' ');
  const fence = '`'.repeat(longestRun(clean, '`') + 1);
  const pad = clean.startsWith('`') || clean.endsWith('`') || clean.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${clean}${pad}${fence}`;
}

/**
 * A link's text (a path, a `file:line`), on one line: a code span where it holds no backtick, else
 * every ASCII punctuation character backslash-escaped. A code span with a backtick in it needs a
 * longer fence, and `marked` (VS Code's hover renderer) reads a link's text with a pattern that
 * knows only single-backtick code spans: it ended the text at a `](` inside such a span and linked
 * what followed (a record's filePath `` `x](http://evil) `` became a link there; inside a code span a
 * backslash escapes nothing, so that span cannot be mended).
 */
export function linkText(text: string): string {
  const clean = stripControls(text).replace(/[\n\t]+/g, ' ');
  if (!clean.includes('`')) return codeSpan(clean);
  return clean.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** A fenced code block (fence longer than any backtick run inside, at least 3). */
export function fencedBlock(code: string, language: string): string {
  const clean = stripControls(code).replace(/\n+$/, '');
  const fence = '`'.repeat(Math.max(3, longestRun(clean, '`') + 1));
  const info = /^[A-Za-z0-9_+-]*$/.test(language) ? language : '';
  return `${fence}${info}\n${clean}\n${fence}`;
}

/**
 * The record's githubUrl when it is safe to link: https, host exactly github.com, no credentials
 * or port. Returned percent-encoded so it cannot close a Markdown link destination.
 */
export function safeGithubUrl(url: string | null | undefined): string | undefined {
  if (!url || !/^https:\/\/github\.com\//.test(url)) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'https:' || u.hostname !== 'github.com' || u.port || u.username || u.password) return undefined;
  return encodeHref(u.href);
}

/** A caller-built local href: only file:, vscode-remote: and https://github.com/ are accepted. */
function safeLocalHref(href: string): string | undefined {
  if (/^https:/i.test(href)) return safeGithubUrl(href);
  if (!/^(file|vscode-remote):/i.test(href)) return undefined;
  if (HAS_CONTROL.test(href)) return undefined;
  return encodeHref(href);
}

function encodeHref(href: string): string {
  return href.replace(/[\s()<>"'`\\[\]]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
}

const ABBREVIATIONS = /(?:^|\s)(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|fig|resp)\.$/i;

/** The first sentence of a text (up to `.`, `!` or `?` followed by space or end), trimmed; '' for null. */
export function firstSentence(text: string | null): string {
  if (!text) return '';
  const t = stripControls(text).replace(/\s+/g, ' ').trim();
  const re = /[.!?](?=\s|$)/g;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    const head = t.slice(0, m.index + 1);
    if (ABBREVIATIONS.test(head)) continue;
    return head;
  }
  return t;
}

/** True when a record has no written explanation (ErrLookup skeleton). */
export function isSkeleton(record: ErrorRecord): boolean {
  return !record.documentation?.trim() && record.solutions.length === 0;
}

function shortSha(sha: string | null): string | undefined {
  return sha && /^[0-9a-f]{7,40}$/i.test(sha) ? sha.slice(0, 7).toLowerCase() : undefined;
}

/** `filePath:lineNumber` of the raise site, or undefined when the record has no file. */
export function raiseSiteLabel(record: ErrorRecord): string | undefined {
  if (!record.filePath) return undefined;
  return record.lineNumber != null ? `${record.filePath}:${record.lineNumber}` : record.filePath;
}

export function renderRecord(record: ErrorRecord, opts: RenderOptions = {}): string {
  if (opts.compact === true) return renderGlance(record, opts);
  const plain = opts.plain === true;
  const esc = plain ? (s: string) => stripControls(s) : escapeMarkdown;
  const inl = plain ? (s: string) => stripControls(s).replace(/[\n\t]+/g, ' ') : escapeInline;
  const code = plain ? (s: string) => stripControls(s).replace(/\n/g, ' ') : codeSpan;
  const summary = opts.summary === true;
  const lang = fenceLanguage(record.filePath);
  const out: string[] = [];
  const section = (title: string, body: string | undefined) => {
    if (!body) return;
    out.push(summary ? `**${title}**\n\n${body}` : `#### ${title}\n\n${body}`);
  };

  // Title: errorClass · HTTP status · severity · repo
  const titleParts: string[] = [];
  titleParts.push(inl(record.errorClass || record.errorCode || record.errorType));
  if (record.errorCode && record.errorClass) titleParts.push(inl(record.errorCode));
  if (record.httpStatus != null) titleParts.push(`HTTP ${Math.trunc(Number(record.httpStatus))}`);
  titleParts.push(inl(record.severity));
  titleParts.push(inl(record.repo));
  out.push(`${summary ? '####' : '###'} ${titleParts.join(' · ')}`);
  if (opts.actions) out.push(opts.actions);
  out.push(plain ? `> ${inl(record.errorMessage)}` : `> ${escapeInline(record.errorMessage)}`);
  if (opts.confidence) out.push(confidenceLine(opts.confidence, plain));

  if (opts.match) {
    const lines = [`**Matched:** ${code(opts.match.text)}`];
    const caps = opts.match.captures;
    if (caps.length) {
      lines.push('');
      if (plain) for (const c of caps) lines.push(`  ${inl(c.name)} = ${inl(c.value)}`);
      else {
        lines.push('| Capture | Value |', '| --- | --- |');
        for (const c of caps) lines.push(`| ${escapeInline(c.name)} | ${escapeInline(c.value) || ' '} |`);
      }
    }
    out.push(lines.join('\n'));
  }

  const skeleton = isSkeleton(record);
  if (skeleton) {
    out.push(plain ? 'No explanation has been written for this error yet.' : '_No explanation has been written for this error yet._');
  } else if (record.documentation) {
    out.push(esc(record.documentation));
  }

  section('Why it happens', record.triggerScenarios ? esc(record.triggerScenarios) : undefined);
  if (!summary) section('Common situations', record.commonSituations ? esc(record.commonSituations) : undefined);
  section('Solutions', list(record.solutions, esc, true));
  if (!summary) section('Prevention', list(record.preventionTips, esc, false));

  const snippets: [string, string | null][] = summary
    ? [
        ['Try/catch', record.tryCatchPattern],
        ['Validation', record.validationCode],
      ]
    : [
        ['Example fix', record.exampleFix],
        ['Validation', record.validationCode],
        ['Type guard', record.typeGuard],
        ['Try/catch', record.tryCatchPattern],
      ];
  for (const [title, snippet] of snippets) {
    if (snippet && snippet.trim()) section(title, fencedBlock(snippet, lang));
  }

  // Raise site
  const site = raiseSiteLine(record, opts, plain);
  if (site) section('Raised at', site);
  if (record.sourceCode && !summary) {
    const start = record.sourceCodeStart;
    const end = record.sourceCodeEnd;
    const where = start != null ? ` (lines ${Math.trunc(Number(start))}–${Math.trunc(Number(end ?? start))})` : '';
    section(`Source${where}`, fencedBlock(record.sourceCode, lang));
  } else if (skeleton) {
    const ex = raiseExcerpt(record, 6);
    if (ex) section(`Source (from line ${ex.firstLine})`, fencedBlock(ex.text, lang));
  }

  if (opts.footer) out.push(opts.footer);
  return out.join('\n\n') + '\n';
}

function list(items: string[], esc: (s: string) => string, numbered: boolean): string | undefined {
  const real = items.filter((s) => typeof s === 'string' && s.trim());
  if (!real.length) return undefined;
  return real.map((s, i) => `${numbered ? `${i + 1}.` : '-'} ${esc(s).replace(/\n/g, '\n   ')}`).join('\n');
}

function raiseSiteLine(record: ErrorRecord, opts: RenderOptions, plain: boolean): string | undefined {
  const label = opts.raiseSite?.label ?? raiseSiteLabel(record);
  if (!label) return undefined;
  const sha = shortSha(record.analyzedSha);
  const github = safeGithubUrl(record.githubUrl);
  if (plain) {
    const at = sha ? ` at ${sha}` : '';
    const url = opts.raiseSite?.href ?? github;
    return `${stripControls(label).replace(/\n/g, ' ')}${at}${url ? `\n${stripControls(url)}` : ''}`;
  }
  const text = linkText(label);
  const localHref = opts.raiseSite?.href ? safeLocalHref(opts.raiseSite.href) : undefined;
  const href = localHref ?? github;
  const at = sha ? ` at ${codeSpan(sha)}` : '';
  const linked = href ? `[${text}](${href})` : text;
  const alsoGithub = localHref && github ? ` ([GitHub](${github}))` : '';
  return `${linked}${at}${alsoGithub}`;
}

// ---------------------------------------------------------------------------------------------
// The hover glance (compact)

/** Limits of the glance, in characters: what fits a 250 px hover next to the problem's message. */
export const GLANCE = { documentation: 200, solution: 80, captureValue: 40, captures: 4, pathSegments: 2 } as const;

/** A hard line break inside a paragraph (two trailing spaces): lines without paragraph margins. */
const BREAK = '  \n';

/** `text` cut to at most `max` characters at a word boundary, with an ellipsis. */
export function shorten(text: string, max: number): string {
  const t = stripControls(text).replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return (space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '') + '…';
}

/** The first sentence of a text, plus the second when both fit in `max` characters (else shortened). */
export function leadSentences(text: string | null, max: number): string {
  const one = firstSentence(text);
  if (!one) return '';
  if (one.length > max) return shorten(one, max);
  const rest = stripControls(text ?? '').replace(/\s+/g, ' ').trim().slice(one.length).trim();
  const two = firstSentence(rest);
  return two && one.length + 1 + two.length <= max ? `${one} ${two}` : one;
}

const CONFIDENCE_WORDS: Record<string, string> = { likely: 'Likely match', possible: 'Possible match', unlikely: 'Unlikely match' };

/** "Likely match (specific message text)": the label and the strongest reason. */
export function confidenceText(c: { label: string; reasons: readonly string[] }): string {
  const head = CONFIDENCE_WORDS[c.label] ?? `${c.label} match`;
  const why = c.reasons[0];
  return why ? `${head} (${why})` : head;
}

function confidenceLine(c: { label: string; reasons: readonly string[] }, plain: boolean): string {
  return plain ? stripControls(confidenceText(c)) : `_${escapeInline(confidenceText(c))}_`;
}

/** Letters and digits only, lower case: "the same text" whatever the punctuation. */
function comparable(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * The documentation's lead sentences for the glance. A first sentence that only restates the
 * error (the matched text or the record's message, which the problem already shows) is skipped.
 */
function glanceDocumentation(record: ErrorRecord, matched: string | undefined): string {
  const docText = record.documentation;
  const first = firstSentence(docText);
  if (!first) return '';
  const f = comparable(first);
  const literal = comparable(record.errorMessage.replace(/\{[^{}]*\}|%[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]|\$\{[^}]*\}/g, ' '));
  const restates = f.length > 0 && ((matched !== undefined && f === comparable(matched)) || f === literal);
  if (!restates) return leadSentences(docText, GLANCE.documentation);
  const rest = stripControls(docText ?? '').replace(/\s+/g, ' ').trim().slice(first.length).trim();
  return leadSentences(rest, GLANCE.documentation);
}

function renderGlance(record: ErrorRecord, opts: RenderOptions): string {
  const plain = opts.plain === true;
  const inl = plain ? (s: string) => stripControls(s).replace(/[\n\t]+/g, ' ') : escapeInline;
  const code = plain ? (s: string) => stripControls(s).replace(/\n/g, ' ') : codeSpan;
  const bold = (s: string) => (plain ? s : `**${s}**`);
  const out: string[] = [];

  // Title: class · HTTP status · severity · repo · raise site (one line), the action links on the next line
  const title: string[] = [bold(inl(record.errorClass || record.errorCode || record.errorType))];
  if (record.errorCode && record.errorClass) title.push(inl(record.errorCode));
  if (record.httpStatus != null) title.push(`HTTP ${Math.trunc(Number(record.httpStatus))}`);
  title.push(inl(record.severity), inl(record.repo));
  const site = glanceRaiseSite(record, opts, plain);
  if (site) title.push(`raised at ${site}`);
  out.push(opts.actions ? `${title.join(' · ')}${plain ? '\n' : BREAK}${opts.actions}` : title.join(' · '));

  const skeleton = isSkeleton(record);
  const doc = glanceDocumentation(record, opts.match?.text);
  if (doc) out.push(inl(doc));
  // a skeleton record has no prose: its message template at least says which error this is
  else if (skeleton && record.errorMessage) out.push(inl(shorten(oneLine(record.errorMessage), GLANCE.documentation)));

  // Fix, captures and the confidence of a doubtful match (possible / unlikely: a caveat the user
  // needs; a likely match, the usual case, costs no line): one line each, in one block
  const facts: string[] = [];
  const fixes = record.solutions.filter((s) => typeof s === 'string' && s.trim());
  if (fixes.length) {
    const more = fixes.length > 1 ? ` (+${fixes.length - 1} more)` : '';
    facts.push(`${bold('Fix:')} ${inl(shorten(fixes[0]!, GLANCE.solution))}${more}`);
  }
  const caps = opts.match?.captures ?? [];
  if (caps.length) {
    const shown = caps.slice(0, GLANCE.captures).map((c) => `${inl(c.name)} = ${code(shorten(c.value, GLANCE.captureValue) || ' ')}`);
    if (caps.length > GLANCE.captures) shown.push(`+${caps.length - GLANCE.captures} more`);
    facts.push(`${bold('Captured:')} ${shown.join(' · ')}`);
  }
  if (opts.confidence && opts.confidence.label !== 'likely') facts.push(confidenceLine(opts.confidence, plain));
  if (facts.length) out.push(facts.join(plain ? '\n' : BREAK));

  if (skeleton && isLiteRecord(record)) {
    // an index row of the ErrLookup dataset: its full record is downloaded when it is opened
    out.push(plain ? 'The full explanation loads when the record is opened.' : '_The full explanation loads when the record is opened._');
  } else if (skeleton) {
    const ex = raiseExcerpt(record);
    if (ex) out.push(plain ? ex.text.split('\n').map((l) => `    ${stripControls(l)}`).join('\n') : fencedBlock(ex.text, fenceLanguage(record.filePath)));
    out.push(plain ? 'No explanation written yet (a skeleton record).' : '_No explanation written yet (a skeleton record)._');
  }
  if (opts.footer) out.push(opts.footer);
  return out.join('\n\n') + '\n';
}

/**
 * The raise site as a short link: the last path segments and the line (`encoder/server.py:724`),
 * linked to the local file or the pinned GitHub URL (the full path is in the record view).
 */
function glanceRaiseSite(record: ErrorRecord, opts: RenderOptions, plain: boolean): string | undefined {
  const full = opts.raiseSite?.label ?? raiseSiteLabel(record);
  if (!full) return undefined;
  const parts = full.split(/[\\/]/);
  const label = parts.length > GLANCE.pathSegments ? `…/${parts.slice(-GLANCE.pathSegments).join('/')}` : full;
  if (plain) return stripControls(label).replace(/\n/g, ' ');
  const localHref = opts.raiseSite?.href ? safeLocalHref(opts.raiseSite.href) : undefined;
  const href = localHref ?? safeGithubUrl(record.githubUrl);
  const text = linkText(label);
  return href ? `[${text}](${href})` : text;
}
