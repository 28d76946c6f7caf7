/**
 * Events of the PostgreSQL store (src/store/events.ts): the event log, webhook subscriptions
 * and deliveries, in the tables of src/store/postgres-schema.ts.
 *
 * The log is read by position (`seq > cursor`), so a position must never be seen before a
 * lower one that is still to commit: a reader would step over it for good. A sequence alone
 * does not promise that (two transactions take 5 and 6, and 6 commits first), so a write
 * appends its events under a transaction-level advisory lock held until its COMMIT: seqs are
 * then handed out in commit order. Only the end of a write that has events waits on it.
 * The append also NOTIFYs (delivered at COMMIT, never for a rollback): every instance
 * LISTENing wakes its streams and its delivery worker at once instead of at its next poll.
 *
 * Deliveries are claimed with `FOR UPDATE SKIP LOCKED` and leased (next_attempt_at moved
 * past the attempt's time-out) in one statement: two instances never claim one delivery at
 * once, and one that dies mid-attempt leaves it due again when the lease runs out.
 */
import type { Sql, TransactionSql } from 'postgres';
import type { ClaimedDelivery, DeliveryRecord, EventStore, NewEvent } from './events.ts';
import { DELIVERY_COLUMNS, EVENT_COLUMNS, SUBSCRIPTION_COLUMNS, toDelivery, toEvent, toSubscription, type DeliveryRow, type EventRow, type SubscriptionRow } from './events-rows.ts';
import { LOCK_EVENTS } from './postgres-schema.ts';

/** The channel the appends NOTIFY on; the payload is the schema, so schemas on one database do not wake each other's readers. */
export const EVENTS_CHANNEL = 'svcspec_events';





/**
 * Appends a write's events inside its transaction (see the header); call it last, just before
 * COMMIT. The lock, the inserts and the NOTIFY are sent together, pipelined on the
 * transaction's connection (run in this order, one round trip rather than one each): the lock
 * is held from the first of them to COMMIT, so the fewer round trips it spans, the sooner the
 * next writer with events gets it.
 */
export async function appendEvents(tx: TransactionSql, schema: string, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const send = (text: string, params: unknown[]) => tx.unsafe(text, params as never[], { prepare: true }).execute();
  await Promise.all([
    send('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_EVENTS, schema]),
    ...events.map((e) => send('INSERT INTO events (name, resource, record_id, owner, payloads, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [e.name, e.resource, e.recordId, e.owner ?? null, e.payloadsJson ?? JSON.stringify(e.payloads), e.createdAt])),
    send('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, schema]),
  ]);
}

export function postgresEvents(sql: Sql, run: <T>(work: () => Promise<T>) => Promise<T>): EventStore {
  const q = <T>(text: string, params: unknown[] = [], on: Sql | TransactionSql = sql) => on.unsafe(text, params as never[], { prepare: true }) as unknown as Promise<T[]>;
  const delivery = async (id: string, on: Sql | TransactionSql = sql): Promise<DeliveryRecord | undefined> => {
    const [row] = await q<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1`, [id], on);
    return row && toDelivery(row);
  };
  return {
    after: (seq, limit) => run(async () => (await q<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE seq > $1 ORDER BY seq LIMIT $2`, [seq, limit])).map(toEvent)),
    latest: () => run(async () => Number((await q<{ seq: string }>('SELECT coalesce(max(seq), 0) AS seq FROM events'))[0].seq)),
    addSubscription: (x) => run(async () => {
      const [row] = await q<{ created_seq: string }>(`INSERT INTO webhook_subscriptions (${SUBSCRIPTION_COLUMNS})
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, (SELECT coalesce(max(seq), 0) FROM events), $11, $12) RETURNING created_seq`, [
        x.id, x.url, JSON.stringify(x.events), x.description ?? null, x.status, x.apiVersion ?? null, x.principal ?? null,
        x.scopes ? JSON.stringify(x.scopes) : null, JSON.stringify(x.secrets), x.createdAt, x.disabledReason ?? null, x.credential ?? null,
      ]);
      return { ...x, createdSeq: Number(row.created_seq) };
    }),
    getSubscription: (id) => run(async () => {
      const [row] = await q<SubscriptionRow>(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE id = $1`, [id]);
      return row && toSubscription(row);
    }),
    listSubscriptions: (principal) => run(async () => {
      const rows = principal === undefined
        ? await q<SubscriptionRow>(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions ORDER BY created_at, added`)
        : await q<SubscriptionRow>(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE principal = $1 ORDER BY created_at, added`, [principal]);
      return rows.map(toSubscription);
    }),
    changeSubscription: (id, change) => run(async () => {
      const reason = change.disabledReason ?? null;
      const r = await sql.unsafe(`UPDATE webhook_subscriptions SET status = coalesce($1, status), secrets = coalesce($2, secrets),
        disabled_reason = coalesce($3, disabled_reason) WHERE id = $4`, [change.status ?? null, change.secrets ? JSON.stringify(change.secrets) : null, reason, id], { prepare: true });
      return r.count === 1;
    }),
    removeSubscription: (id) => run(() => sql.begin(async (tx) => {
      await q('DELETE FROM webhook_deliveries WHERE subscription_id = $1', [id], tx);
      return (await tx.unsafe('DELETE FROM webhook_subscriptions WHERE id = $1', [id], { prepare: true })).count === 1;
    })),
    dispatched: () => run(async () => Number((await q<{ seq: string }>("SELECT seq FROM event_cursor WHERE name = 'dispatch'"))[0]?.seq ?? 0)),
    fanOut: (from, to, deliveries) => run(() => sql.begin(async (tx) => {
      // The cursor's row is locked: a second instance fanning out the same events waits, then finds the cursor moved.
      const [at] = await q<{ seq: string }>("SELECT seq FROM event_cursor WHERE name = 'dispatch' FOR UPDATE", [], tx);
      if (Number(at?.seq ?? 0) !== from) return false;
      if (deliveries.length) {
        await q(`INSERT INTO webhook_deliveries (id, subscription_id, event_seq, status, attempts, next_attempt_at, created_at)
          SELECT id, sub, seq, 'pending', 0, at, at FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) AS d(id, sub, seq, at)
          ON CONFLICT (subscription_id, event_seq) DO NOTHING`, [deliveries.map((d) => d.id), deliveries.map((d) => d.subscriptionId), deliveries.map((d) => d.eventSeq), deliveries.map((d) => d.createdAt)], tx);
      }
      await q("UPDATE event_cursor SET seq = $1 WHERE name = 'dispatch'", [to], tx);
      return true;
    })),
    claimDue: (now, limit, leaseUntil) => run(async () => {
      // Claimed and leased in one statement; rows another instance is claiming are skipped, not waited for.
      // Ties (one event's deliveries to several subscriptions) by id: a claim cut by its LIMIT takes the same ones every time.
      const rows = await q<DeliveryRow & { due_at: string } & { e: EventRow } & { s: SubscriptionRow }>(`WITH due AS (
          SELECT d.id, d.next_attempt_at AS due_at FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
          WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND s.status = 'enabled'
          ORDER BY d.next_attempt_at, d.event_seq, d.id LIMIT $2 FOR UPDATE OF d SKIP LOCKED),
        leased AS (UPDATE webhook_deliveries w SET next_attempt_at = $3 FROM due WHERE w.id = due.id RETURNING w.*, due.due_at)
        SELECT l.id, l.subscription_id, l.event_seq, e.name AS event_name, l.status, l.attempts, l.next_attempt_at, l.last_status, l.last_error, l.created_at, l.delivered_at, l.due_at,
          row_to_json(e.*)::text AS e, row_to_json(s.*)::text AS s
        FROM leased l JOIN events e ON e.seq = l.event_seq JOIN webhook_subscriptions s ON s.id = l.subscription_id
        ORDER BY l.due_at, l.event_seq, l.id`, [now, limit, leaseUntil]);
      return rows.map((r): ClaimedDelivery => {
        const e = JSON.parse(r.e as unknown as string) as EventRow;
        const s = JSON.parse(r.s as unknown as string) as SubscriptionRow;
        return { delivery: toDelivery(r), event: toEvent(e), subscription: toSubscription(s) };
      });
    }),
    nextDue: () => run(async () => {
      const [row] = await q<{ due: string | null }>(`SELECT min(d.next_attempt_at) AS due FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.status = 'pending' AND s.status = 'enabled'`);
      return row.due === null ? undefined : Number(row.due);
    }),
    settle: (id, c) => run(async () => {
      await q('UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3, last_status = $4, last_error = $5, delivered_at = $6 WHERE id = $7', [
        c.status, c.attempts, c.nextAttemptAt ?? null, c.lastStatus ?? null, c.lastError ?? null, c.deliveredAt ?? null, id,
      ]);
    }),
    getDelivery: (id) => run(() => delivery(id)),
    listDeliveries: (subscriptionId, { status, limit }) => run(async () => {
      const rows = status === undefined
        ? await q<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY created_at DESC, event_seq DESC LIMIT $2`, [subscriptionId, limit])
        : await q<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE subscription_id = $1 AND status = $2 ORDER BY created_at DESC, event_seq DESC LIMIT $3`, [subscriptionId, status, limit]);
      return rows.map(toDelivery);
    }),
    replay: (id, now) => run(async () => {
      const r = await sql.unsafe(`UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $1, delivered_at = NULL WHERE id = $2`, [now, id], { prepare: true });
      return r.count === 1 ? delivery(id) : undefined;
    }),
  };
}
