// File path / VS Code language id -> language info (id + comment syntax). Pure data, no editor imports.

export interface LanguageInfo {
  id: string;
  lineComment?: string;
  blockComment?: [string, string];
}

interface LanguageDef extends LanguageInfo {
  extensions: string[];
  /** Whole file names (lowercase) that identify the language, e.g. `makefile`. */
  fileNames?: string[];
}

const C_LIKE = { lineComment: '//', blockComment: ['/*', '*/'] as [string, string] };
const HASH = { lineComment: '#' };

const DEFS: LanguageDef[] = [
  { id: 'python', ...HASH, extensions: ['py', 'pyi', 'pyw', 'pyx', 'pxd'] },
  { id: 'typescript', ...C_LIKE, extensions: ['ts', 'mts', 'cts'] },
  { id: 'typescriptreact', ...C_LIKE, extensions: ['tsx'] },
  { id: 'javascript', ...C_LIKE, extensions: ['js', 'mjs', 'cjs'] },
  { id: 'javascriptreact', ...C_LIKE, extensions: ['jsx'] },
  { id: 'go', ...C_LIKE, extensions: ['go'] },
  { id: 'java', ...C_LIKE, extensions: ['java'] },
  { id: 'rust', ...C_LIKE, extensions: ['rs'] },
  { id: 'csharp', ...C_LIKE, extensions: ['cs', 'csx'] },
  { id: 'ruby', ...HASH, blockComment: ['=begin', '=end'], extensions: ['rb', 'rake', 'gemspec'], fileNames: ['rakefile', 'gemfile'] },
  { id: 'php', ...C_LIKE, extensions: ['php', 'phtml'] },
  { id: 'kotlin', ...C_LIKE, extensions: ['kt', 'kts'] },
  { id: 'swift', ...C_LIKE, extensions: ['swift'] },
  { id: 'c', ...C_LIKE, extensions: ['c', 'h'] },
  { id: 'cpp', ...C_LIKE, extensions: ['cpp', 'cc', 'cxx', 'c++', 'hpp', 'hh', 'hxx', 'h++', 'cu', 'cuh', 'ipp', 'inl'] },
  { id: 'objective-c', ...C_LIKE, extensions: ['m'] },
  { id: 'objective-cpp', ...C_LIKE, extensions: ['mm'] },
  { id: 'scala', ...C_LIKE, extensions: ['scala', 'sc'] },
  { id: 'dart', ...C_LIKE, extensions: ['dart'] },
  { id: 'shellscript', ...HASH, extensions: ['sh', 'bash', 'zsh', 'ksh'], fileNames: ['.bashrc', '.zshrc', '.profile'] },
  { id: 'powershell', ...HASH, blockComment: ['<#', '#>'], extensions: ['ps1', 'psm1', 'psd1'] },
  { id: 'perl', ...HASH, extensions: ['pl', 'pm'] },
  { id: 'r', ...HASH, extensions: ['r'] },
  { id: 'julia', ...HASH, blockComment: ['#=', '=#'], extensions: ['jl'] },
  { id: 'elixir', ...HASH, extensions: ['ex', 'exs'] },
  { id: 'erlang', lineComment: '%', extensions: ['erl', 'hrl'] },
  { id: 'haskell', lineComment: '--', blockComment: ['{-', '-}'], extensions: ['hs'] },
  { id: 'lua', lineComment: '--', blockComment: ['--[[', ']]'], extensions: ['lua'] },
  { id: 'sql', lineComment: '--', blockComment: ['/*', '*/'], extensions: ['sql'] },
  { id: 'clojure', lineComment: ';;', extensions: ['clj', 'cljs', 'cljc', 'edn'] },
  { id: 'fsharp', lineComment: '//', blockComment: ['(*', '*)'], extensions: ['fs', 'fsi', 'fsx'] },
  { id: 'vb', lineComment: "'", extensions: ['vb'] },
  { id: 'zig', lineComment: '//', extensions: ['zig'] },
  { id: 'yaml', ...HASH, extensions: ['yaml', 'yml'] },
  { id: 'toml', ...HASH, extensions: ['toml'] },
  { id: 'dockerfile', ...HASH, extensions: ['dockerfile'], fileNames: ['dockerfile', 'containerfile'] },
  { id: 'makefile', ...HASH, extensions: ['mk'], fileNames: ['makefile', 'gnumakefile'] },
  { id: 'cmake', ...HASH, extensions: ['cmake'], fileNames: ['cmakelists.txt'] },
  { id: 'html', blockComment: ['<!--', '-->'], extensions: ['html', 'htm'] },
  { id: 'xml', blockComment: ['<!--', '-->'], extensions: ['xml', 'xsd', 'xsl'] },
  { id: 'css', blockComment: ['/*', '*/'], extensions: ['css'] },
  { id: 'scss', ...C_LIKE, extensions: ['scss'] },
  { id: 'jsonc', ...C_LIKE, extensions: ['jsonc'] },
  { id: 'vue', blockComment: ['<!--', '-->'], extensions: ['vue'] },
  { id: 'svelte', blockComment: ['<!--', '-->'], extensions: ['svelte'] },
  { id: 'protobuf', ...C_LIKE, extensions: ['proto'] },
  { id: 'solidity', ...C_LIKE, extensions: ['sol'] },
  { id: 'groovy', ...C_LIKE, extensions: ['groovy', 'gradle'] },
];

const byExtension = new Map<string, LanguageDef>();
const byFileName = new Map<string, LanguageDef>();
const byId = new Map<string, LanguageDef>();
for (const d of DEFS) {
  byId.set(d.id, d);
  for (const e of d.extensions) byExtension.set(e, d);
  for (const f of d.fileNames ?? []) byFileName.set(f, d);
}
/** VS Code language ids that share a definition with another id. */
const ALIASES: Record<string, string> = {
  'c++': 'cpp',
  'c#': 'csharp',
  cs: 'csharp',
  js: 'javascript',
  ts: 'typescript',
  py: 'python',
  sh: 'shellscript',
  bash: 'shellscript',
  zsh: 'shellscript',
  shell: 'shellscript',
  golang: 'go',
  rs: 'rust',
  rb: 'ruby',
  kt: 'kotlin',
  cuda: 'cpp',
  'cuda-cpp': 'cpp',
};

function info(d: LanguageDef): LanguageInfo {
  const out: LanguageInfo = { id: d.id };
  if (d.lineComment !== undefined) out.lineComment = d.lineComment;
  if (d.blockComment !== undefined) out.blockComment = [d.blockComment[0], d.blockComment[1]];
  return out;
}

/** Language of a file path (`a/b/runtime.py` -> python); undefined for unknown or null paths. */
export function languageForPath(filePath: string | null): LanguageInfo | undefined {
  if (!filePath) return undefined;
  const base = (filePath.split(/[\\/]/).pop() ?? '').toLowerCase();
  if (!base) return undefined;
  const named = byFileName.get(base);
  if (named) return info(named);
  const dot = base.lastIndexOf('.');
  if (dot < 0) return undefined;
  const d = byExtension.get(base.slice(dot + 1));
  return d ? info(d) : undefined;
}

/** Language info for a VS Code language id (plus a few common aliases such as `js`, `golang`). */
export function languageById(languageId: string): LanguageInfo | undefined {
  const id = languageId.toLowerCase();
  const d = byId.get(id) ?? byId.get(ALIASES[id] ?? '');
  return d ? info(d) : undefined;
}

/** The Markdown fence info string for a file path: the language id, or '' when unknown. */
/** A document's language: its language id when known here (aliases resolved), else its path's. */
export function documentLanguage(languageId: string | undefined, filePath: string | null): LanguageInfo | undefined {
  return (languageId ? languageById(languageId) : undefined) ?? languageForPath(filePath);
}

export function fenceLanguage(filePath: string | null): string {
  return languageForPath(filePath)?.id ?? '';
}

/** A one-line comment in the language: `# text`, `// text`, `/* text *\/`, or undefined when it has no comments. */
export function commentLine(lang: LanguageInfo, text: string): string | undefined {
  const clean = text.replace(/[\r\n]+/g, ' ');
  if (lang.lineComment) return `${lang.lineComment} ${clean}`;
  if (lang.blockComment) {
    const [open, close] = lang.blockComment;
    return `${open} ${clean.split(close).join(close.split('').join(' '))} ${close}`;
  }
  return undefined;
}
