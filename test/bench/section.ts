// A benchmark section: bench.ts runs a list of them in one process and collects their Markdown.
// An optional section file (e.g. test/bench/lsp.ts) exports `section: Section` (or `run(ctx)`).
export interface BenchContext {
  /** Repository root. */
  root: string;
  /** Scratch folder (gitignored): generated logs, results. */
  benchDir: string;
  env: NodeJS.ProcessEnv;
  /** Print a progress/result line. */
  log(line: string): void;
  /** Append Markdown to the results (printed at the end and written to .bench/results.md). */
  markdown(text: string): void;
  /** Record a target check; the run exits 1 when any target fails. */
  target(name: string, ok: boolean, detail: string): void;
}

export interface Section {
  name: string;
  run(ctx: BenchContext): Promise<void>;
}
