// The one definition of Error Explainer's custom LSP messages and settings.
// Imported by the server (server/src/server) AND the client (client/src); esbuild bundles it into
// both. Plain LSP clients (Neovim, Helix, ...) can send these too; none is required for the
// standard features (hover, diagnostics, code actions, links, definition).
import { NotificationType, RequestType, type WorkDoneProgressParams } from 'vscode-languageserver-protocol';
import { DEFAULT_MIN_CONFIDENCE } from './core/confidence/threshold';
import type { DatasetFailure, DatasetServiceStatus } from './core/dataset';

// ---------------------------------------------------------------------------------------------
// Settings (section "errorExplainer"), pulled by the server per resource via workspace/configuration.

export type MinSeverity = 'critical' | 'error' | 'warning' | 'info';
/** What a problem of a record can be shown as instead of its own severity (errorExplainer.diagnostics.severityOverrides). */
export type SeverityOverride = 'error' | 'warning' | 'info' | 'hint';
/** The `source` of every diagnostic the language server reports (the Problems panel shows it). */
export const DIAGNOSTIC_SOURCE = 'Error Explainer';

export const SEVERITY_OVERRIDES: readonly SeverityOverride[] = ['error', 'warning', 'info', 'hint'];

export interface ErrorExplainerSettings {
  records: {
    /** Extra record files or folders (JSON, JSON Lines, .gz). Workspace values need trust. */
    paths: string[];
    /** Load the records bundled with the extension. */
    includeBundled: boolean;
    /** Record ids or slugs that are never reported: no problems, hovers, links or quick fixes. */
    exclude: string[];
  };
  /** Globs of files treated as logs (besides language `log` and `output:` panels). */
  logFiles: string[];
  diagnostics: {
    enabled: boolean;
    minSeverity: MinSeverity;
    maxPerFile: number;
    /** Matches below this confidence (0..1, core/confidence) are not problems; hovers still show them. */
    minConfidence: number;
    /** Record id or slug -> the severity its problems are shown with. */
    severityOverrides: Record<string, SeverityOverride>;
    /** Client: the problem's message at the end of its line (a decoration). */
    inlineMessage: boolean;
    /** Client: the page *Search the web* opens; `${query}` is replaced by the URL-encoded message. */
    searchUrl: string;
  };
  terminal: {
    enabled: boolean;
    notifications: boolean;
  };
  dataset: {
    /** Workspace values of dataset.* are ignored unless the workspace is trusted (the server enforces
     * it: in Restricted Mode these are the defaults, and url is '' = the URL the user opted in for). */
    url: string;
    repos: string[];
    refreshHours: number;
    /** Offer once per workspace to download the dataset / use the repositories of its dependencies. */
    suggest: boolean;
  };
}

export const DEFAULT_SETTINGS: ErrorExplainerSettings = {
  records: { paths: [], includeBundled: true, exclude: [] },
  logFiles: ['**/*.log', '**/*.log.[0-9]*', '**/*.out', '**/*.err'],
  diagnostics: {
    enabled: true,
    minSeverity: 'info',
    maxPerFile: 1000,
    minConfidence: DEFAULT_MIN_CONFIDENCE,
    severityOverrides: {},
    inlineMessage: false,
    searchUrl: 'https://www.google.com/search?q=${query}',
  },
  terminal: { enabled: true, notifications: true },
  dataset: { url: 'https://errors.standardbeagle.com', repos: [], refreshHours: 24, suggest: true },
};

/** errorExplainer.diagnostics.searchUrl when valid: an http(s) URL containing `${query}`; else undefined. */
export function validSearchUrl(v: unknown): string | undefined {
  if (typeof v !== 'string' || !v.includes('${query}')) return undefined;
  try {
    const u = new URL(v.replace(/\$\{query\}/g, 'q'));
    return u.protocol === 'https:' || u.protocol === 'http:' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The page *Search the web* opens: `${query}` in the (valid) template replaced by the URL-encoded query (≤ 500 characters). */
export function searchPageUrl(template: string, query: string): string {
  const t = validSearchUrl(template) ?? DEFAULT_SETTINGS.diagnostics.searchUrl;
  return t.split('${query}').join(encodeURIComponent(query.replace(/\s+/g, ' ').trim().slice(0, 500)));
}

/** Sent by the client in initializationOptions. */
export interface InitializationOptions {
  /** Absolute path of the bundled records folder (the extension's `records/`). */
  bundledRecordsPath?: string;
  /** Whether the workspace is trusted: workspace records and workspace record paths load only then. */
  workspaceTrusted?: boolean;
  /** Folder for caches (the extension's global storage). */
  storagePath?: string;
  /**
   * Records read by the client (the web build, which has no file system: bundled records,
   * `records.paths` and `.error-records/` read through `workspace.fs`). When present, the server
   * loads these instead of reading paths; RecordFilesNotification replaces them later.
   */
  recordFiles?: RecordFileDto[];
}

/** A record file the client read. */
export interface RecordFileDto {
  /** bundled < user < workspace: later origins win on duplicate ids (as with paths). */
  origin: 'bundled' | 'user' | 'workspace';
  /** The source it belongs to (a records folder, a configured path), as the status lists it. */
  root: string;
  /** The file (URI); its problems are reported on it. */
  uri: string;
  /** The file's bytes, base64 (gzip already decompressed by the client). */
  base64?: string;
  /** Why the client could not read it (then base64 is absent). */
  error?: string;
}

// ---------------------------------------------------------------------------------------------
// Shared shapes

export interface CaptureDto {
  name: string;
  value: string;
}

export interface RecordSummaryDto {
  id: string;
  slug: string;
  repo: string;
  errorCode: string | null;
  errorMessage: string;
  errorClass: string | null;
  httpStatus: number | null;
  severity: string;
  tags: string[];
}

export interface MatchDto {
  record: RecordSummaryDto;
  /** 0-based line within the text that was explained. */
  line: number;
  /** UTF-16 offsets within that line, end exclusive. */
  start: number;
  end: number;
  text: string;
  captures: CaptureDto[];
}

// ---------------------------------------------------------------------------------------------
// Requests (client -> server)

export interface SearchParams {
  query: string;
  limit?: number;
}
export interface SearchHitDto extends RecordSummaryDto {
  score: number;
  /** 'recent': an empty query's answer, a record seen in a log, output panel or terminal. */
  kind: 'code' | 'id' | 'slug' | 'pattern' | 'fuzzy' | 'recent';
  /** kind 'recent': where it was seen last ("app.log", "terminal:bash"), when known. */
  seenIn?: string;
}
/** Ranked lookup over every loaded record: exact code/id/slug, then pattern matches, then fuzzy.
 * An empty query answers the records seen in this session (logs, output panels, terminals), most
 * recent first. */
export namespace SearchRequest {
  export const method = 'errorExplainer/search';
  export const type = new RequestType<SearchParams, SearchHitDto[], void>(method);
}

/** The line of a log a record matched on: stack frames around it can name the raise site. */
export interface NearDto {
  uri: string;
  /** 0-based. */
  line: number;
}

export interface RecordParams {
  id: string;
  /** Resolve the raise site as seen from this log line (stack frames around it). */
  near?: NearDto;
  /** Captures to show in the rendered Markdown (e.g. from a terminal line). */
  captures?: CaptureDto[];
  matchedText?: string;
}
export interface RecordResult {
  record: unknown; // the full ErrorRecord (JSON)
  markdown: string;
  /** Resolved raise site: a local file URI + 0-based line when the workspace has it, else githubUrl. */
  raiseSite?: { uri: string; line: number } | { url: string };
}
/** The full record and its rendered Markdown (record view, copy explanation). */
export namespace RecordRequest {
  export const method = 'errorExplainer/record';
  export const type = new RequestType<RecordParams, RecordResult | null, void>(method);
}

export interface ExplainTextParams {
  text: string;
}
/** Matches with spans and captures for arbitrary text (selection, clipboard, terminal line). */
export namespace ExplainTextRequest {
  export const method = 'errorExplainer/explainText';
  export const type = new RequestType<ExplainTextParams, MatchDto[], void>(method);
}

export interface SourceStatus {
  origin: 'bundled' | 'dataset' | 'user' | 'workspace';
  path: string;
  records: number;
  /** The dataset: true while its rows are still being indexed in the background (they match once
   * it is false; a status notification is sent when it turns false). */
  building?: boolean;
}
export interface StatusResult {
  records: number;
  sources: SourceStatus[];
  problems: number;
  workspaceTrusted: boolean;
  /** Milliseconds spent loading records and building the index at the last (re)load. */
  timings: { loadMs: number; indexMs: number };
  /** The compiled index cache at the last (re)load (core/indexCache): 'hit' (records and index
   * restored from it), 'miss' (loaded and built; `indexCacheReason` says why, e.g. 'absent' or
   * 'checksum', and a cache file is written for the next start), 'off' (not cached: a record set
   * under the size threshold, records sent by the web client, a source that could not be listed). */
  indexCache?: 'hit' | 'miss' | 'off';
  indexCacheReason?: string;
}
/** Records loaded per source, number of record-file problems, timings. */
export namespace StatusRequest {
  export const method = 'errorExplainer/status';
  export const type = new RequestType<void, StatusResult, void>(method);
}

export interface SnippetParams {
  id: string;
  kind: 'validation' | 'tryCatch' | 'typeGuard' | 'exampleFix';
  /** The target code document and line; the server formats indentation and comment header. */
  uri: string;
  line: number;
  /** Whole lines [start, end] the user selected: a try/catch surrounds them. Without it a
   * try/catch surrounds the statement at `line`. */
  selection?: { start: number; end: number };
  languageId?: string;
  insertSpaces?: boolean;
  tabSize?: number;
}
export interface SnippetResult {
  /** Plain text: inserted at the start of `line` (ends with a newline), or replacing `replace`. */
  text: string;
  line: number;
  /** When set, the text replaces these whole lines (a try/catch around a statement). */
  replace?: { start: number; end: number };
  /** `text` in snippet syntax: tab stops (`${1:name}`) on names the document does not know. */
  snippet: string;
}
/** Formatted snippet for "Insert handling snippet" (the client inserts it, with tab stops). */
export namespace SnippetRequest {
  export const method = 'errorExplainer/snippet';
  export const type = new RequestType<SnippetParams, SnippetResult | null, void>(method);
}

/** Reload every record source now. */
export namespace ReloadRequest {
  export const method = 'errorExplainer/reload';
  export const type = new RequestType<void, StatusResult, void>(method);
}

// ---------------------------------------------------------------------------------------------
// The ErrLookup dataset (logic: server/src/core/dataset; the client's commands call these).
// Nothing is downloaded until DatasetSyncRequest is sent (the user's opt-in).

/** The dataset service's status (core/dataset/service.ts: the store's state plus `loaded`); the
 * failure without its URL (the status has the URL). */
export interface DatasetStatusDto extends Omit<DatasetServiceStatus, 'failure'> {
  failure: Omit<DatasetFailure, 'url'> | null;
}
/** What is cached, selected and loaded; the last failure. */
export namespace DatasetStatusRequest {
  export const method = 'errorExplainer/datasetStatus';
  export const type = new RequestType<void, DatasetStatusDto, void>(method);
}

export interface DatasetSyncParams {
  /** Poll the manifest even when refreshHours has not passed. */
  force?: boolean;
  /** The base URL the user was shown and agreed to. The opt-in is per URL: when the server's
   * configured URL is another one, it downloads nothing ('skipped') and the client asks again. */
  url?: string;
}
export interface DatasetSyncResult {
  status: 'updated' | 'unchanged' | 'skipped' | 'failed';
  datasetVersion: string | null;
  reason?: string;
  /** Set only the first time a failure happens: show it; repeated failures stay quiet. */
  notify?: string;
}
/** Opt in (for the URL) and sync now (manifest; the index + repos.json when datasetVersion changed), then reload. */
export namespace DatasetSyncRequest {
  export const method = 'errorExplainer/datasetSync';
  export const type = new RequestType<DatasetSyncParams, DatasetSyncResult, void>(method);
}

export interface DatasetSuggestionDto {
  dependency: string;
  ecosystem: string;
  /** Manifest the dependency was read from, relative to its workspace folder. */
  file: string;
  repo: string;
  errorCount: number;
  /** Why this repository was chosen (show it, so the user can correct the mapping). */
  reason: string;
}
export interface DatasetSuggestResult {
  suggestions: DatasetSuggestionDto[];
  /** Dependencies with no repository in the dataset. */
  unmatched: string[];
  /** "axios, express and pg have 312 explained errors — use them?", or null. */
  message: string | null;
  /** repos.json is not cached yet: only dependencies could be read (sync first). */
  needsSync: boolean;
}
/** Workspace dependencies (package.json, requirements*.txt, pyproject.toml, go.mod, Cargo.toml,
 * pom.xml, *.csproj) mapped to dataset repositories. Reads the cache only, never the network. */
export namespace DatasetSuggestRequest {
  export const method = 'errorExplainer/datasetSuggest';
  export const type = new RequestType<void, DatasetSuggestResult, void>(method);
}

// ---------------------------------------------------------------------------------------------
// Log files on disk and agents (logic: server/src/server/features/logScan.ts over core/logScan and
// core/agent). Files of any size: VS Code hands files over 50 MB to no extension, so the server
// reads them from disk with the byte engine.

export interface ScanLogParams extends WorkDoneProgressParams {
  /** The file (a path, or a file: URI in `uri`). */
  path?: string;
  uri?: string;
  /** Keep scanning what is appended (truncation and rotation rescan), with ScanLogUpdateNotification. */
  follow?: boolean;
  /** Matches below this confidence are only counted (default DEFAULT_MIN_CONFIDENCE). */
  minConfidence?: number;
  /** How often a followed file is checked, ms (default 1000, at least 100). */
  pollMs?: number;
}
export interface ScanOccurrenceDto {
  /** 1-based line number in the file. */
  line: number;
  /** UTF-16 offsets of the match in the line, end exclusive. */
  start: number;
  end: number;
  text: string;
  /** The line, cut at 240 characters. */
  lineText: string;
  captures: CaptureDto[];
  confidence: number;
}
export interface ScanGroupDto {
  record: RecordSummaryDto;
  count: number;
  firstLine: number;
  lastLine: number;
  /** Best confidence of its matches. */
  confidence: number;
  /** The first and the most recent occurrences, in line order (at most 40). */
  occurrences: ScanOccurrenceDto[];
  /** Occurrences counted but not kept. */
  omitted: number;
}
export interface ScanLogResult {
  /** Id for ScanLogStopRequest and updates; -1 when the scan could not start (see error). */
  scanId: number;
  path: string;
  uri: string;
  /** The file's size at the last look, and the bytes scanned (whole lines). */
  size: number;
  scannedBytes: number;
  lines: number;
  matches: number;
  belowThreshold: number;
  minConfidence: number;
  /** By first appearance; at most 500 records (moreGroups counts the rest). */
  groups: ScanGroupDto[];
  moreGroups: number;
  state: 'done' | 'following' | 'missing' | 'cancelled' | 'stopped' | 'failed';
  /** Times the file was truncated, rewritten or replaced (rotated) and scanned again from its start. */
  resets: number;
  lastReset: 'truncated' | 'replaced' | 'rotated' | null;
  truncatedLines: number;
  /** Why the scan could not run (unreadable file, bad parameters). */
  error?: string;
}
/** client -> server: scan a file on disk with the byte engine. Progress: $/progress on the
 * request's workDoneToken, or (without one) a server-created window/workDoneProgress; cancel with
 * $/cancelRequest or window/workDoneProgress/cancel. With follow, appended bytes keep being scanned. */
export namespace ScanLogRequest {
  export const method = 'errorExplainer/scanLog';
  export const type = new RequestType<ScanLogParams, ScanLogResult, void>(method);
}

/** server -> client: a followed scan changed (appended matches, truncation, rotation, file gone); at most 4 per second per scan. */
export namespace ScanLogUpdateNotification {
  export const method = 'errorExplainer/scanLogUpdate';
  export const type = new NotificationType<ScanLogResult>(method);
}

export interface ScanLogStopParams {
  scanId: number;
}
/** client -> server: stop following a scan (the view's Stop action, or its node removed). Answers the final state, null for unknown ids. */
export namespace ScanLogStopRequest {
  export const method = 'errorExplainer/scanLogStop';
  export const type = new RequestType<ScanLogStopParams, ScanLogResult | null, void>(method);
}

export interface LogLinesParams {
  path: string;
  /** 1-based. */
  line: number;
  before?: number;
  after?: number;
}
export interface LogLinesResult {
  /** 1-based number of lines[0]. */
  firstLine: number;
  lines: string[];
  atEnd: boolean;
  error?: string;
}
/** client -> server: lines around one line of a file too large for the editor (the read-only
 * window the Known Errors view opens for files over 50 MB). */
export namespace LogLinesRequest {
  export const method = 'errorExplainer/logLines';
  export const type = new RequestType<LogLinesParams, LogLinesResult, void>(method);
}

export interface AgentExplainParams {
  /** Pasted output, or */
  text?: string;
  /** a log file (path or file: URI; relative paths against the first workspace folder). */
  path?: string;
}
export interface AgentExplainResult {
  /** Markdown for a language model (core/agent: explain_text for text, scan_log for files). */
  markdown: string;
  isError?: boolean;
}
/** client -> server: the answer of the errorExplainer_explain language-model tool (agent mode). */
export namespace AgentExplainRequest {
  export const method = 'errorExplainer/agentExplain';
  export const type = new RequestType<AgentExplainParams, AgentExplainResult, void>(method);
}

// ---------------------------------------------------------------------------------------------
// Notifications

export interface SeenParams {
  /** Where the matches were seen, e.g. "terminal:bash". */
  source: string;
  matches: { id: string; captures?: CaptureDto[] }[];
}
/** client -> server: matches the client found in terminals, so code actions can offer snippets. */
export namespace SeenNotification {
  export const method = 'errorExplainer/seen';
  export const type = new NotificationType<SeenParams>(method);
}

export interface TrustParams {
  workspaceTrusted: boolean;
}
/** client -> server: workspace trust was granted; workspace records may now load. */
export namespace TrustNotification {
  export const method = 'errorExplainer/trust';
  export const type = new NotificationType<TrustParams>(method);
}

export interface RecordFilesParams {
  files: RecordFileDto[];
}
/** client -> server: the record files the client reads changed (web build); records reload. */
export namespace RecordFilesNotification {
  export const method = 'errorExplainer/recordFiles';
  export const type = new NotificationType<RecordFilesParams>(method);
}

export interface DatasetSuggestionParams {
  /** 'optIn': nothing is downloaded yet, offer the download; 'useRepos': offer repositories of the
   * workspace's dependencies that are cached but not selected (errorExplainer.dataset.repos). */
  kind: 'optIn' | 'useRepos';
  /** Plain text, e.g. "axios, express and pg have 312 explained errors — use them?". */
  message: string;
  /** 'useRepos': the repositories (owner/name) to add; 'optIn': []. */
  repos: string[];
  /** The base URL the message names (send it back as DatasetSyncParams.url when the user accepts). */
  url?: string;
}
/** server -> client: a one-time suggestion (per workspace, remembered across restarts), sent after
 * the first record load when the workspace is trusted and errorExplainer.dataset.suggest is on.
 * Sending it fetches nothing; the client acts only when the user accepts. */
export namespace DatasetSuggestionNotification {
  export const method = 'errorExplainer/datasetSuggestion';
  export const type = new NotificationType<DatasetSuggestionParams>(method);
}

/** server -> client: records were (re)loaded; the client refreshes its status item. */
export namespace StatusNotification {
  export const method = 'errorExplainer/statusChanged';
  export const type = new NotificationType<StatusResult>(method);
}

// ---------------------------------------------------------------------------------------------
// Optional extension of standard requests

/**
 * Extra field a client MAY add to textDocument/codeAction params: the editor's indentation
 * settings for the document (LSP has none there). Without it the server detects them from the text.
 */
export interface CodeActionFormattingOptions {
  formattingOptions?: { insertSpaces: boolean; tabSize: number };
}

// ---------------------------------------------------------------------------------------------
// Client commands the server puts into hovers and code actions (the client registers them).

export const Commands = {
  insertSnippet: 'errorExplainer.insertSnippet',
  openRecord: 'errorExplainer.openRecord',
  copyExplanation: 'errorExplainer.copyExplanation',
  goToRaiseSite: 'errorExplainer.goToRaiseSite',
  search: 'errorExplainer.search',
  explainSelection: 'errorExplainer.explainSelection',
  explainClipboard: 'errorExplainer.explainClipboard',
  explainText: 'errorExplainer.explainText',
  showErrorsInFile: 'errorExplainer.showErrorsInFile',
  reloadRecords: 'errorExplainer.reloadRecords',
  showOutput: 'errorExplainer.showOutput',
  // on a problem (code actions of log diagnostics)
  copyMessage: 'errorExplainer.copyMessage',
  searchOnline: 'errorExplainer.searchOnline',
  ignoreRecord: 'errorExplainer.ignoreRecord',
  setRecordSeverity: 'errorExplainer.setRecordSeverity',
} as const;

/** Arguments of Commands.copyMessage: the problem's message. */
export interface CopyMessageArgs {
  text: string;
}
/** Arguments of Commands.searchOnline: the text searched (the client builds the URL from diagnostics.searchUrl). */
export interface SearchOnlineArgs {
  query: string;
}
/** Arguments of Commands.ignoreRecord: the record goes into errorExplainer.records.exclude (by slug). */
export interface IgnoreRecordArgs {
  id: string;
  slug: string;
  /** What the user sees in the confirmation ("MMError: encode metadata not ready"). */
  label: string;
}
/** Arguments of Commands.setRecordSeverity: errorExplainer.diagnostics.severityOverrides[slug] = severity. */
export interface SetRecordSeverityArgs {
  id: string;
  slug: string;
  severity: SeverityOverride;
}

/**
 * `data` of a snippet code action (Insert validation / try/catch in a source file): the action's
 * plain-text edit again, in snippet syntax with tab stops. Clients that support snippet edits
 * (the VS Code client, through middleware) apply this instead of the plain edit.
 */
export interface CodeActionSnippetData {
  snippet: { uri: string; range: { start: { line: number; character: number }; end: { line: number; character: number } }; snippet: string };
}

/** Arguments of Commands.insertSnippet (built by the server, never from record text). */
export interface InsertSnippetArgs {
  id: string;
  kind?: SnippetParams['kind'];
}
/** Arguments of Commands.openRecord / copyExplanation / goToRaiseSite. */
export interface OpenRecordArgs {
  id: string;
  captures?: CaptureDto[];
  matchedText?: string;
  /** The log line the record matched on (goToRaiseSite: stack frames around it). */
  near?: NearDto;
}
