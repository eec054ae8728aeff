// The published ErrLookup dataset (standardbeagle/err-lookup, packages/pipeline/src/exporter):
//   <base>/data/manifest.json        Manifest
//   <base>/data/index-<n>.json.gz    the index split into parts of at most 20 MiB (exporter/index-parts.ts,
//                                    since 2026-09-17): {schemaVersion, datasetVersion, part, parts, errors}
//   <base>/data/index.json.gz        the unsplit index, gzip (encoding: "gzip"); older datasets: /data/index.json
//   <base>/data/repos.json           RepoEntry[]
//   <base>/data/repos/<owner>/<name>.json   ErrorRecord[] of one repository
// Parsing here is defensive: every value comes from the network.

export interface ManifestFile {
  /** Absolute path below the base URL, e.g. `/data/index.json.gz`. */
  path: string;
  /** Size of the file as served (the gzip bytes when encoding is gzip). */
  bytes: number;
  /** sha256 (hex) of the file as served. */
  sha256: string;
  encoding?: string;
  /** Size and sha256 of the decoded content (exporter adds them for the gzip index). */
  rawBytes?: number;
  rawSha256?: string;
}

export interface Manifest {
  schemaVersion: number;
  datasetVersion: string;
  counts: { repos: number; errors: number };
  /** `index` is absent in the split layout (and in a manifest that lists no index at all). */
  files: { index?: ManifestFile; repos: ManifestFile } & Record<string, ManifestFile | undefined>;
  /** The index parts (entries of `files` whose path ends in index-<n>.json[.gz]), by n. */
  parts: { n: number; file: ManifestFile }[];
}

/** Where the index comes from: its parts, the single file, or (no index listed) the repositories' files. */
export type IndexSource = { kind: 'parts'; parts: { n: number; file: ManifestFile }[] } | { kind: 'single'; file: ManifestFile } | { kind: 'repos' };

export function indexSource(m: Manifest): IndexSource {
  if (m.parts.length) return { kind: 'parts', parts: m.parts };
  if (m.files.index) return { kind: 'single', file: m.files.index };
  return { kind: 'repos' };
}

const PART_RE = /\/index-(\d{1,6})\.json(?:\.gz)?$/;

/** One compact row of the index (`cls` is the error class; `class` is accepted too). */
export interface IndexRow {
  id: string;
  repo: string;
  slug: string;
  code: string | null;
  msg: string;
  pattern: string;
  type: string;
  cls: string | null;
  tags: string[];
  sev: string;
}

export interface RepoEntry {
  repo: string;
  description: string | null;
  language: string | null;
  stars: number | null;
  sourceFiles: number | null;
  defaultBranch: string | null;
  analyzedSha: string | null;
  analyzedAt: string | null;
  errorCount: number;
}

const SHA256_RE = /^[0-9a-f]{64}$/;
/** owner/name as GitHub allows it; a segment of dots only (`..`) is refused (it would be a path). */
export const REPO_RE = /^(?!\.+\/)[A-Za-z0-9_.-]+\/(?!\.+$)[A-Za-z0-9_.-]+$/;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function strOrNull(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
function numOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/**
 * A path below the base URL that stays there however it is decoded: it starts with `/`, is
 * checked after percent-decoding (so `%2e%2e` is `..`), and then has no `.`/`..`/empty segment, no
 * backslash, no `%` left (double encoding), no `?`, `#` or control character.
 */
export function safeDatasetPath(p: string): boolean {
  if (!p.startsWith('/') || p.startsWith('//')) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(p);
  } catch {
    return false;
  }
  if (!/^[\x21-\x7e]+$/.test(decoded) || /[\\%?#]/.test(decoded)) return false;
  return decoded
    .slice(1)
    .split('/')
    .every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

function parseManifestFile(v: unknown, name: string): ManifestFile {
  if (!isObj(v)) throw new Error(`manifest: files.${name} is missing`);
  const { path, bytes, sha256 } = v;
  if (typeof path !== 'string' || !safeDatasetPath(path)) {
    throw new Error(`manifest: files.${name}.path must be a path below the base URL (got ${JSON.stringify(String(path).slice(0, 80))})`);
  }
  if (typeof bytes !== 'number' || !Number.isInteger(bytes) || bytes < 0) {
    throw new Error(`manifest: files.${name}.bytes must be a byte count`);
  }
  if (typeof sha256 !== 'string' || !SHA256_RE.test(sha256.toLowerCase())) {
    throw new Error(`manifest: files.${name}.sha256 must be 64 hex digits`);
  }
  const f: ManifestFile = { path, bytes, sha256: sha256.toLowerCase() };
  if (typeof v.encoding === 'string') f.encoding = v.encoding;
  if (typeof v.rawBytes === 'number') f.rawBytes = v.rawBytes;
  if (typeof v.rawSha256 === 'string' && SHA256_RE.test(v.rawSha256.toLowerCase())) f.rawSha256 = v.rawSha256.toLowerCase();
  return f;
}

/** Parse and check a manifest; throws an Error with a readable message. */
export function parseManifest(text: string): Manifest {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`manifest is not JSON (${(e as Error).message})`);
  }
  if (!isObj(v)) throw new Error('manifest is not a JSON object');
  if (typeof v.datasetVersion !== 'string' || v.datasetVersion === '') throw new Error('manifest: datasetVersion is missing');
  if (!isObj(v.files)) throw new Error('manifest: files is missing');
  const counts = isObj(v.counts) ? v.counts : {};
  const files: Record<string, ManifestFile> = {};
  const parts: { n: number; file: ManifestFile }[] = [];
  for (const [k, f] of Object.entries(v.files)) {
    if (k === 'index' || k === 'repos') continue;
    const p = isObj(f) && typeof f.path === 'string' ? PART_RE.exec(f.path) : null;
    if (p) {
      // an index part: it must be well-formed (a broken part is a broken index, not an extra file)
      const file = parseManifestFile(f, k);
      files[k] = file;
      parts.push({ n: Number(p[1]), file });
      continue;
    }
    try {
      files[k] = parseManifestFile(f, k);
    } catch {
      // other files (tags, search shards) are not used; ignore malformed ones
    }
  }
  parts.sort((a, b) => a.n - b.n);
  for (let i = 0; i < parts.length; i++) {
    if (parts[i]!.n !== i + 1) throw new Error(`manifest: the index parts are not 1..${parts.length} (${parts.map((x) => x.n).join(', ')})`);
  }
  const out: Manifest = {
    schemaVersion: typeof v.schemaVersion === 'number' ? v.schemaVersion : 0,
    datasetVersion: v.datasetVersion,
    counts: { repos: numOrNull(counts.repos) ?? 0, errors: numOrNull(counts.errors) ?? 0 },
    files: { ...files, repos: parseManifestFile(v.files.repos, 'repos') },
    parts,
  };
  if (v.files.index !== undefined) out.files.index = parseManifestFile(v.files.index, 'index');
  return out;
}

/** One index row from parsed JSON, or undefined when it lacks what matching needs. */
export function toIndexRow(v: unknown): IndexRow | undefined {
  if (!isObj(v)) return undefined;
  const { id, repo, slug, msg, pattern } = v;
  if (typeof id !== 'string' || id === '' || typeof repo !== 'string' || !REPO_RE.test(repo)) return undefined;
  if (typeof msg !== 'string' || typeof pattern !== 'string' || pattern === '') return undefined;
  const tags = Array.isArray(v.tags) ? v.tags.filter((t): t is string => typeof t === 'string') : [];
  return {
    id,
    repo,
    slug: typeof slug === 'string' && slug !== '' ? slug : id,
    code: strOrNull(v.code),
    msg,
    pattern,
    type: typeof v.type === 'string' ? v.type : 'exception',
    cls: strOrNull(v.cls) ?? strOrNull(v.class),
    tags,
    sev: typeof v.sev === 'string' ? v.sev : 'error',
  };
}

/** repos.json; entries without a valid `repo` are dropped. */
export function parseRepos(text: string): RepoEntry[] {
  const v: unknown = JSON.parse(text);
  if (!Array.isArray(v)) throw new Error('repos.json is not a JSON array');
  const out: RepoEntry[] = [];
  for (const r of v) {
    if (!isObj(r) || typeof r.repo !== 'string' || !REPO_RE.test(r.repo)) continue;
    out.push({
      repo: r.repo,
      description: strOrNull(r.description),
      language: strOrNull(r.language),
      stars: numOrNull(r.stars),
      sourceFiles: numOrNull(r.sourceFiles),
      defaultBranch: strOrNull(r.defaultBranch),
      analyzedSha: strOrNull(r.analyzedSha),
      analyzedAt: strOrNull(r.analyzedAt),
      errorCount: numOrNull(r.errorCount) ?? 0,
    });
  }
  return out;
}
