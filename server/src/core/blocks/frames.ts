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

/** Does the frame's path end with the whole of the record's path (not only with what follows its
 * install root)? Between two records named by one frame, this one is that file: the top-level
 * `minimatch/dist/x.js`, not the copy `mocha/node_modules/minimatch/dist/x.js`. */
function wholePathMatches(frameFile: string, recordPath: string): boolean {
  const f = normalizeFramePath(frameFile);
  const r = normalizeRecordPath(recordPath);
  return !!f && !!r && (f === r || f.endsWith('/' + r));
}

/** Does a frame's file name the record's (repository-relative) filePath? */
export function framePathMatches(frameFile: string, recordPath: string): boolean {
  const f = normalizeFramePath(frameFile);
  const r = normalizeRecordPath(recordPath);
  if (!f || !r || f.startsWith('node:')) return false;
  if (f === r || f.endsWith('/' + r)) return true;
  // a frozen standard-library module (`<frozen genericpath>`) is a file of the library's root
  const tail = frameFile.startsWith('<frozen ') ? f : packageTail(f);
  if (tail && (r === tail || r.endsWith('/' + tail))) return true;
  // relative frame paths (Java's package path, `src/x.ts`): the record path may be longer
  return !f.startsWith('/') && !/^[A-Za-z]:\//.test(f) && f.indexOf('/') >= 0 && r.endsWith('/' + f);
}

/** The frame of `block` that names the record's raise site (closest to the raising frame; the raise
 * line before the file only), or undefined. */
export function frameHit(block: Pick<ErrorBlock, 'frames' | 'raising'>, filePath: string | null | undefined, lineNumber: number | null | undefined): FrameHit | undefined {
  if (!filePath || block.frames.length === 0) return undefined;
  const raising = block.raising < 0 ? 0 : block.raising;
  let best: FrameHit | undefined;
  const frames: readonly Frame[] = block.frames;
  for (let i = 0; i < frames.length; i++) {
    const fr = frames[i]!;
    if (!framePathMatches(fr.file, filePath)) continue;
    const hit: FrameHit = {
      index: i,
      distance: Math.abs(i - raising),
      line: lineNumber != null && Math.abs(fr.line - lineNumber) <= LINE_SLACK,
      whole: wholePathMatches(fr.file, filePath),
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
