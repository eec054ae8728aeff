// The one definition of Error Explainer's custom LSP messages and settings.
// Imported by the server (server/src/server) AND the client (client/src); esbuild bundles it into
// both. Plain LSP clients (Neovim, Helix, ...) can send these too; none is required for the
// standard features (hover, diagnostics, code actions, links, definition).
import { NotificationType, RequestType } from 'vscode-languageserver-protocol';

// ---------------------------------------------------------------------------------------------
// Settings (section "errorExplainer"), pulled by the server per resource via workspace/configuration.

export type MinSeverity = 'critical' | 'error' | 'warning' | 'info';

export interface ErrorExplainerSettings {
  records: {
    /** Extra record files or folders (JSON, JSON Lines, .gz). Workspace values need trust. */
    paths: string[];
    /** Load the records bundled with the extension. */
    includeBundled: boolean;
  };
  /** Globs of files treated as logs (besides language `log` and `output:` panels). */
  logFiles: string[];
  diagnostics: {
    enabled: boolean;
    minSeverity: MinSeverity;
    maxPerFile: number;
  };
  terminal: {
    enabled: boolean;
    notifications: boolean;
  };
  dataset: {
    url: string;
    repos: string[];
    refreshHours: number;
    /** Offer once per workspace to download the dataset / use the repositories of its dependencies. */
    suggest: boolean;
  };
}

export const DEFAULT_SETTINGS: ErrorExplainerSettings = {
  records: { paths: [], includeBundled: true },
  logFiles: ['**/*.log', '**/*.log.[0-9]*', '**/*.out', '**/*.err'],
  diagnostics: { enabled: true, minSeverity: 'info', maxPerFile: 1000 },
  terminal: { enabled: true, notifications: true },
  dataset: { url: 'https://errors.standardbeagle.com', repos: [], refreshHours: 24, suggest: true },
};

/** Sent by the client in initializationOptions. */
export interface InitializationOptions {
  /** Absolute path of the bundled records folder (the extension's `records/`). */
  bundledRecordsPath?: string;
  /** Whether the workspace is trusted: workspace records and workspace record paths load only then. */
  workspaceTrusted?: boolean;
  /** Folder for caches (the extension's global storage). */
  storagePath?: string;
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

export interface RecordParams {
  id: string;
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
  languageId?: string;
  insertSpaces?: boolean;
  tabSize?: number;
}
export interface SnippetResult {
  /** Text to insert at the start of `line` (ends with a newline). */
  text: string;
  line: number;
}
/** Formatted snippet text for "Insert handling snippet" (the client inserts it). */
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

export interface DatasetStatusDto {
  optedIn: boolean;
  url: string;
  /** Live cached version, null when nothing is cached. */
  datasetVersion: string | null;
  checkedAt: string | null;
  nextCheckAt: string | null;
  /** Index rows and repositories in the cache. */
  rows: number;
  repos: number;
  /** Repositories whose full records are cached. */
  cachedRepos: string[];
  /** Dataset records loaded into the catalog (the selected repositories). */
  loaded: number;
  failure: { kind: string; message: string; at: number } | null;
}
/** What is cached, selected and loaded; the last failure. */
export namespace DatasetStatusRequest {
  export const method = 'errorExplainer/datasetStatus';
  export const type = new RequestType<void, DatasetStatusDto, void>(method);
}

export interface DatasetSyncParams {
  /** Poll the manifest even when refreshHours has not passed. */
  force?: boolean;
}
export interface DatasetSyncResult {
  status: 'updated' | 'unchanged' | 'skipped' | 'failed';
  datasetVersion: string | null;
  reason?: string;
  /** Set only the first time a failure happens: show it; repeated failures stay quiet. */
  notify?: string;
}
/** Opt in and sync now (manifest; index + repos.json when datasetVersion changed), then reload. */
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

export interface DatasetSuggestionParams {
  /** 'optIn': nothing is downloaded yet, offer the download; 'useRepos': offer repositories of the
   * workspace's dependencies that are cached but not selected (errorExplainer.dataset.repos). */
  kind: 'optIn' | 'useRepos';
  /** Plain text, e.g. "axios, express and pg have 312 explained errors — use them?". */
  message: string;
  /** 'useRepos': the repositories (owner/name) to add; 'optIn': []. */
  repos: string[];
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
} as const;

/** Arguments of Commands.insertSnippet (built by the server, never from record text). */
export interface InsertSnippetArgs {
  id: string;
  kind?: SnippetParams['kind'];
}
/** Arguments of Commands.openRecord / copyExplanation. */
export interface OpenRecordArgs {
  id: string;
  captures?: CaptureDto[];
  matchedText?: string;
}
