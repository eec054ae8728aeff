// The one-time dataset suggestion's buttons and what each answer does, without `vscode` (unit
// tested in test/unit/dataset-prompt.test.ts). client/src/dataset.ts shows the message and runs
// the action with the dataset commands' own functions.
import type { DatasetSuggestionParams } from '../../server/src/protocol';

export type SuggestionAction =
  /** Opt in: download the index (the user already said yes: no second confirmation). */
  | 'download'
  /** Add the suggested repositories to errorExplainer.dataset.repos as they are. */
  | 'useRepos'
  /** Show the repository picker (the mapping, so the user can correct it). */
  | 'choose'
  /** "Not now" or the message closed: nothing (the server offers once per workspace). */
  | 'none';

export const NOT_NOW = 'Not now';
export const DOWNLOAD = 'Download';
export const CHOOSE = 'Choose…';

/** "Use it" for one repository, "Use them" for several. */
export function useLabel(repos: readonly string[]): string {
  return repos.length === 1 ? 'Use it' : 'Use them';
}

/** Buttons of the message, in order. */
export function suggestionButtons(p: Pick<DatasetSuggestionParams, 'kind' | 'repos'>): string[] {
  if (p.kind === 'optIn') return [DOWNLOAD, NOT_NOW];
  return p.repos.length ? [useLabel(p.repos), CHOOSE, NOT_NOW] : [CHOOSE, NOT_NOW];
}

/** What the picked button means (undefined: the message was closed). */
export function suggestionAction(p: Pick<DatasetSuggestionParams, 'kind' | 'repos'>, picked: string | undefined): SuggestionAction {
  if (picked === undefined || picked === NOT_NOW || !suggestionButtons(p).includes(picked)) return 'none';
  if (p.kind === 'optIn') return picked === DOWNLOAD ? 'download' : 'none';
  if (picked === CHOOSE) return 'choose';
  return p.repos.length ? 'useRepos' : 'none';
}

/**
 * The new value of errorExplainer.dataset.repos: `current` plus `add`, each repository once
 * (GitHub names compare case-insensitively), sorted. Unchanged when `current` already selects
 * every repository ("*" / "all") or an added one through `owner/*`.
 */
export function mergeRepos(current: readonly string[], add: readonly string[]): string[] {
  const cur = current.map((r) => r.trim()).filter(Boolean);
  const lower = cur.map((r) => r.toLowerCase());
  if (lower.includes('*') || lower.includes('all')) return [...cur];
  const owners = lower.filter((r) => r.endsWith('/*')).map((r) => r.slice(0, -1));
  const out = [...cur];
  const have = new Set(lower);
  for (const raw of add) {
    const r = raw.trim();
    const l = r.toLowerCase();
    if (!r || have.has(l) || owners.some((o) => l.startsWith(o))) continue;
    have.add(l);
    out.push(r);
  }
  return out.sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0));
}
