// Per-catalog lookups the features need besides matching: records by errorClass and by the file
// they are raised in. Built once per catalog (records reload => new index), on first use or ahead
// of it in steps (buildSteps: the server runs them in slices after a load): reading every record
// for them took 0.25 s at 100k cached records, which a restored server's first log hover (that
// needs none of them) waited for when they were built at load.
import type { ErrorRecord } from './record';
import { enclosingFunction } from './sourceContext';
import { RaisedInIndex } from './raiseSite';

/** Records read per step of buildSteps. */
const STEP = 2048;

export class RecordIndex {
  private readonly raised = new RaisedInIndex();
  private readonly byClass = new Map<string, ErrorRecord[]>();
  private byFunction: Map<string, ErrorRecord[]> | undefined;
  /** The build (a generator does nothing until it is run: buildSteps runs it ahead, a lookup runs
   * it to its end from where it is). */
  private readonly steps: Generator<void, void, void>;
  private built = false;

  constructor(private readonly records: readonly ErrorRecord[]) {
    this.steps = this.build();
  }

  /** The build, as steps (a `yield` every STEP records): resumable, and a lookup finishes it.
   * (The build's own generator is stepped, not delegated to: a caller that stops early leaves it
   * to be finished, not closed.) */
  *buildSteps(): Generator<void, void, void> {
    while (!this.steps.next().done) yield;
  }

  private *build(): Generator<void, void, void> {
    const records = this.records;
    for (let i = 0; i < records.length; i++) {
      if (i > 0 && i % STEP === 0) yield;
      const r = records[i]!;
      this.raised.add(r);
      if (!r.errorClass) continue;
      let list = this.byClass.get(r.errorClass);
      if (!list) this.byClass.set(r.errorClass, (list = []));
      list.push(r);
    }
    this.built = true;
  }

  private ready(): this {
    if (!this.built) for (let s = this.steps.next(); !s.done; s = this.steps.next());
    return this;
  }

  /** Records by the file they are raised in. */
  get raisedIn(): RaisedInIndex {
    return this.ready().raised;
  }

  /** Records whose errorClass is `name` (exact; also the last dotted/`::` component). */
  withClass(name: string): readonly ErrorRecord[] {
    return this.ready().byClass.get(name) ?? [];
  }

  hasClass(name: string): boolean {
    return this.ready().byClass.has(name);
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
