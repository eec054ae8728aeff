// Multi-line error blocks in log text: Python tracebacks (with their chains), Java/Kotlin stack
// traces (`Caused by:`, `Suppressed:`, `... N more`), Node/JavaScript stacks (with Node's
// uncaught-exception preamble and `[cause]:`), Go panics and Rust panics; plain, ANSI-coloured, or
// with a log prefix on every line or on the first line only. Pure: strings in, plain objects out;
// linear in the input, bounded lookahead, never throws on junk.
//
// Three entry points over one parser (parse.ts):
//   findBlocks(lines)         every block of an array of lines
//   BlockIndex                the blocks of an editable document, re-parsed only around edits
//   BlockStream               lines pushed one by one, handed back with their roles (CLI scan)
// and frameHit() (frames.ts): which frame of a block names a record's raise site.
import { baseView } from '../text';
import { classify, isFrameShape, pytestLine } from './shapes';

export type { BlockException, BlockKind, BlockLineRole, ChainRelation, ErrorBlock, Frame, LineInfo, LineSource } from './parse';
export { LOOKAHEAD, MAX_BLOCK_LINES, arraySource, findBlocks, lineInfo, parseBlockAt } from './parse';
export { type BlockChange, BlockIndex, blockAround, sameBlock, shiftBlock } from './incremental';
export { BlockStream, type StreamLine } from './stream';
export { type FrameHit, LINE_SLACK, compareHits, frameHit, framePathMatches, normalizeFramePath, packageTail } from './frames';
export { classify, type Shape, type ShapeKind } from './shapes';

/** Is this line a stack frame (or a frame marker such as `goroutine 1 [running]:` or `... 3 more`)
 * by its own text? Such a line is context, never an error of its own. */
export function isFrameLine(line: string): boolean {
  const text = baseView(line).text;
  return isFrameShape(classify(text).kind) || pytestLine(text) === 'location';
}

/** Does this line, by its own text, look like part of an error block (a frame, a header, a chain
 * marker, a panic line)? Lines around it are needed to know its role. */
export function hasBlockShape(line: string): boolean {
  const text = baseView(line).text;
  const k = classify(text).kind;
  return (k !== 'text' && k !== 'blank') || pytestLine(text) !== undefined;
}
