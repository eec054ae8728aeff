// Per-catalog lookups the features need besides matching: records by errorClass and by the file
// they are raised in. Built once per catalog (records reload => new index).
import type { ErrorRecord } from './record';
import { enclosingFunction } from './sourceContext';
import { RaisedInIndex } from './raiseSite';

export class RecordIndex {
  readonly raisedIn: RaisedInIndex;
  private readonly byClass = new Map<string, ErrorRecord[]>();
  private byFunction: Map<string, ErrorRecord[]> | undefined;

  constructor(private readonly records: readonly ErrorRecord[]) {
    this.raisedIn = new RaisedInIndex(records);
    for (const r of records) {
      if (!r.errorClass) continue;
      let list = this.byClass.get(r.errorClass);
      if (!list) this.byClass.set(r.errorClass, (list = []));
      list.push(r);
    }
  }

  /** Records whose errorClass is `name` (exact; also the last dotted/`::` component). */
  withClass(name: string): readonly ErrorRecord[] {
    return this.byClass.get(name) ?? [];
  }

  hasClass(name: string): boolean {
    return this.byClass.has(name);
  }

  /** Records raised inside a function (or class, for constructors) of this name, read from their
   * source windows (built on first use). */
  raisedInFunction(name: string): readonly ErrorRecord[] {
    if (!this.byFunction) {
      this.byFunction = new Map();
      for (const r of this.records) {
        const fn = enclosingFunction(r);
        if (!fn) continue;
        let list = this.byFunction.get(fn);
        if (!list) this.byFunction.set(fn, (list = []));
        list.push(r);
      }
    }
    return this.byFunction.get(name) ?? [];
  }
}
