// Per-catalog lookups the features need besides matching: records by errorClass and by the file
// they are raised in. Built once per catalog (records reload => new index).
import type { ErrorRecord } from '../core/record';
import { RaisedInIndex } from './raiseSite';

export class RecordIndex {
  readonly raisedIn: RaisedInIndex;
  private readonly byClass = new Map<string, ErrorRecord[]>();

  constructor(records: readonly ErrorRecord[]) {
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
}
