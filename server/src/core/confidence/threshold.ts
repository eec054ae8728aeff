// The one default threshold (its own module: protocol.ts and so the client import it without the
// word model). Chosen from the precision bench (BENCH_SECTIONS=precision npm run bench): at 0.5, no
// line of 24k real unrelated log lines is flagged while exception lines of real tracebacks are.
/** Matches below this confidence are not problems (scan --min-confidence, errorExplainer.diagnostics.minConfidence). */
export const DEFAULT_MIN_CONFIDENCE = 0.5;
