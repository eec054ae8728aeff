// Offsets -> 1-based line/column (UTF-16 units), the way VS Code counts them: \n, \r\n and a lone \r
// end a line. Built once per file; lookups are a binary search.

export interface Position {
  line: number; // 1-based
  column: number; // 1-based, UTF-16 code units
}

export class LineIndex {
  private readonly starts: number[];

  constructor(text: string) {
    const starts = [0];
    if (!text.includes('\r')) {
      // Fast path: only \n line ends.
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    } else {
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 0x0a) starts.push(i + 1);
        else if (c === 0x0d) {
          if (text.charCodeAt(i + 1) === 0x0a) i++;
          starts.push(i + 1);
        }
      }
    }
    this.starts = starts;
  }

  get lineCount(): number {
    return this.starts.length;
  }

  /** 0-based offset where 1-based `line` starts. */
  lineStart(line: number): number {
    return this.starts[Math.max(0, Math.min(line, this.starts.length) - 1)] ?? 0;
  }

  position(offset: number): Position {
    const s = this.starts;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - s[lo]! + 1 };
  }
}
