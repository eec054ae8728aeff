// Record -> Markdown for hovers, the record view and the CLI.
//
// Record text is DATA, never markup: everything taken from a record (or from a log line) goes
// through escapeMarkdown / codeSpan / fencedBlock, so it can never become a link, a `command:` URI,
// raw HTML, an image or an entity. The only live link is the raise site: a record's githubUrl when
// it is an https://github.com/ URL, or a local href given by the caller. `opts.footer` is trusted
// Markdown built by the caller (the extension's own command links).
import type { ErrorRecord } from './record';
import { fenceLanguage } from './languages';

export interface RenderOptions {
  match?: { text: string; captures: { name: string; value: string }[] };
  /** Resolved local raise site (href = file URI); when absent, the record's githubUrl is used. */
  raiseSite?: { label: string; href?: string };
  /** Hover: shorter. Record view / CLI: full. */
  compact?: boolean;
  /** Trusted Markdown appended at the end (command links built by the caller). */
  footer?: string;
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
  const plain = opts.plain === true;
  const esc = plain ? (s: string) => stripControls(s) : escapeMarkdown;
  const inl = plain ? (s: string) => stripControls(s).replace(/[\n\t]+/g, ' ') : escapeInline;
  const code = plain ? (s: string) => stripControls(s).replace(/\n/g, ' ') : codeSpan;
  const compact = opts.compact === true;
  const lang = fenceLanguage(record.filePath);
  const out: string[] = [];
  const section = (title: string, body: string | undefined) => {
    if (!body) return;
    out.push(compact ? `**${title}**\n\n${body}` : `#### ${title}\n\n${body}`);
  };

  // Title: errorClass · HTTP status · severity · repo
  const titleParts: string[] = [];
  titleParts.push(inl(record.errorClass || record.errorCode || record.errorType));
  if (record.errorCode && record.errorClass) titleParts.push(inl(record.errorCode));
  if (record.httpStatus != null) titleParts.push(`HTTP ${Math.trunc(Number(record.httpStatus))}`);
  titleParts.push(inl(record.severity));
  titleParts.push(inl(record.repo));
  out.push(`${compact ? '####' : '###'} ${titleParts.join(' · ')}`);
  out.push(plain ? `> ${inl(record.errorMessage)}` : `> ${escapeInline(record.errorMessage)}`);

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
  if (!compact) section('Common situations', record.commonSituations ? esc(record.commonSituations) : undefined);
  section('Solutions', list(record.solutions, esc, true));
  if (!compact) section('Prevention', list(record.preventionTips, esc, false));

  const snippets: [string, string | null][] = compact
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
  if (record.sourceCode && (skeleton || !compact)) {
    const start = record.sourceCodeStart;
    const end = record.sourceCodeEnd;
    const where = start != null ? ` (lines ${Math.trunc(Number(start))}–${Math.trunc(Number(end ?? start))})` : '';
    section(`Source${where}`, fencedBlock(record.sourceCode, lang));
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
  const text = codeSpan(label);
  const localHref = opts.raiseSite?.href ? safeLocalHref(opts.raiseSite.href) : undefined;
  const href = localHref ?? github;
  const at = sha ? ` at ${codeSpan(sha)}` : '';
  const linked = href ? `[${text}](${href})` : text;
  const alsoGithub = localHref && github ? ` ([GitHub](${github}))` : '';
  return `${linked}${at}${alsoGithub}`;
}
