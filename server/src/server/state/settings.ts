// Settings are pulled per resource (workspace/configuration, section "errorExplainer"), cached per
// scopeUri and cleared on didChangeConfiguration. Nothing else keeps settings in globals.
// Clients without the configuration capability (some plain LSP clients) push settings in
// didChangeConfiguration's `settings.errorExplainer`; those are used for every resource.
import type { ErrorRecord } from '../../core/record';
import { DEFAULT_SETTINGS, ErrorExplainerSettings, MinSeverity, SEVERITY_OVERRIDES, SeverityOverride, validSearchUrl } from '../../protocol';

export const SECTION = 'errorExplainer';

/** Fetches the raw section for a scope (undefined = window/global scope). */
export type ConfigurationFetcher = (scopeUri: string | undefined) => Promise<unknown>;

export class SettingsStore {
  private readonly cache = new Map<string, Promise<ErrorExplainerSettings>>();
  private pushed: unknown = undefined;

  /** `fetcher` is undefined when the client cannot answer workspace/configuration. `trusted`: the
   * workspace trust the settings are for (untrusted: dataset.* are ignored, whatever the client sent). */
  constructor(
    private readonly fetcher: ConfigurationFetcher | undefined,
    private readonly trusted: () => boolean = () => true,
  ) {}

  get(scopeUri?: string): Promise<ErrorExplainerSettings> {
    const key = `${this.trusted() ? 'trusted' : 'restricted'} ${scopeUri ?? ''}`;
    let p = this.cache.get(key);
    if (!p) {
      p = this.fetch(scopeUri);
      this.cache.set(key, p);
    }
    return p;
  }

  /** didChangeConfiguration: drop the cache; `settings` is the notification's payload. */
  changed(settings: unknown): void {
    this.cache.clear();
    if (settings && typeof settings === 'object' && SECTION in settings) {
      this.pushed = (settings as Record<string, unknown>)[SECTION];
    }
  }

  private async fetch(scopeUri: string | undefined): Promise<ErrorExplainerSettings> {
    const trusted = this.trusted();
    if (!this.fetcher) return normalizeSettings(this.pushed, { trusted });
    try {
      return normalizeSettings(await this.fetcher(scopeUri), { trusted });
    } catch {
      return normalizeSettings(this.pushed, { trusted });
    }
  }
}

const SEVERITIES: MinSeverity[] = ['critical', 'error', 'warning', 'info'];

/**
 * Defaults filled in, wrong types replaced by defaults: settings are user input too. In an
 * untrusted workspace what decides which files are matched and where and how often the dataset is
 * fetched is not taken from the client at all (a workspace could set it, and a client may pass
 * workspace values on): the default logFiles globs and search page (diagnostics.searchUrl); for the dataset url ''
 * (= the URL the user opted in for), the default refresh interval and suggestion setting. `repos`
 * is kept: it only chooses among rows already downloaded from a URL the user agreed to (and VS Code
 * passes only the user's own value in Restricted Mode: restrictedConfigurations), so a user who
 * selected repositories keeps their explanations in Restricted Mode.
 */
export function normalizeSettings(raw: unknown, opts: { trusted?: boolean } = {}): ErrorExplainerSettings {
  const d = DEFAULT_SETTINGS;
  const r = obj(raw);
  const records = obj(r.records);
  const diagnostics = obj(r.diagnostics);
  const terminal = obj(r.terminal);
  const dataset = obj(r.dataset);
  const maxPerFile = diagnostics.maxPerFile;
  return {
    records: {
      paths: strings(records.paths) ?? [...d.records.paths],
      includeBundled: bool(records.includeBundled, d.records.includeBundled),
      exclude: (strings(records.exclude) ?? []).map((x) => x.trim()).filter(Boolean),
    },
    logFiles: (opts.trusted !== false && strings(r.logFiles)) || [...d.logFiles],
    diagnostics: {
      enabled: bool(diagnostics.enabled, d.diagnostics.enabled),
      minSeverity: SEVERITIES.includes(diagnostics.minSeverity as MinSeverity)
        ? (diagnostics.minSeverity as MinSeverity)
        : d.diagnostics.minSeverity,
      maxPerFile:
        typeof maxPerFile === 'number' && Number.isFinite(maxPerFile) && maxPerFile >= 0
          ? Math.floor(maxPerFile)
          : d.diagnostics.maxPerFile,
      minConfidence:
        typeof diagnostics.minConfidence === 'number' && diagnostics.minConfidence >= 0 && diagnostics.minConfidence <= 1 ? diagnostics.minConfidence : d.diagnostics.minConfidence,
      severityOverrides: overrides(diagnostics.severityOverrides),
      inlineMessage: bool(diagnostics.inlineMessage, d.diagnostics.inlineMessage),
      searchUrl: (opts.trusted !== false && validSearchUrl(diagnostics.searchUrl)) || d.diagnostics.searchUrl,
    },
    terminal: {
      enabled: bool(terminal.enabled, d.terminal.enabled),
      notifications: bool(terminal.notifications, d.terminal.notifications),
    },
    dataset:
      opts.trusted === false
        ? { url: '', repos: strings(dataset.repos) ?? [...d.dataset.repos], refreshHours: d.dataset.refreshHours, suggest: d.dataset.suggest }
        : {
            url: typeof dataset.url === 'string' ? dataset.url : d.dataset.url,
            repos: strings(dataset.repos) ?? [...d.dataset.repos],
            refreshHours: typeof dataset.refreshHours === 'number' ? dataset.refreshHours : d.dataset.refreshHours,
            suggest: bool(dataset.suggest, d.dataset.suggest),
          },
  };
}

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
function bool(v: unknown, dflt: boolean): boolean {
  return typeof v === 'boolean' ? v : dflt;
}
function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

function overrides(v: unknown): Record<string, SeverityOverride> {
  const out: Record<string, SeverityOverride> = Object.create(null);
  for (const [k, x] of Object.entries(obj(v))) {
    if (k.trim() && SEVERITY_OVERRIDES.includes(x as SeverityOverride)) out[k.trim()] = x as SeverityOverride;
  }
  return out;
}

/** The record is in errorExplainer.records.exclude (by id or slug). */
export function isExcluded(s: ErrorExplainerSettings, r: Pick<ErrorRecord, 'id' | 'slug'>): boolean {
  const list = s.records.exclude;
  return list.length > 0 && (list.includes(r.id) || list.includes(r.slug));
}

/** The severity override of a record (by id, then slug), if any. */
export function severityOverride(s: ErrorExplainerSettings, r: Pick<ErrorRecord, 'id' | 'slug'>): SeverityOverride | undefined {
  const o = s.diagnostics.severityOverrides;
  return Object.prototype.hasOwnProperty.call(o, r.id) ? o[r.id] : Object.prototype.hasOwnProperty.call(o, r.slug) ? o[r.slug] : undefined;
}
