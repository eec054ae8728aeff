// Settings are pulled per resource (workspace/configuration, section "errorExplainer"), cached per
// scopeUri and cleared on didChangeConfiguration. Nothing else keeps settings in globals.
// Clients without the configuration capability (some plain LSP clients) push settings in
// didChangeConfiguration's `settings.errorExplainer`; those are used for every resource.
import type { ErrorRecord } from '../core/record';
import { DEFAULT_SETTINGS, ErrorExplainerSettings, MinSeverity, SEVERITY_OVERRIDES, SeverityOverride, validSearchUrl } from '../protocol';

export const SECTION = 'errorExplainer';

/** Fetches the raw section for a scope (undefined = window/global scope). */
export type ConfigurationFetcher = (scopeUri: string | undefined) => Promise<unknown>;

export class SettingsStore {
  private readonly cache = new Map<string, Promise<ErrorExplainerSettings>>();
  private pushed: unknown = undefined;

  /** `fetcher` is undefined when the client cannot answer workspace/configuration. */
  constructor(private readonly fetcher: ConfigurationFetcher | undefined) {}

  get(scopeUri?: string): Promise<ErrorExplainerSettings> {
    const key = scopeUri ?? '';
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
    if (!this.fetcher) return normalizeSettings(this.pushed);
    try {
      return normalizeSettings(await this.fetcher(scopeUri));
    } catch {
      return normalizeSettings(this.pushed);
    }
  }
}

const SEVERITIES: MinSeverity[] = ['critical', 'error', 'warning', 'info'];

/** Defaults filled in, wrong types replaced by defaults: settings are user input too. */
export function normalizeSettings(raw: unknown): ErrorExplainerSettings {
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
    logFiles: strings(r.logFiles) ?? [...d.logFiles],
    diagnostics: {
      enabled: bool(diagnostics.enabled, d.diagnostics.enabled),
      minSeverity: SEVERITIES.includes(diagnostics.minSeverity as MinSeverity)
        ? (diagnostics.minSeverity as MinSeverity)
        : d.diagnostics.minSeverity,
      maxPerFile:
        typeof maxPerFile === 'number' && Number.isFinite(maxPerFile) && maxPerFile >= 0
          ? Math.floor(maxPerFile)
          : d.diagnostics.maxPerFile,
      severityOverrides: overrides(diagnostics.severityOverrides),
      inlineMessage: bool(diagnostics.inlineMessage, d.diagnostics.inlineMessage),
      searchUrl: validSearchUrl(diagnostics.searchUrl) ?? d.diagnostics.searchUrl,
    },
    terminal: {
      enabled: bool(terminal.enabled, d.terminal.enabled),
      notifications: bool(terminal.notifications, d.terminal.notifications),
    },
    dataset: {
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
