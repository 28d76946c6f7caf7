/**
 * Whether the database file SQLite has open is still the one at its path. Deleting (or
 * replacing) the file of a running service goes unnoticed by SQLite: it keeps writing to the
 * open, unlinked file (and its WAL), commits succeed, and everything written since is gone at
 * the next start. Seen with `rm` of the data folder, a restore copied over the file, and a
 * volume remounted under a running container.
 *
 * So the file's identity (device and inode, of the database and of its WAL) is taken at open
 * and compared again: after the commits of record and idempotency writes, before they are
 * acknowledged, and every second by a timer, so readiness fails and the log says so even with
 * no writes. A stat costs microseconds (14 µs on a loaded 2-core machine), a real share of a
 * create at `--durability normal`, so the writes of one event-loop turn (a group commit's
 * batch, and whatever else committed in that turn) share one check: no JavaScript runs between
 * them, so only another process could delete the file in that window, and it could as well
 * just after any check.
 * Once lost, the store stays lost: every call fails with StoreUnavailableError (503
 * `unavailable`) until the service is restarted on a file it can keep.
 */
import { statSync } from 'node:fs';
import { StoreUnavailableError } from './store.ts';

/** How often the identity is checked besides each write. */
export const FILE_CHECK_MS = 1_000;

interface Identity {
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
}

export class DatabaseFile {
  readonly #files: readonly Identity[];
  #lost: string | undefined;
  /** Set by a check, cleared at the end of the event-loop turn (see the header). */
  #checkedThisTurn = false;
  readonly #nextTurn = (): void => {
    this.#checkedThisTurn = false;
  };

  /** `path` as given to SQLite; ':memory:' and `file:` URIs are not checked. */
  constructor(path: string) {
    if (path === ':memory:' || path.startsWith('file:')) {
      this.#files = [];
      return;
    }
    const files: Identity[] = [];
    for (const p of [path, `${path}-wal`]) {
      const st = statSync(p, { throwIfNoEntry: false });
      if (st) files.push({ path: p, dev: st.dev, ino: st.ino });
    }
    this.#files = files;
  }

  /** Why the store cannot be written, once it cannot; undefined while it can. No I/O. */
  get lost(): string | undefined {
    return this.#lost;
  }

  /** Compares the identities again; returns why the file is lost, or undefined. */
  check(): string | undefined {
    if (this.#lost !== undefined) return this.#lost;
    for (const f of this.#files) {
      const st = statSync(f.path, { throwIfNoEntry: false });
      if (st === undefined) this.#lost = `the database file ${f.path} was deleted while the service ran`;
      else if (st.ino !== f.ino || st.dev !== f.dev) this.#lost = `the database file ${f.path} was replaced while the service ran`;
      if (this.#lost !== undefined) {
        this.#lost += '; what is written now would be lost at the next start, so nothing more is acknowledged: restart the service';
        break;
      }
    }
    return this.#lost;
  }

  /** check() at most once per event-loop turn, throwing StoreUnavailableError when lost. */
  verify(): void {
    if (this.#checkedThisTurn && this.#lost === undefined) return;
    this.#checkedThisTurn = true;
    setImmediate(this.#nextTurn);
    const lost = this.check();
    if (lost !== undefined) throw new StoreUnavailableError(lost);
  }
}
