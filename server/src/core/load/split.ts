// Streaming split of a record file's text into its top-level entries, so that a file is parsed
// entry by entry (one JSON.parse per record) and never exists as one string or one object graph.
// The text comes in pieces (decoded chunks of the file); offsets are UTF-16 offsets of the whole
// text, exactly as if it had been decoded at once.
//
//   `[ e0, e1, ... ]`           -> 'element' entries (root array)
//   `{ ... }` alone             -> one 'root' entry
//   several values from a `{`, or the JSON Lines format chosen by option
//                               -> 'line' entries: the text split on \n, a trailing \r dropped,
//                                  exactly the lines the JSON Lines reader sees (blank ones too)
//
// Between entries the splitter reports the gaps (whitespace, commas, brackets, line ends), so that
// the caller keeps line numbers identical to those of the whole text. While it walks an entry it
// notes the entry's skeleton: how many members the entry object has, where the values of its "id"
// and "record" keys are, and the same inside the "record" object; the loader answers the positions
// a valid record needs from that, without outlining the entry.
//
// It handles only input whose shape is certain. Anything else (no `[` or `{` first, text after the
// root array, an array that is not closed) throws Bail, and the caller loads the text the slow,
// exact way.

export class Bail extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'Bail';
  }
}

export type EntryKind = 'element' | 'root' | 'line';

/** Offsets within an entry's text (-1: not seen). Meaningful only when the entry is valid JSON. */
export interface Skeleton {
  /** The entry's value: first character and exclusive end (-1: not seen, e.g. a line that never closed). */
  start: number;
  end: number;
  /** Members of the entry object (colons at its top level); -1 when the entry is not an object. */
  members: number;
  idStart: number;
  idEnd: number;
  recStart: number;
  recEnd: number;
  /** Members of the object value of "record"; -1 when that value is not an object. */
  recMembers: number;
  recIdStart: number;
  recIdEnd: number;
  /** A key of the entry or record object has an escape, or "id"/"record" is given twice: the
   * loader outlines such an entry instead of trusting the offsets above. */
  escaped: boolean;
  /** A line end (\n or \r) was seen in the whitespace the scan walked. In a value that is valid
   * JSON every line end is such whitespace (a string cannot hold one raw), so then the entry's
   * text has one exactly when this is set (up to `end`: text after the value is not walked). */
  breaks: boolean;
}

export interface SplitSink {
  /** Text between entries. */
  gap(text: string): void;
  entry(text: string, kind: EntryKind, skeleton: Skeleton): void;
}

export interface SplitOptions {
  /** Read as JSON Lines from the start (format 'jsonl'). */
  lines: boolean;
}

const SP = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACK = 0x5b;
const RBRACK = 0x5d;

const isWs = (c: number): boolean => c === SP || c === LF || c === CR || c === TAB;

/** One member being read, at entry depth 1 (the entry object) or 2 (the record object). */
interface Member {
  key: 'id' | 'record' | undefined;
  awaiting: boolean; // after the colon, before the value's first character
  start: number; // value start (entry offset), -1 before it
}

function newSkeleton(): Skeleton {
  return { start: -1, end: -1, members: -1, idStart: -1, idEnd: -1, recStart: -1, recEnd: -1, recMembers: -1, recIdStart: -1, recIdEnd: -1, escaped: false, breaks: false };
}

/** What a key string is, read from its raw text (escapes: not known). */
const KEY_OTHER = 0;
const KEY_ID = 1;
const KEY_RECORD = 2;
const KEY_ESCAPED = 3;

/** The value scan of one entry: depth, strings, and the skeleton. One instance serves every entry
 * (reset); the sink uses the skeleton only while it handles the entry. */
class EntryScan {
  depth = 0;
  inString = false;
  escape = false;
  primitive = false;
  started = false;
  closed = false;
  readonly sk = newSkeleton();
  /** The string being read may be a key of the entry object or the record object. */
  private candidate = false;
  private strEsc = false;
  /** After { or , : the next string is a key (only strings at depth 1 and in the record object use it). */
  private expectKey = false;
  private lastKey = KEY_OTHER;
  private lastTokEnd = 0;
  private inRec = false;
  private readonly m1: Member = { key: undefined, awaiting: false, start: -1 };
  private readonly m2: Member = { key: undefined, awaiting: false, start: -1 };
  // a candidate key that spans two pieces: its text so far
  private keyText = '';

  reset(): void {
    this.depth = 0;
    this.inString = false;
    this.escape = false;
    this.primitive = false;
    this.started = false;
    this.closed = false;
    const sk = this.sk;
    sk.start = sk.end = sk.members = sk.idStart = sk.idEnd = sk.recStart = sk.recEnd = sk.recMembers = sk.recIdStart = sk.recIdEnd = -1;
    sk.escaped = false;
    sk.breaks = false;
    this.candidate = false;
    this.strEsc = false;
    this.expectKey = false;
    this.lastKey = KEY_OTHER;
    this.lastTokEnd = 0;
    this.inRec = false;
    this.m1.key = this.m2.key = undefined;
    this.m1.awaiting = this.m2.awaiting = false;
    this.m1.start = this.m2.start = -1;
    this.keyText = '';
  }

  /**
   * Scan s[i, stop); `base` = entry offset of s[0]. Returns the exclusive index in `s` where the
   * entry's value ended (depth back to 0 after it started), or -1 when it goes on.
   */
  run(s: string, i: number, stop: number, base: number): number {
    if (this.closed) return -1;
    const sk = this.sk;
    while (i < stop) {
      if (this.inString) {
        const j = this.stringEnd(s, i, stop);
        if (j >= stop) {
          if (this.candidate) this.keyText += s.slice(i, stop);
          return -1;
        }
        // closing quote at j
        this.inString = false;
        if (this.candidate) this.lastKey = this.keyKind(s, i, j);
        this.lastTokEnd = base + j + 1;
        i = j + 1;
        if (this.depth === 0) return this.close(i, base);
        continue;
      }
      const c = s.charCodeAt(i);
      if (this.primitive) {
        if (isWs(c) || c === COMMA || c === RBRACK || c === RBRACE) return this.close(i, base);
        i++;
        continue;
      }
      if (c <= SP && isWs(c)) {
        if (c === LF || c === CR) sk.breaks = true;
        i++;
        continue;
      }
      if (!this.started) {
        this.started = true;
        sk.start = base + i;
        if (c === LBRACE) sk.members = 0;
        else if (c !== LBRACK && c !== QUOTE) {
          this.primitive = true;
          i++;
          continue;
        }
      }
      // a value's first character at depth 1 or 2
      const m = this.depth === 1 ? this.m1 : this.depth === 2 && this.inRec ? this.m2 : undefined;
      if (m !== undefined && m.awaiting) {
        m.awaiting = false;
        m.start = base + i;
      }
      switch (c) {
        case QUOTE: {
          this.candidate = this.expectKey && ((this.depth === 1 && sk.members >= 0) || (this.depth === 2 && this.inRec));
          this.strEsc = false;
          this.keyText = '';
          // the closing quote at once (as the string branch above would find it next)
          const from = i + 1;
          const j = from < stop ? this.stringEnd(s, from, stop) : stop;
          if (j >= stop) {
            this.inString = true;
            if (this.candidate && from < stop) this.keyText += s.slice(from, stop);
            return -1;
          }
          if (this.candidate) this.lastKey = this.keyKind(s, from, j);
          this.lastTokEnd = base + j + 1;
          i = j + 1;
          if (this.depth === 0) return this.close(i, base);
          continue;
        }
        case LBRACE:
        case LBRACK:
          this.depth++;
          if (c === LBRACE) this.expectKey = true;
          if (this.depth === 2 && c === LBRACE && this.m1.key === 'record') {
            this.inRec = true;
            sk.recMembers = 0;
            sk.recIdStart = sk.recIdEnd = -1;
            this.m2.key = undefined;
            this.m2.awaiting = false;
            this.m2.start = -1;
          }
          break;
        case RBRACE:
        case RBRACK:
          // the closing bracket ends the last member of its object, then is the end of a value itself
          if (this.depth === 1) this.endMember(this.m1, 1);
          else if (this.depth === 2 && this.inRec) {
            this.endMember(this.m2, 2);
            this.inRec = false;
          }
          this.lastTokEnd = base + i + 1;
          this.depth--;
          if (this.depth === 0) return this.close(i + 1, base);
          break;
        case COLON:
          this.expectKey = false;
          if (this.depth === 1 && sk.members >= 0) {
            sk.members++;
            this.beginMember(this.m1, 1);
          } else if (this.depth === 2 && this.inRec) {
            sk.recMembers++;
            this.beginMember(this.m2, 2);
          }
          break;
        case COMMA:
          this.expectKey = true;
          if (this.depth === 1) this.endMember(this.m1, 1);
          else if (this.depth === 2 && this.inRec) this.endMember(this.m2, 2);
          break;
        default: {
          // a number, true, false or null: its characters up to the next delimiter at once
          let j = i + 1;
          while (j < stop) {
            const d = s.charCodeAt(j);
            if (d === COMMA || d === RBRACE || d === RBRACK || d === COLON || d === QUOTE || d === LBRACE || d === LBRACK || isWs(d)) break;
            j++;
          }
          this.lastTokEnd = base + j;
          i = j;
          continue;
        }
      }
      i++;
    }
    return -1;
  }

  /** What the key s[i, j) (after keyText, when it began in an earlier piece) is. */
  private keyKind(s: string, i: number, j: number): number {
    if (this.strEsc) return KEY_ESCAPED;
    if (this.keyText !== '') {
      const raw = this.keyText + s.slice(i, j);
      return raw === 'id' ? KEY_ID : raw === 'record' ? KEY_RECORD : KEY_OTHER;
    }
    const n = j - i;
    if (n === 2) return s.charCodeAt(i) === 0x69 && s.charCodeAt(i + 1) === 0x64 ? KEY_ID : KEY_OTHER;
    if (n === 6) return s.startsWith('record', i) ? KEY_RECORD : KEY_OTHER;
    return KEY_OTHER;
  }

  /** Index of the closing quote of the string being read, at or after s[i], or `stop`: the native
   * search for the next quote and the next backslash, each done once per stretch of the piece (a
   * later string reuses them until it passes them). */
  private stringEnd(s: string, i: number, stop: number): number {
    let j = i;
    if (this.escape) {
      this.escape = false;
      j++;
    }
    if (this.bsText !== s) {
      this.bsText = s;
      this.bsAt = -1;
      this.qAt = -1;
    }
    for (;;) {
      if (j >= stop) return stop;
      if (this.qAt < j) {
        const f = s.indexOf('"', j);
        this.qAt = f < 0 ? s.length : f;
      }
      if (this.bsAt < j) {
        const b = s.indexOf('\\', j);
        this.bsAt = b < 0 ? s.length : b;
      }
      const bs = this.bsAt;
      if (bs < this.qAt && bs < stop) {
        // a backslash before the quote: skip the escaped character
        this.strEsc = true;
        if (bs + 1 >= stop) {
          this.escape = true;
          return stop;
        }
        j = bs + 2;
        continue;
      }
      return this.qAt < stop ? this.qAt : stop;
    }
  }
  /** Forget where the next backslash and quote of the current piece are: the text is read again
   * from an earlier offset (the searches above assume the scan only moves forward in a piece). */
  rewind(): void {
    this.bsText = undefined;
  }
  /** The next backslash / quote at or after some offset of bsText (its length: none). */
  private bsText: string | undefined;
  private bsAt = -1;
  private qAt = -1;

  private close(at: number, base: number): number {
    this.closed = true;
    this.sk.end = base + at;
    return at;
  }

  private beginMember(m: Member, depth: 1 | 2): void {
    const sk = this.sk;
    // a key written with escapes may be "id" or "record": the loader then outlines the entry
    if (this.lastKey === KEY_ESCAPED) sk.escaped = true;
    m.key = this.lastKey === KEY_ID ? 'id' : this.lastKey === KEY_RECORD && depth === 1 ? 'record' : undefined;
    // a key given twice: the loader outlines the entry (whose lookups point at the last one)
    if (m.key === 'id' && (depth === 1 ? sk.idStart : sk.recIdStart) >= 0) sk.escaped = true;
    if (m.key === 'record' && sk.recStart >= 0) sk.escaped = true;
    m.awaiting = true;
    m.start = -1;
    this.lastKey = KEY_OTHER;
  }

  private endMember(m: Member, depth: 1 | 2): void {
    if (m.start >= 0 && m.key !== undefined) {
      const sk = this.sk;
      if (depth === 1 && m.key === 'id') {
        sk.idStart = m.start;
        sk.idEnd = this.lastTokEnd;
      } else if (depth === 1 && m.key === 'record') {
        sk.recStart = m.start;
        sk.recEnd = this.lastTokEnd;
      } else if (depth === 2 && m.key === 'id') {
        sk.recIdStart = m.start;
        sk.recIdEnd = this.lastTokEnd;
      }
    }
    m.key = undefined;
    m.awaiting = false;
    m.start = -1;
  }
}

type Mode = 'start' | 'first' | 'afterFirst' | 'array' | 'arrayEnd' | 'lines';

export class EntrySplitter {
  private mode: Mode;
  private first = true;
  /** The text from the start (after a BOM) while the shape is undecided ('start', 'first', 'afterFirst'). */
  private kept: string[] = [];
  /** Leading whitespace before a root `{`. */
  private lead = '';
  // the entry being collected: earlier pieces + the current piece from entryFrom
  private parts: string[] = [];
  private partsLen = 0;
  private entryFrom = 0;
  private inEntry = false;
  private readonly scan = new EntryScan();
  // array mode
  private expectValue = true;
  private elements = 0;
  // mode 'first': the root value, once closed
  private rootText = '';
  private rootSkeleton: Skeleton | undefined;

  /** The text was read as JSON Lines although no option said so (it is not one JSON value). */
  guessedLines = false;
  /** The text began with a BOM, which is not reported (offsets start after it). */
  bom = false;

  constructor(
    private readonly sink: SplitSink,
    opts: SplitOptions,
  ) {
    this.mode = opts.lines ? 'lines' : 'start';
  }

  push(piece: string): void {
    if (this.first) {
      this.first = false;
      if (piece.charCodeAt(0) === 0xfeff) {
        piece = piece.slice(1);
        this.bom = true;
      }
    }
    if (piece.length === 0) return;
    if (this.mode === 'lines') {
      this.lines(piece, 0);
      return;
    }
    if (this.mode === 'start' || this.mode === 'first' || this.mode === 'afterFirst') this.kept.push(piece);
    this.run(piece, 0);
  }

  end(): void {
    switch (this.mode) {
      case 'lines':
        this.endLine('', 0, true);
        return;
      case 'afterFirst':
        this.sink.gap(this.lead);
        this.sink.entry(this.rootText, 'root', this.rootSkeleton!);
        return;
      case 'first':
        // the first value never closed: not one JSON value
        this.replayAsLines();
        this.endLine('', 0, true);
        return;
      case 'arrayEnd':
        return;
      default:
        throw new Bail(this.mode === 'start' ? 'no JSON value' : 'the array is not closed');
    }
  }

  private run(s: string, i: number): void {
    while (i < s.length) {
      switch (this.mode) {
        case 'start': {
          while (i < s.length && isWs(s.charCodeAt(i))) i++;
          if (i >= s.length) return;
          const c = s.charCodeAt(i);
          const lead = this.kept.slice(0, -1).join('') + s.slice(0, i);
          if (c === LBRACK) {
            this.kept = [];
            this.sink.gap(lead + '[');
            this.mode = 'array';
            i++;
            continue;
          }
          if (c !== LBRACE) throw new Bail('the text does not start with [ or {');
          this.lead = lead;
          this.mode = 'first';
          this.begin(i);
          continue;
        }
        case 'first': {
          const end = this.scanEntry(s, i, s.length);
          if (end < 0) return;
          this.rootText = this.take(s, end);
          this.rootSkeleton = { ...this.scan.sk };
          this.mode = 'afterFirst';
          i = end;
          continue;
        }
        case 'afterFirst':
          for (; i < s.length; i++) {
            if (!isWs(s.charCodeAt(i))) {
              // more than one value: the text is read as JSON Lines, from the start
              this.replayAsLines();
              return;
            }
          }
          return;
        case 'array':
          i = this.array(s, i);
          continue;
        case 'arrayEnd': {
          const from = i;
          for (; i < s.length; i++) if (!isWs(s.charCodeAt(i))) throw new Bail('text after the root array');
          this.sink.gap(s.slice(from));
          return;
        }
        case 'lines':
          this.lines(s, i);
          return;
      }
    }
  }

  private replayAsLines(): void {
    this.guessedLines = true;
    this.mode = 'lines';
    this.inEntry = false;
    this.parts = [];
    this.partsLen = 0;
    const kept = this.kept;
    this.kept = [];
    this.scan.rewind();
    for (const k of kept) this.lines(k, 0);
  }

  // -- array ----------------------------------------------------------------------------------------

  private array(s: string, i: number): number {
    if (this.inEntry) {
      const end = this.scanEntry(s, i, s.length);
      if (end < 0) return s.length;
      this.sink.entry(this.take(s, end), 'element', this.scan.sk);
      this.expectValue = false;
      return end;
    }
    const from = i;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (isWs(c)) continue;
      if (this.expectValue) {
        if (c === RBRACK && this.elements === 0) return this.closeArray(s, from, i);
        if (c === RBRACK || c === COMMA) throw new Bail('an empty array element');
        if (i > from) this.sink.gap(s.slice(from, i));
        this.elements++;
        this.begin(i);
        return i;
      }
      if (c === COMMA) this.expectValue = true;
      else if (c === RBRACK) return this.closeArray(s, from, i);
      else throw new Bail('expected , or ] between array elements');
    }
    if (i > from) this.sink.gap(s.slice(from, i));
    return i;
  }

  private closeArray(s: string, from: number, i: number): number {
    this.sink.gap(s.slice(from, i + 1));
    this.mode = 'arrayEnd';
    return i + 1;
  }

  // -- lines ----------------------------------------------------------------------------------------

  private lines(s: string, i: number): void {
    if (!this.inEntry) this.begin(i);
    for (;;) {
      const nl = s.indexOf('\n', i);
      const stop = nl < 0 ? s.length : nl;
      this.scanEntry(s, i, stop);
      if (nl < 0) {
        this.keep(s);
        return;
      }
      this.endLine(s, nl, false);
      i = nl + 1;
      this.begin(i);
    }
  }

  /** The line ends at s[nl] (a \n), or at the end of the input. */
  private endLine(s: string, nl: number, eof: boolean): void {
    let text = this.take(s, eof ? this.entryFrom : nl);
    let cr = false;
    if (text.charCodeAt(text.length - 1) === CR) {
      text = text.slice(0, -1);
      cr = true;
    }
    this.sink.entry(text, 'line', this.scan.sk);
    if (cr) this.sink.gap('\r');
    if (!eof) this.sink.gap('\n');
  }

  // -- the entry being collected ----------------------------------------------------------------------

  private begin(i: number): void {
    this.inEntry = true;
    this.entryFrom = i;
    this.parts = [];
    this.partsLen = 0;
    this.scan.reset();
  }

  private scanEntry(s: string, i: number, stop: number): number {
    const end = this.scan.run(s, i, stop, this.partsLen - this.entryFrom);
    if (end < 0 && stop === s.length && this.mode !== 'lines') this.keep(s);
    return end;
  }

  /** The rest of this piece belongs to the entry: keep it, go on in the next piece. */
  private keep(s: string): void {
    if (this.entryFrom < s.length) {
      this.parts.push(this.entryFrom === 0 ? s : s.slice(this.entryFrom));
      this.partsLen += s.length - this.entryFrom;
    }
    this.entryFrom = 0;
  }

  /** The entry's text, ending at s[end) (exclusive). */
  private take(s: string, end: number): string {
    const tail = s.slice(this.entryFrom, end);
    const text = this.parts.length ? this.parts.join('') + tail : tail;
    this.parts = [];
    this.partsLen = 0;
    this.inEntry = false;
    return text;
  }
}
