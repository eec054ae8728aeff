// Dependencies of a workspace (package.json, requirements*.txt, pyproject.toml, go.mod,
// Cargo.toml, pom.xml, *.csproj) mapped to repositories of the dataset's repos.json by name and
// language heuristics. Every mapping carries its reason, so the user can see and correct it.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RepoEntry } from './types';

export type Ecosystem = 'npm' | 'pypi' | 'go' | 'cargo' | 'maven' | 'nuget';

export interface Dependency {
  name: string;
  ecosystem: Ecosystem;
  /** Manifest it was read from, relative to the workspace root (forward slashes). */
  file: string;
}

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', '.venv', 'venv', 'env', '__pycache__', 'target', 'dist', 'build', 'out', 'bin', 'obj', 'vendor', '.tox', '.idea', '.vscode', '.gradle']);

// -- manifest parsers (pure: text in, names out) ------------------------------------------------

export function parsePackageJson(text: string): string[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return [];
  }
  if (typeof v !== 'object' || v === null) return [];
  const out: string[] = [];
  for (const k of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
    const deps = (v as Record<string, unknown>)[k];
    if (typeof deps === 'object' && deps !== null) out.push(...Object.keys(deps));
  }
  return out;
}

/** PEP 508 requirement -> distribution name (or undefined for options, URLs, comments). */
function pep508Name(spec: string): string | undefined {
  const s = spec.replace(/\s+#.*$/, '').trim();
  if (!s || s.startsWith('#') || s.startsWith('-')) return undefined;
  const m = /^([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(s);
  return m ? m[1] : undefined;
}

export function parseRequirements(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(raw.trim())) continue; // URLs (git+https://…, file:…)
    const name = pep508Name(raw);
    if (name) out.push(name);
  }
  return out;
}

/** Minimal TOML reading: section headers, `key = value` lines, string arrays over several lines. */
function tomlSections(text: string): { section: string; key: string; value: string }[] {
  const out: { section: string; key: string; value: string }[] = [];
  let section = '';
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/^\s+/, '');
    if (!line || line.startsWith('#')) continue;
    const h = /^\[\[?\s*([^\]]+?)\s*\]\]?/.exec(line);
    if (h) {
      section = h[1]!.replace(/\s+/g, '').replace(/"/g, '');
      continue;
    }
    const kv = /^("?[A-Za-z0-9_.-]+"?)\s*=\s*(.*)$/.exec(line);
    if (!kv) continue;
    let value = kv[2]!;
    if (value.startsWith('[') && !balanced(value)) {
      while (i + 1 < lines.length && !balanced(value)) value += '\n' + lines[++i]!;
    } else if (value.startsWith('{') && !value.includes('}')) {
      while (i + 1 < lines.length && !value.includes('}')) value += '\n' + lines[++i]!;
    }
    out.push({ section, key: kv[1]!.replace(/"/g, ''), value });
  }
  return out;
}
function balanced(v: string): boolean {
  const noStr = v.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '""').replace(/#.*$/gm, '');
  return (noStr.match(/\[/g) ?? []).length <= (noStr.match(/\]/g) ?? []).length;
}
function tomlStrings(v: string): string[] {
  return [...v.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2] ?? '');
}

export function parsePyproject(text: string): string[] {
  const out: string[] = [];
  for (const { section, key, value } of tomlSections(text)) {
    if ((section === 'project' && key === 'dependencies') || section === 'project.optional-dependencies' || (section === 'dependency-groups')) {
      for (const s of tomlStrings(value)) {
        const n = pep508Name(s);
        if (n) out.push(n);
      }
    } else if (/^tool\.poetry\.(dev-)?dependencies$|^tool\.poetry\.group\.[^.]+\.dependencies$/.test(section) && key !== 'python') {
      out.push(key);
    }
  }
  return out;
}

export function parseCargoToml(text: string): string[] {
  const out: string[] = [];
  const tableDep = /^(?:target\.[^.]+(?:\.[^.]+)*\.)?(?:workspace\.)?(dependencies|dev-dependencies|build-dependencies)\.(.+)$/;
  const seenTables = new Set<string>();
  for (const { section, key, value } of tomlSections(text)) {
    const t = tableDep.exec(section);
    if (t) {
      if (!seenTables.has(section)) out.push(t[2]!);
      seenTables.add(section);
      continue;
    }
    if (/(^|\.)(dependencies|dev-dependencies|build-dependencies)$/.test(section)) {
      const pkg = /package\s*=\s*"([^"]+)"/.exec(value);
      out.push(pkg ? pkg[1]! : key);
    }
  }
  return out;
}

export function parseGoMod(text: string): string[] {
  const out: string[] = [];
  let inBlock = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (!line) continue;
    if (inBlock) {
      if (line === ')') inBlock = false;
      else out.push(line.split(/\s+/)[0]!);
      continue;
    }
    if (/^require\s*\($/.test(line)) inBlock = true;
    else {
      const m = /^require\s+(\S+)\s+\S+/.exec(line);
      if (m) out.push(m[1]!);
    }
  }
  return out;
}

export function parsePomXml(text: string): string[] {
  const out: string[] = [];
  const noComments = text.replace(/<!--[\s\S]*?-->/g, '');
  for (const m of noComments.matchAll(/<dependency>([\s\S]*?)<\/dependency>/g)) {
    const g = /<groupId>\s*([^<\s]+)\s*<\/groupId>/.exec(m[1]!);
    const a = /<artifactId>\s*([^<\s]+)\s*<\/artifactId>/.exec(m[1]!);
    if (a) out.push(g ? `${g[1]}:${a[1]}` : a[1]!);
  }
  return out;
}

export function parseCsproj(text: string): string[] {
  return [...text.matchAll(/<PackageReference\s[^>]*?(?:Include|Update)\s*=\s*"([^"]+)"/g)].map((m) => m[1]!);
}

const PARSERS: { test: (base: string) => boolean; ecosystem: Ecosystem; parse: (text: string) => string[] }[] = [
  { test: (b) => b === 'package.json', ecosystem: 'npm', parse: parsePackageJson },
  { test: (b) => /^requirements.*\.txt$/i.test(b), ecosystem: 'pypi', parse: parseRequirements },
  { test: (b) => b === 'pyproject.toml', ecosystem: 'pypi', parse: parsePyproject },
  { test: (b) => b === 'go.mod', ecosystem: 'go', parse: parseGoMod },
  { test: (b) => b === 'Cargo.toml', ecosystem: 'cargo', parse: parseCargoToml },
  { test: (b) => b === 'pom.xml', ecosystem: 'maven', parse: parsePomXml },
  { test: (b) => b.toLowerCase().endsWith('.csproj'), ecosystem: 'nuget', parse: parseCsproj },
];

/** Dependencies declared in manifests under `root` (folders up to `maxDepth` deep; dependency folders skipped). */
export function scanWorkspaceDependencies(root: string, opts: { maxDepth?: number; maxFiles?: number } = {}): Dependency[] {
  const maxDepth = opts.maxDepth ?? 4;
  const maxFiles = opts.maxFiles ?? 200;
  const out: Dependency[] = [];
  const seen = new Set<string>();
  let files = 0;
  const walk = (dir: string, rel: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (files >= maxFiles) return;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isFile()) {
        const p = PARSERS.find((x) => x.test(e.name));
        if (!p) continue;
        let text: string;
        try {
          text = fs.readFileSync(path.join(dir, e.name), 'utf8');
        } catch {
          continue;
        }
        files++;
        for (const name of p.parse(text)) {
          const key = `${p.ecosystem}:${name.toLowerCase()}`;
          if (seen.has(key)) continue;
          seen.add(key);
          out.push({ name, ecosystem: p.ecosystem, file: r });
        }
      }
    }
    if (depth >= maxDepth) return;
    for (const e of entries) if (e.isDirectory() && !SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) walk(path.join(dir, e.name), rel ? `${rel}/${e.name}` : e.name, depth + 1);
  };
  walk(root, '', 0);
  return out;
}

// -- mapping ----------------------------------------------------------------------------------

const LANGUAGES: Record<Ecosystem, string[]> = {
  npm: ['javascript', 'typescript', 'coffeescript'],
  pypi: ['python', 'jupyter notebook', 'cython'],
  go: ['go'],
  cargo: ['rust'],
  maven: ['java', 'kotlin', 'scala', 'groovy'],
  nuget: ['c#', 'f#', 'visual basic .net'],
};

/** Well-known packages whose repository name differs from the package name (used only when present in repos.json). */
const ALIASES: Record<string, string> = {
  'npm:pg': 'brianc/node-postgres',
  'npm:react-dom': 'facebook/react',
  'npm:vue': 'vuejs/core',
  'npm:@angular/core': 'angular/angular',
  'npm:@nestjs/core': 'nestjs/nest',
  'npm:mongoose': 'Automattic/mongoose',
  'npm:ws': 'websockets/ws',
  'pypi:pyyaml': 'yaml/pyyaml',
  'pypi:scikit-learn': 'scikit-learn/scikit-learn',
  'pypi:psycopg2': 'psycopg/psycopg2',
  'pypi:psycopg2-binary': 'psycopg/psycopg2',
  'pypi:pillow': 'python-pillow/Pillow',
  'pypi:torch': 'pytorch/pytorch',
  'cargo:tokio': 'tokio-rs/tokio',
};

export interface RepoSuggestion {
  dependency: string;
  ecosystem: Ecosystem;
  file: string;
  repo: string;
  errorCount: number;
  /** Why this repository was chosen (shown to the user, who can correct it). */
  reason: string;
}

export interface SuggestionResult {
  suggestions: RepoSuggestion[];
  unmatched: Dependency[];
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** Candidate repository names for a dependency, with how they were derived. */
function nameVariants(dep: Dependency): { name: string; how: string }[] {
  let base = dep.name;
  if (dep.ecosystem === 'maven') base = base.includes(':') ? base.split(':')[1]! : base;
  if (dep.ecosystem === 'go') base = base.split('/').filter((s) => !/^v\d+$/.test(s)).pop() ?? base;
  if (dep.ecosystem === 'npm' && base.startsWith('@')) base = base.split('/')[1] ?? base;
  const b = normalize(base.replace(/\.v\d+$/, ''));
  const out = [{ name: b, how: 'same name' }];
  const add = (n: string): void => {
    if (n !== b) out.push({ name: n, how: `name variant ${n}` });
  };
  const stripped = b.replace(/^(node|py|python|go|rust)-/, '').replace(/(-js|\.js|js|-py|-python|-go|-rs|-rust)$/, '');
  if (stripped && stripped !== b) add(stripped);
  switch (dep.ecosystem) {
    case 'npm':
      for (const n of [`node-${b}`, `${b}-js`, `${b}js`, `${b}-node`]) add(n);
      break;
    case 'pypi':
      for (const n of [`py${b}`, `python-${b}`, `${b}-python`, `${b}-py`]) add(n);
      break;
    case 'go':
      for (const n of [`go-${b}`, `${b}-go`]) add(n);
      break;
    case 'cargo':
      for (const n of [`${b}-rs`, `${b}-rust`, `rust-${b}`]) add(n);
      break;
    default:
  }
  return out;
}

function languageFit(repo: RepoEntry, eco: Ecosystem): 'fit' | 'unknown' | 'mismatch' {
  if (!repo.language) return 'unknown';
  return LANGUAGES[eco].includes(repo.language.toLowerCase()) ? 'fit' : 'mismatch';
}

/** Map each dependency to at most one repository of `repos` (highest score; ties: more stars). */
export function suggestRepositories(deps: Dependency[], repos: RepoEntry[]): SuggestionResult {
  const byFull = new Map<string, RepoEntry>();
  const byName = new Map<string, RepoEntry[]>();
  for (const r of repos) {
    byFull.set(r.repo.toLowerCase(), r);
    const n = normalize(r.repo.split('/')[1]!);
    const list = byName.get(n);
    if (list) list.push(r);
    else byName.set(n, [r]);
  }
  const suggestions: RepoSuggestion[] = [];
  const unmatched: Dependency[] = [];
  for (const dep of deps) {
    if (dep.ecosystem === 'npm' && dep.name.startsWith('@types/')) continue;
    let best: { repo: RepoEntry; score: number; reason: string } | undefined;
    const consider = (repo: RepoEntry, score: number, reason: string): void => {
      if (!best || score > best.score || (score === best.score && (repo.stars ?? 0) > (best.repo.stars ?? 0))) best = { repo, score, reason };
    };
    const gh = dep.ecosystem === 'go' ? /^github\.com\/([^/]+)\/([^/]+)/.exec(dep.name) : null;
    const exact = gh ? byFull.get(`${gh[1]}/${gh[2]}`.toLowerCase()) : undefined;
    if (exact) consider(exact, 100, `module path ${dep.name}`);
    const alias = ALIASES[`${dep.ecosystem}:${dep.name.toLowerCase()}`];
    const aliased = alias ? byFull.get(alias.toLowerCase()) : undefined;
    if (aliased) consider(aliased, 95, 'known package → repository');
    const scope = dep.ecosystem === 'npm' && dep.name.startsWith('@') ? dep.name.slice(1).split('/')[0]!.toLowerCase() : undefined;
    const group = dep.ecosystem === 'maven' && dep.name.includes(':') ? dep.name.split(':')[0]!.toLowerCase() : undefined;
    for (const [i, v] of nameVariants(dep).entries()) {
      for (const repo of byName.get(v.name) ?? []) {
        const fit = languageFit(repo, dep.ecosystem);
        if (fit === 'mismatch') continue;
        const owner = repo.repo.split('/')[0]!.toLowerCase();
        const ownerBonus = (scope && owner === scope) || (group && group.split('.').includes(owner)) ? 10 : 0;
        const score = (i === 0 ? 80 : 60) + (fit === 'fit' ? 0 : -30) + ownerBonus;
        consider(repo, score, `${v.how}${repo.language ? `, ${repo.language}` : ''}`);
      }
    }
    if (scope && !best) {
      // @scope/pkg of a monorepo: the scope's own repository (e.g. @babel/core -> babel/babel)
      const mono = repos.find((r) => r.repo.toLowerCase() === `${scope}/${scope}` && languageFit(r, 'npm') !== 'mismatch');
      if (mono) consider(mono, 50, `scope @${scope}`);
    }
    if (best) suggestions.push({ dependency: dep.name, ecosystem: dep.ecosystem, file: dep.file, repo: best.repo.repo, errorCount: best.repo.errorCount, reason: best.reason });
    else unmatched.push(dep);
  }
  return { suggestions, unmatched };
}

/** "axios, express and pg have 312 explained errors — use them?" (one entry per repository). */
export function suggestionMessage(suggestions: RepoSuggestion[]): string | undefined {
  const perRepo = new Map<string, RepoSuggestion>();
  for (const s of suggestions) if (!perRepo.has(s.repo)) perRepo.set(s.repo, s);
  const list = [...perRepo.values()].filter((s) => s.errorCount > 0);
  if (list.length === 0) return undefined;
  const total = list.reduce((n, s) => n + s.errorCount, 0);
  const names = list.map((s) => s.dependency);
  const shown = names.length > 4 ? [...names.slice(0, 3), `${names.length - 3} more`] : names;
  const joined = shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
  const verb = list.length === 1 ? 'has' : 'have';
  return `${joined} ${verb} ${total} explained error${total === 1 ? '' : 's'} — use ${list.length === 1 ? 'it' : 'them'}?`;
}
