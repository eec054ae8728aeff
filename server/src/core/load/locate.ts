// Finding where a value sits in JSON text, without recursion and without a full tree.
//
// - `outlineLocator` scans text that JSON.parse already accepted and keeps the spans of the first few
//   nesting levels only (enough for `[i].record.tags[k]`); deeper values are skipped by counting.
// - `jsoncLocator` wraps a jsonc-parser tree (used when the text has syntax errors).
// - `limitDepth` blanks everything nested deeper than a limit (keeping offsets), so that
//   jsonc-parser, which recurses per nesting level, can never overflow the stack.

import { findNodeAtLocation, type Node as JsonNode } from 'jsonc-parser';

export type PathSeg = string | number;

export interface Span {
  offset: number;
  length: number;
}

export interface Locator {
  /** The value at `path` (path [] is the root value). */
  value(path: readonly PathSeg[]): Span | undefined;
  /** The property name whose value is at `path`. */
  key(path: readonly PathSeg[]): Span | undefined;
  /** Property names of the object at `path` that occur more than once: every occurrence but the
   * last (JSON.parse keeps the last value). `keyCount`: how many distinct keys the parsed object
   * has, when the caller knows (a locator may answer [] from it without outlining). */
  duplicateKeys(path: readonly PathSeg[], keyCount?: number): { key: string; span: Span }[];
}

/** Render a path as `[3].record.httpStatus`; the empty path is `(root)`. */
export function formatPath(path: readonly PathSeg[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(seg)) out += (out ? '.' : '') + seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out || '(root)';
}

// -------------------------------------------------------------------------------------------------
// Outline of valid JSON

interface ONode {
  o: number; // offset (absolute)
  e: number; // end offset, exclusive (absolute)
  kids?: ONode[]; // containers whose children were recorded
  keys?: string[]; // objects: property names, parallel to kids
  keyO?: number[];
  keyE?: number[];
}

interface Frame {
  self: ONode | undefined; // the container itself (undefined when its parent is not recorded)
  node: ONode | undefined; // undefined: children are not recorded (too deep)
  obj: boolean;
  expectKey: boolean;
  key: string;
  ko: number;
  ke: number;
}

/** Index just past the closing quote of the string starting at `start` (text[start] === '"'). */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return text.length;
    let bs = 0;
    for (let k = q - 1; k > start && text.charCodeAt(k) === 0x5c; k--) bs++;
    if (bs % 2 === 0) return q + 1;
    from = q + 1;
  }
}

function isDelimiter(c: number): boolean {
  return c === 0x2c || c === 0x5d || c === 0x7d || c === 0x3a || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Outline of `text` (which must be valid JSON). Children are recorded for containers at nesting
 * level <= kidDepth (the root container is level 1). `base` is added to every offset.
 */
function outline(text: string, base: number, kidDepth: number): ONode | undefined {
  let root: ONode | undefined;
  const stack: Frame[] = [];
  const n = text.length;
  const attach = (node: ONode): void => {
    const f = stack[stack.length - 1];
    if (!f) {
      root = node;
      return;
    }
    const p = f.node;
    if (!p) return;
    p.kids!.push(node);
    if (f.obj) {
      p.keys!.push(f.key);
      p.keyO!.push(f.ko);
      p.keyE!.push(f.ke);
    }
  };
  const recording = (): boolean => stack.length === 0 || stack[stack.length - 1]!.node !== undefined;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      const f = stack[stack.length - 1];
      if (f && f.obj && f.expectKey) {
        if (f.node) {
          const raw = text.slice(i + 1, end - 1);
          let key = raw;
          if (raw.includes('\\')) {
            try {
              key = JSON.parse(text.slice(i, end)) as string;
            } catch {
              /* keep raw */
            }
          }
          f.key = key;
          f.ko = base + i;
          f.ke = base + end;
        }
        f.expectKey = false;
      } else if (recording()) attach({ o: base + i, e: base + end });
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      let node: ONode | undefined;
      if (recording()) {
        node = { o: base + i, e: base + i + 1 };
        attach(node);
        if (stack.length + 1 <= kidDepth) {
          node.kids = [];
          if (c === 0x7b) {
            node.keys = [];
            node.keyO = [];
            node.keyE = [];
          }
        }
      }
      const kidNode = node && node.kids ? node : undefined;
      stack.push({ self: node, node: kidNode, obj: c === 0x7b, expectKey: true, key: '', ko: 0, ke: 0 });
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      const f = stack.pop();
      if (f?.self) f.self.e = base + i + 1;
      i++;
    } else if (c === 0x2c) {
      const f = stack[stack.length - 1];
      if (f && f.obj) f.expectKey = true;
      i++;
    } else if (c === 0x3a || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      i++;
    } else {
      let j = i + 1;
      while (j < n && !isDelimiter(text.charCodeAt(j))) j++;
      if (recording()) attach({ o: base + i, e: base + j });
      i = j;
    }
  }
  return root;
}

function lastIndexByName(names: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  names.forEach((k, i) => m.set(k, i));
  return m;
}

/** Per object node: property name -> index of its last occurrence (built on first lookup of a
 * large object, so a record with a million keys is not searched linearly per problem). */
const keyIndexCache = new WeakMap<ONode, Map<string, number>>();

function findKid(node: ONode, seg: PathSeg): number {
  if (!node.kids) return -1;
  if (node.keys) {
    if (typeof seg !== 'string') return -1;
    // JSON.parse keeps the last of duplicate keys; point at that one.
    if (node.keys.length <= 64) return node.keys.lastIndexOf(seg);
    let m = keyIndexCache.get(node);
    if (!m) keyIndexCache.set(node, (m = lastIndexByName(node.keys)));
    return m.get(seg) ?? -1;
  }
  return typeof seg === 'number' && seg >= 0 && seg < node.kids.length ? seg : -1;
}

/** Locator over valid JSON text (offsets shifted by `base`). Keeps children of the first `kidDepth` levels. */
export function outlineLocator(text: string, base = 0, kidDepth = 4): Locator {
  const root = outline(text, base, kidDepth);
  const walk = (path: readonly PathSeg[]): { node: ONode; parent?: ONode; index: number } | undefined => {
    if (!root) return undefined;
    let node = root;
    let parent: ONode | undefined;
    let index = -1;
    for (const seg of path) {
      const k = findKid(node, seg);
      if (k < 0) return undefined;
      parent = node;
      index = k;
      node = node.kids![k]!;
    }
    return parent ? { node, parent, index } : { node, index };
  };
  return {
    value(path) {
      const w = walk(path);
      return w && { offset: w.node.o, length: w.node.e - w.node.o };
    },
    duplicateKeys(path) {
      const node = walk(path)?.node;
      if (!node?.keys) return [];
      const last = lastIndexByName(node.keys);
      if (last.size === node.keys.length) return [];
      const out: { key: string; span: Span }[] = [];
      node.keys.forEach((k, i) => {
        if (last.get(k) !== i) out.push({ key: k, span: { offset: node.keyO![i]!, length: node.keyE![i]! - node.keyO![i]! } });
      });
      return out;
    },
    key(path) {
      const w = walk(path);
      if (!w || !w.parent || !w.parent.keyO) return undefined;
      const o = w.parent.keyO[w.index]!;
      return { offset: o, length: w.parent.keyE![w.index]! - o };
    },
  };
}

// -------------------------------------------------------------------------------------------------
// jsonc-parser trees

/** Locator over a jsonc-parser tree; `base` is added to the tree's offsets. */
export function jsoncLocator(root: JsonNode | undefined, base = 0): Locator {
  return {
    value(path) {
      const node = root && (path.length === 0 ? root : findNodeAtLocation(root, path as PathSeg[]));
      return node && { offset: base + node.offset, length: node.length };
    },
    duplicateKeys(path) {
      const node = root && (path.length === 0 ? root : findNodeAtLocation(root, path as PathSeg[]));
      if (node?.type !== 'object' || !node.children) return [];
      const names = node.children.map((p) => (p.children?.[0]?.value as string | undefined) ?? '');
      const last = lastIndexByName(names);
      if (last.size === names.length) return [];
      const out: { key: string; span: Span }[] = [];
      names.forEach((k, i) => {
        const keyNode = node.children![i]!.children?.[0];
        if (keyNode && last.get(k) !== i) out.push({ key: k, span: { offset: base + keyNode.offset, length: keyNode.length } });
      });
      return out;
    },
    key(path) {
      if (!root || path.length === 0) return undefined;
      const node = findNodeAtLocation(root, path as PathSeg[]);
      const prop = node?.parent;
      const keyNode = prop && prop.type === 'property' ? prop.children?.[0] : undefined;
      return keyNode && { offset: base + keyNode.offset, length: keyNode.length };
    },
  };
}

// -------------------------------------------------------------------------------------------------
// Depth limiting

export interface DepthLimited {
  text: string;
  /** Offsets of the brackets that opened a level deeper than the limit (first of each run). */
  tooDeep: number[];
}

/**
 * Blank (with spaces, offsets unchanged) the contents of every container nested deeper than
 * `maxDepth`. The over-deep bracket and its matching close stay, so the result parses the same
 * way up to the limit. Iterative; strings are skipped properly, unterminated ones end the scan.
 */
export function limitDepth(text: string, maxDepth: number): DepthLimited {
  const tooDeep: number[] = [];
  const chunks: string[] = [];
  let copied = 0;
  let depth = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEndOnLine(text, i);
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > maxDepth) {
        // Find the matching close (any bracket kind), skipping strings.
        let d = 1;
        let j = i + 1;
        while (j < n && d > 0) {
          const cj = text.charCodeAt(j);
          if (cj === 0x22) {
            j = stringEndOnLine(text, j);
            continue;
          }
          if (cj === 0x7b || cj === 0x5b) d++;
          else if (cj === 0x7d || cj === 0x5d) d--;
          j++;
        }
        const innerEnd = d === 0 ? j - 1 : n; // index of the matching close, or end of text
        tooDeep.push(i);
        chunks.push(text.slice(copied, i + 1), ' '.repeat(innerEnd - (i + 1)));
        copied = innerEnd;
        i = innerEnd; // the close bracket (if any) is handled by the loop
        continue;
      }
      i++;
    } else if (c === 0x7d || c === 0x5d) {
      if (depth > 0) depth--;
      i++;
    } else i++;
  }
  if (tooDeep.length === 0) return { text, tooDeep };
  chunks.push(text.slice(copied));
  return { text: chunks.join(''), tooDeep };
}

/** End of a string for the depth scan: a string never spans a raw line break in JSON, so an
 * unterminated one stops at the line end (jsonc-parser recovers the same way). */
function stringEndOnLine(text: string, start: number): number {
  const n = text.length;
  for (let i = start + 1; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
    else if (c === 0x0a || c === 0x0d) return i;
  }
  return n;
}
