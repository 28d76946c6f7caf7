/**
 * Events of the SQLite store (src/store/events.ts), in tables beside the resource tables:
 *
 *   events                  seq AUTOINCREMENT (never reused), name, resource, record_id,
 *                           owner, payloads (JSON by version), created_at
 *   webhook_subscriptions   id, url, events JSON, …, secrets JSON, created_seq
 *   webhook_deliveries      id, subscription_id, event_seq UNIQUE per subscription, status,
 *                           attempts, next_attempt_at (the lease, while in flight), …
 *   event_cursor            the last event fanned out into deliveries
 *
 * Events are appended by the record writes (sqlite.ts) inside their transactions through
 * `append`. Subscription secrets are kept as they are: the service needs them to sign
 * (unlike credential secrets, which it only verifies, and keeps hashed).
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { ClaimedDelivery, DeliveryRecord, EventStore, NewEvent, SubscriptionRecord } from './events.ts';
import { DELIVERY_COLUMNS, EVENT_COLUMNS, SUBSCRIPTION_COLUMNS, toDelivery, toEvent, toSubscription, type DeliveryRow, type EventRow, type SubscriptionRow } from './events-rows.ts';
import { byLimit, transaction } from './sqlite-sql.ts';

export const EVENTS_DDL = [
  `CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, resource TEXT NOT NULL, record_id TEXT NOT NULL,
    owner TEXT, payloads TEXT NOT NULL, created_at INTEGER NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS webhook_subscriptions (
    id TEXT PRIMARY KEY, url TEXT NOT NULL, events TEXT NOT NULL, description TEXT, status TEXT NOT NULL,
    api_version TEXT, principal TEXT, scopes TEXT, secrets TEXT NOT NULL, created_at INTEGER NOT NULL,
    created_seq INTEGER NOT NULL, disabled_reason TEXT
  )`,
  `CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id TEXT PRIMARY KEY, subscription_id TEXT NOT NULL, event_seq INTEGER NOT NULL, status TEXT NOT NULL,
    attempts INTEGER NOT NULL, next_attempt_at INTEGER, last_status INTEGER, last_error TEXT,
    created_at INTEGER NOT NULL, delivered_at INTEGER,
    UNIQUE (subscription_id, event_seq)
  )`,
  "CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'",
  'CREATE INDEX IF NOT EXISTS webhook_deliveries_by_subscription ON webhook_deliveries (subscription_id, created_at)',
  'CREATE TABLE IF NOT EXISTS event_cursor (name TEXT PRIMARY KEY, seq INTEGER NOT NULL)',
];




/**
 * The credential column came after store schema 3 shipped; it is added to a file that lacks
 * it (an added nullable column: older svcspec versions, which name their columns, read the
 * file as before, so the schema version stays).
 */
function addCredentialColumn(db: DatabaseSync): void {
  const columns = db.prepare('PRAGMA table_info(webhook_subscriptions)').all() as { name: string }[];
  if (columns.some((c) => c.name === 'credential')) return;
  try {
    db.exec('ALTER TABLE webhook_subscriptions ADD COLUMN credential TEXT');
  } catch (error) {
    // Another process opening the same file added it first.
    if (!/duplicate column/i.test((error as Error).message)) throw error;
  }
}


/** The statement that appends one event; run inside the record write's transaction. */
export function eventAppender(db: DatabaseSync): (events: readonly NewEvent[]) => void {
  const insert = db.prepare('INSERT INTO events (name, resource, record_id, owner, payloads, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const remove = db.prepare('DELETE FROM events WHERE seq = ?');
  // All of them or none: one that fails takes those before it back out (a writer without a
  // savepoint counts on it, ./sqlite.ts #appendAfter); if even that fails, the transaction
  // is rolled back whole, which the group commit answers by failing every work in it.
  return (events) => {
    let written: (number | bigint)[] | undefined;
    try {
      for (const e of events) {
        const seq = insert.run(e.name, e.resource, e.recordId, e.owner ?? null, e.payloadsJson ?? JSON.stringify(e.payloads), e.createdAt).lastInsertRowid;
        if (events.length > 1) (written ??= []).push(seq);
      }
    } catch (error) {
      if (written && db.isTransaction) {
        try {
          for (const seq of written) remove.run(seq);
        } catch {
          try {
            db.exec('ROLLBACK');
          } catch {
            // Rolled back already by SQLite: nothing of it is committed either way.
          }
        }
      }
      throw error;
    }
  };
}

/** A claimable delivery with its event, in the order of claiming (see `claimable`). */
type ClaimRow = DeliveryRow & { e_resource: string; e_record_id: string; e_owner: string | null; e_payloads: string; e_created_at: number };

/**
 * `grouped` runs a write in the store's next group transaction (src/store/sqlite-commit.ts):
 * fan-outs, claims and settlements of one turn then share one commit (one fsync at
 * durability full) with each other and with that turn's inserts, instead of one each.
 * None of them needs a savepoint (the group's rule: at most one write that can be refused,
 * first): a settlement and a claim's lease are one statement each, and a fan-out stopped
 * half-way leaves deliveries that the next fan-out of those events skips (ON CONFLICT DO
 * NOTHING), its cursor unmoved.
 */
export function sqliteEvents(db: DatabaseSync, open: () => void, grouped: <T>(work: () => T) => Promise<T> = async (work) => transaction(db, work)): EventStore {
  addCredentialColumn(db);
  const p = (sql: string): StatementSync => db.prepare(sql);
  const s = {
    after: byLimit(db, (n) => `SELECT ${EVENT_COLUMNS} FROM events WHERE seq > ? ORDER BY seq LIMIT ${n}`),
    latest: p('SELECT coalesce(max(seq), 0) AS seq FROM events'),
    addSubscription: p(`INSERT INTO webhook_subscriptions (${SUBSCRIPTION_COLUMNS})
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) FROM events), ?, ?) RETURNING created_seq`),
    getSubscription: p(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE id = ?`),
    allSubscriptions: p(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions ORDER BY created_at, rowid`),
    subscriptionsOf: p(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE principal = ? ORDER BY created_at, rowid`),
    changeSubscription: p(`UPDATE webhook_subscriptions SET status = coalesce(?, status), secrets = coalesce(?, secrets),
      disabled_reason = CASE WHEN ? IS NULL THEN disabled_reason ELSE ? END WHERE id = ?`),
    removeSubscription: p('DELETE FROM webhook_subscriptions WHERE id = ?'),
    removeDeliveriesOf: p('DELETE FROM webhook_deliveries WHERE subscription_id = ?'),
    cursor: p("SELECT seq FROM event_cursor WHERE name = 'dispatch'"),
    setCursor: p("INSERT INTO event_cursor (name, seq) VALUES ('dispatch', ?) ON CONFLICT (name) DO UPDATE SET seq = excluded.seq"),
    addDelivery: p(`INSERT INTO webhook_deliveries (id, subscription_id, event_seq, status, attempts, next_attempt_at, created_at)
      VALUES (?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT (subscription_id, event_seq) DO NOTHING`),
    // What a claim takes, oldest due first, with its event: one read, rather than one of the
    // delivery, its event and its subscription per delivery after the lease. Ties in the order
    // deliveries were added (rowid), which is their events' order (fan-outs add them event by
    // event, from a cursor that only moves on) and which the due index holds already: ordered
    // by event_seq, they were sorted in a temporary b-tree at every claim.
    claimable: byLimit(db, (n) => `SELECT d.id, d.subscription_id, d.event_seq, e.name AS event_name, d.status, d.attempts, d.next_attempt_at, d.last_status, d.last_error,
      d.created_at, d.delivered_at, e.resource AS e_resource, e.record_id AS e_record_id, e.owner AS e_owner, e.payloads AS e_payloads, e.created_at AS e_created_at
      FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id JOIN events e ON e.seq = d.event_seq
      WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND s.status = 'enabled' ORDER BY d.next_attempt_at, d.rowid LIMIT ${n}`),
    // The claim's deliveries leased in one statement, their ids a JSON array.
    lease: p('UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id IN (SELECT value FROM json_each(?))'),
    // Joined as `claimable` is: a delivery whose event row is gone (the log trimmed by hand) is
    // never claimed, so it is never due either; else the worker would wake at once, forever.
    nextDue: p(`SELECT min(d.next_attempt_at) AS due FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
      JOIN events e ON e.seq = d.event_seq WHERE d.status = 'pending' AND s.status = 'enabled'`),
    delivery: p(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ?`),
    settle: p(`UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_status = ?, last_error = ?, delivered_at = ? WHERE id = ?`),
    deliveriesOf: byLimit(db, (n) => `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE subscription_id = ? ORDER BY created_at DESC, event_seq DESC LIMIT ${n}`),
    deliveriesOfWith: byLimit(db, (n) => `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE subscription_id = ? AND status = ? ORDER BY created_at DESC, event_seq DESC LIMIT ${n}`),
    replay: p(`UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, delivered_at = NULL WHERE id = ?`),
  };
  const delivery = (id: string): DeliveryRecord | undefined => {
    const row = s.delivery.get(id) as DeliveryRow | undefined;
    return row && toDelivery(row);
  };
  return {
    async after(seq, limit) {
      open();
      return (s.after(limit).all(seq) as unknown as EventRow[]).map(toEvent);
    },
    async latest() {
      open();
      return Number((s.latest.get() as { seq: number }).seq);
    },
    async addSubscription(x) {
      open();
      const row = s.addSubscription.get(
        x.id, x.url, JSON.stringify(x.events), x.description ?? null, x.status, x.apiVersion ?? null, x.principal ?? null,
        x.scopes ? JSON.stringify(x.scopes) : null, JSON.stringify(x.secrets), x.createdAt, x.disabledReason ?? null, x.credential ?? null,
      ) as { created_seq: number };
      return { ...x, createdSeq: row.created_seq };
    },
    async getSubscription(id) {
      open();
      const row = s.getSubscription.get(id) as SubscriptionRow | undefined;
      return row && toSubscription(row);
    },
    async listSubscriptions(principal) {
      open();
      const rows = (principal === undefined ? s.allSubscriptions.all() : s.subscriptionsOf.all(principal)) as unknown as SubscriptionRow[];
      return rows.map(toSubscription);
    },
    async changeSubscription(id, change) {
      open();
      const reason = change.disabledReason ?? null;
      const r = s.changeSubscription.run(change.status ?? null, change.secrets ? JSON.stringify(change.secrets) : null, reason, reason, id);
      return Number(r.changes) === 1;
    },
    async removeSubscription(id) {
      open();
      return transaction(db, () => {
        s.removeDeliveriesOf.run(id);
        return Number(s.removeSubscription.run(id).changes) === 1;
      });
    },
    async dispatched() {
      open();
      return Number((s.cursor.get() as { seq: number } | undefined)?.seq ?? 0);
    },
    async fanOut(from, to, deliveries) {
      open();
      return grouped(() => {
        const at = Number((s.cursor.get() as { seq: number } | undefined)?.seq ?? 0);
        if (at !== from) return false;
        for (const d of deliveries) s.addDelivery.run(d.id, d.subscriptionId, d.eventSeq, d.createdAt, d.createdAt);
        s.setCursor.run(to);
        return true;
      });
    },
    async claimDue(now, limit, leaseUntil) {
      open();
      if (limit <= 0) return [];
      return grouped(() => {
        const rows = s.claimable(limit).all(now) as unknown as ClaimRow[];
        if (rows.length === 0) return [];
        s.lease.run(leaseUntil, JSON.stringify(rows.map((r) => r.id)));
        // A claim's deliveries share few subscriptions (often one): each is read once.
        const subscriptions = new Map<string, SubscriptionRecord | undefined>();
        const claimed: ClaimedDelivery[] = [];
        for (const r of rows) {
          let subscription = subscriptions.get(r.subscription_id);
          if (!subscriptions.has(r.subscription_id)) {
            const row = s.getSubscription.get(r.subscription_id) as SubscriptionRow | undefined;
            subscriptions.set(r.subscription_id, (subscription = row && toSubscription(row)));
          }
          if (!subscription) continue;
          const event = toEvent({ seq: r.event_seq, name: r.event_name, resource: r.e_resource, record_id: r.e_record_id, owner: r.e_owner, payloads: r.e_payloads, created_at: r.e_created_at });
          claimed.push({ delivery: toDelivery({ ...r, next_attempt_at: leaseUntil }), event, subscription });
        }
        return claimed;
      });
    },
    async nextDue() {
      open();
      const due = (s.nextDue.get() as { due: number | null }).due;
      return due === null ? undefined : Number(due);
    },
    async settle(id, c) {
      open();
      await grouped(() => s.settle.run(c.status, c.attempts, c.nextAttemptAt ?? null, c.lastStatus ?? null, c.lastError ?? null, c.deliveredAt ?? null, id));
    },
    async getDelivery(id) {
      open();
      return delivery(id);
    },
    async listDeliveries(subscriptionId, { status, limit }) {
      open();
      const rows = (status === undefined ? s.deliveriesOf(limit).all(subscriptionId) : s.deliveriesOfWith(limit).all(subscriptionId, status)) as unknown as DeliveryRow[];
      return rows.map(toDelivery);
    },
    async replay(id, now) {
      open();
      if (Number(s.replay.run(now, id).changes) !== 1) return undefined;
      return delivery(id);
    },
  };
}
