// Which repositories of the dataset are used (setting `errorExplainer.dataset.repos`):
//   []                  none (the default: nothing is loaded until the user chooses)
//   ["*"]               every repository in the index
//   ["axios/axios", "psf/*"]  the listed repositories; `owner/*` takes all of an owner's
// Names compare case-insensitively (GitHub's rule).

export interface RepoSelection {
  all: boolean;
  /** Normalised entries (lower case). */
  entries: string[];
  has(repo: string): boolean;
  /** Entries that match no repository in `known` (typos, removed repositories). */
  unknown(known: Iterable<string>): string[];
}

export function parseSelection(setting: readonly string[] | string | undefined): RepoSelection {
  const list = (typeof setting === 'string' ? setting.split(',') : (setting ?? [])).map((s) => s.trim().toLowerCase()).filter(Boolean);
  const all = list.includes('*') || list.includes('all');
  const exact = new Set(list.filter((e) => !e.endsWith('/*')));
  const owners = list.filter((e) => e.endsWith('/*') && e !== '*').map((e) => e.slice(0, -1));
  const has = (repo: string): boolean => {
    if (all) return true;
    const r = repo.toLowerCase();
    return exact.has(r) || owners.some((o) => r.startsWith(o));
  };
  return {
    all,
    entries: list,
    has,
    unknown(known: Iterable<string>): string[] {
      if (all) return [];
      const ks = [...known].map((k) => k.toLowerCase());
      return list.filter((e) => (e.endsWith('/*') ? !ks.some((k) => k.startsWith(e.slice(0, -1))) : !ks.includes(e)));
    },
  };
}
