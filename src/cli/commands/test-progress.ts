/**
 * Progress of `svcspec test` on stderr. On a terminal, one status line rewritten in place:
 * the part under way (k of n), its counts so far, the run's totals per outcome, the time
 * spent and an estimate of the time left (from the parts done; the first part has none).
 * Elsewhere (CI logs, a pipe) plain lines, one when each part ends with its totals, so a log
 * shows how far a run got without control characters.
 */
import type { CheckResult } from '../../conformance/index.ts';
import type { PartName } from '../../spec/parts.ts';

interface Counts {
  pass: number;
  fail: number;
  skip: number;
  /** Of the skips, those the run could not check (the rest: not applicable or not asked), as the report splits them. */
  notChecked: number;
}

export class Progress {
  readonly #tty: boolean;
  readonly #started = performance.now();
  #part?: { name: PartName; index: number; total: number; started: number };
  /** Counts by the part each result is of, which may not be the part under way (a shape of error met in part 2 is part 7's), so each part's line agrees with the final table. */
  readonly #byPart = new Map<PartName, Counts>();
  readonly #all: Counts = { pass: 0, fail: 0, skip: 0, notChecked: 0 };
  /** Time of each part ended so far. */
  readonly #partMs: number[] = [];
  #drawn = false;

  constructor(tty: boolean) {
    this.#tty = tty;
  }

  part(e: { part: PartName; index: number; total: number; done: boolean }): void {
    const now = performance.now();
    if (!e.done) {
      this.#part = { name: e.part, index: e.index, total: e.total, started: now };
      this.#draw();
      return;
    }
    const ms = now - (this.#part?.started ?? now);
    this.#partMs.push(ms);
    if (!this.#tty) {
      const c = this.#counts(e.part);
      process.stderr.write(`svcspec: ${e.index + 1}/${e.total} ${e.part}: ${c.pass} passed, ${c.fail} failed, ${c.notChecked} not checked, ${c.skip - c.notChecked} not applicable or not asked (${(ms / 1000).toFixed(1)} s)\n`);
    }
  }

  result(r: CheckResult): void {
    const c = this.#counts(r.part);
    c[r.outcome]++;
    this.#all[r.outcome]++;
    // A skip is not checked unless it says otherwise (context.ts SkipKind's default).
    if (r.outcome === 'skip' && (r.skipKind ?? 'not-checked') === 'not-checked') {
      c.notChecked++;
      this.#all.notChecked++;
    }
    this.#draw();
  }

  /** A message of its own (a rate-limit wait), on its own line. */
  line(text: string): void {
    if (this.#tty && this.#drawn) process.stderr.write('\r\x1b[K');
    process.stderr.write(`${text}\n`);
    this.#drawn = false;
    this.#draw();
  }

  end(): void {
    if (this.#tty && this.#drawn) process.stderr.write('\r\x1b[K');
    this.#drawn = false;
  }

  #counts(part: PartName): Counts {
    let c = this.#byPart.get(part);
    if (!c) this.#byPart.set(part, (c = { pass: 0, fail: 0, skip: 0, notChecked: 0 }));
    return c;
  }

  #draw(): void {
    if (!this.#tty || !this.#part) return;
    const p = this.#part;
    const c = this.#counts(p.name);
    const a = this.#all;
    const elapsed = performance.now() - this.#started;
    // Parts differ in size; the mean of the parts done is the estimate, said as one ("~").
    const left = this.#partMs.length ? Math.max(0, (this.#partMs.reduce((x, y) => x + y, 0) / this.#partMs.length) * (p.total - this.#partMs.length) - (performance.now() - p.started)) : undefined;
    const text = `[${p.index + 1}/${p.total}] ${p.name}: ${c.pass} ✔ ${c.fail} ✖ ${c.skip} - | all: ${a.pass} ✔ ${a.fail} ✖ ${a.skip} - | ${(elapsed / 1000).toFixed(0)} s${left === undefined ? '' : `, ~${Math.ceil(left / 1000)} s left`}`;
    process.stderr.write(`\r\x1b[K${text}`);
    this.#drawn = true;
  }
}
