// Which frame of a block names a record's raise site. Frames print absolute paths of the machine
// that ran (`/usr/lib/python3.11/shutil.py`, `/app/node_modules/picomatch/lib/picomatch.js`,
// `java/lang/Integer.java` from `java.lang.Integer(Integer.java:668)`); records hold paths relative
// to their repository (`shutil.py`, `Lib/shutil.py`, `picomatch/lib/picomatch.js`, `lib/picomatch.js`).
// They match when one ends with the other at a path separator, after dropping what only says where
// a package was installed (site-packages/, dist-packages/, lib/pythonX.Y/, node_modules/).
import type { ErrorBlock, Frame } from './parse';

/** A frame line within this many lines of a record's lineNumber counts as its raise line. */
export const LINE_SLACK = 2;

export interface FrameHit {
  /** Index in block.frames. */
  index: number;
  /** Frames between it and the raising frame (0: it is the raising frame). */
  distance: number;
  /** The frame's line is the record's lineNumber (within LINE_SLACK), not only its file. */
  line: boolean;
  /** The frame's path ends with the record's whole path (wholePathMatches). */
  whole: boolean;
}

/** A frame's file as a comparable path: forward slashes, no `file://`, `<frozen x>` -> `x.py`. */
export function normalizeFramePath(file: string): string {
  let f = file.trim();
  const frozen = /^<frozen ([\w.]+)>$/.exec(f);
  if (frozen) return frozen[1]!.replace(/\./g, '/') + '.py';
  if (f.startsWith('file://')) {
    f = f.slice(7);
    if (!f.startsWith('/')) f = f.slice(f.indexOf('/')); // file://host/path
    try {
      f = decodeURIComponent(f);
    } catch {
      // keep it as printed
    }
  }
  f = f.replace(/\\/g, '/').replace(/^\.\//, '');
  if (/^\/[A-Za-z]:\//.test(f)) f = f.slice(1);
  return f;
}

const PACKAGE_ROOT = /(?:^|\/)(?:site-packages|dist-packages|node_modules|lib\/python\d+(?:\.\d+)?|Lib)\//g;

/** The part of a frame path after the last place packages are installed (`site-packages/`, …). */
export function packageTail(path: string): string | undefined {
  let last = -1;
  PACKAGE_ROOT.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PACKAGE_ROOT.exec(path))) {
    last = m.index + m[0].length;
    PACKAGE_ROOT.lastIndex = m.index + 1;
  }
  return last >= 0 && last < path.length ? path.slice(last) : undefined;
}

function normalizeRecordPath(p: string): string {
  return p.trim().replace(/\\/g, '/').replace(/^(?:\.\/)+/, '').replace(/^\/+/, '');
}

/** A frame's file, normalized once per block (frameHit runs for every record matching a line). */
interface FramePath {
  /** normalizeFramePath of the file ('' when it names no file: `node:internal/x`). */
  f: string;
  /** What follows its last install root (or the whole path of a frozen module). */
  tail: string | undefined;
  /** A relative path (Java's package path, `src/x.ts`): a record path may end with it. */
  relative: boolean;
}

function framePath(frameFile: string): FramePath {
  const f = normalizeFramePath(frameFile);
  if (!f || f.startsWith('node:')) return { f: '', tail: undefined, relative: false };
  // a frozen standard-library module (`<frozen genericpath>`) is a file of the library's root
  const tail = frameFile.startsWith('<frozen ') ? f : packageTail(f);
  return { f, tail, relative: !f.startsWith('/') && !/^[A-Za-z]:\//.test(f) && f.indexOf('/') >= 0 };
}

/** 2: the frame's path ends with the whole record path; 1: it names the record's file another way
 * (its package tail, a relative frame path); 0: not the record's file. */
function pathMatch(p: FramePath, r: string): 0 | 1 | 2 {
  const { f, tail } = p;
  if (!f || !r) return 0;
  if (f === r || f.endsWith('/' + r)) return 2;
  if (tail && (r === tail || r.endsWith('/' + tail))) return 1;
  return p.relative && r.endsWith('/' + f) ? 1 : 0;
}

/** Does a frame's file name the record's (repository-relative) filePath? */
export function framePathMatches(frameFile: string, recordPath: string): boolean {
  return pathMatch(framePath(frameFile), normalizeRecordPath(recordPath)) > 0;
}

/** A block's frame paths, and the frames by the last part of their path (a frame can name a
 * record's file only where the two end with the same file name: pathMatch). */
interface FrameIndex {
  paths: FramePath[];
  byName: Map<string, number[]>;
}
const frameIndexes = new WeakMap<readonly Frame[], FrameIndex>();

const lastPart = (p: string) => p.slice(p.lastIndexOf('/') + 1);

function frameIndex(frames: readonly Frame[]): FrameIndex {
  let ix = frameIndexes.get(frames);
  if (!ix) {
    const paths = frames.map((fr) => framePath(fr.file));
    const byName = new Map<string, number[]>();
    paths.forEach((p, i) => {
      if (!p.f) return;
      const name = lastPart(p.f);
      const at = byName.get(name);
      if (at) at.push(i);
      else byName.set(name, [i]);
    });
    frameIndexes.set(frames, (ix = { paths, byName }));
  }
  return ix;
}

/** The frame of `block` that names the record's raise site (closest to the raising frame; the raise
 * line before the file only; a frame's path ending with the record's whole path before one naming
 * it by its package tail only: the top-level `minimatch/dist/x.js`, not the copy
 * `mocha/node_modules/minimatch/dist/x.js`), or undefined. */
export function frameHit(block: Pick<ErrorBlock, 'frames' | 'raising'>, filePath: string | null | undefined, lineNumber: number | null | undefined): FrameHit | undefined {
  if (!filePath || block.frames.length === 0) return undefined;
  const r = normalizeRecordPath(filePath);
  if (!r) return undefined;
  const raising = block.raising < 0 ? 0 : block.raising;
  const frames: readonly Frame[] = block.frames;
  const { paths, byName } = frameIndex(frames);
  const named = byName.get(lastPart(r));
  if (!named) return undefined;
  let best: FrameHit | undefined;
  for (const i of named) {
    const m = pathMatch(paths[i]!, r);
    if (m === 0) continue;
    const hit: FrameHit = {
      index: i,
      distance: Math.abs(i - raising),
      line: lineNumber != null && Math.abs(frames[i]!.line - lineNumber) <= LINE_SLACK,
      whole: m === 2,
    };
    if (!best || compareHits(hit, best) < 0) best = hit;
  }
  return best;
}

/** Ranking of two frame hits: the raising frame first, then closer frames; at one frame the raise
 * line before the file only, then the whole path before its package part only. Undefined (no hit)
 * last. */
export function compareHits(a: FrameHit | undefined, b: FrameHit | undefined): number {
  if (!a || !b) return a ? -1 : b ? 1 : 0;
  if (a.distance !== b.distance) return a.distance - b.distance;
  if (a.line !== b.line) return a.line ? -1 : 1;
  if (a.whole !== b.whole) return a.whole ? -1 : 1;
  return 0;
}
