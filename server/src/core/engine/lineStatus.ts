// The status of a line listed by the WebAssembly line walk (server/wasm/scan.ts `lines`), read by
// engine/blocks.ts. Shared by both: this file is valid TypeScript and AssemblyScript (an integer
// literal const is an i32 there).

/** Match the line in JS, with the scan's hits as its candidates. */
export const LINE_CANDIDATES = 0;
/** The line holds ESC (ANSI sequences): match it in JS from its stripped text. */
export const LINE_ESCAPED = 1;
/** Matched inside the module: its matches are in the results. */
export const LINE_MATCHED = 2;
