// Records matched recently in this session (logs, output panels, terminals via the client's
// `errorExplainer/seen`), most recent first. Code actions in source files offer their snippets.
export class SeenRecords {
  private readonly order = new Map<string, number>();
  /** Where each record was seen last (a file name, "terminal:bash"), when the caller said. */
  private readonly where = new Map<string, string>();
  private tick = 0;

  constructor(private readonly capacity = 200) {}

  /** `source`: where it was seen; without one, the last known place is kept. */
  note(id: string, source?: string): void {
    this.order.delete(id);
    this.order.set(id, ++this.tick);
    if (source) this.where.set(id, source);
    if (this.order.size > this.capacity) {
      const oldest = this.order.keys().next().value;
      if (oldest !== undefined) {
        this.order.delete(oldest);
        this.where.delete(oldest);
      }
    }
  }

  /** Where the record was seen last, if known. */
  source(id: string): string | undefined {
    return this.where.get(id);
  }

  /** Ids, most recent first. */
  recent(limit = Infinity): string[] {
    const ids = [...this.order.keys()].reverse();
    return ids.slice(0, limit);
  }

  /** Recency rank: larger is more recent; 0 when never seen. */
  rank(id: string): number {
    return this.order.get(id) ?? 0;
  }

  clear(): void {
    this.order.clear();
    this.where.clear();
  }
}
