/**
 * A small hand-written implementation of the events convention (docs/events.md) for one
 * tiny spec: owned tasks, created and finished (and reopened, from version 2 on), webhooks
 * with API subscriptions (or one configured by the operator; secrets rotated, deliveries
 * listed and replayed), Standard Webhooks signing
 * (with the `standardwebhooks` package, so the tester's own verification is held to the
 * library's), optionally CloudEvents, and an SSE stream resumed from Last-Event-ID.
 * It is plain node:http and shares nothing with src/serve: the tester is tested against an
 * implementation it has never seen. Faults make it deliberately wrong in one way each.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export const EVENTS_SPEC = `svcspec: 1
purpose: {name: Tasks, summary: Keeps tasks., users: [{name: owner, tasks: [keep a task]}]}
resources:
  task:
    plural: tasks
    owned: true
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      title: {type: string, required: true, minLength: 1, maxLength: 40}
      pin: {type: string, required: true, writeOnly: true, pattern: "^[0-9]{4}$"}
      status: {type: string, enum: [open, done], readOnly: true}
  note:
    plural: notes
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      text: {type: string, required: true, minLength: 1, maxLength: 40}
  label:
    plural: labels
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      name: {type: string, required: true, minLength: 1, maxLength: 40}
states:
  task: {field: status, initial: open, transitions: {finish: {from: open, to: done}, reopen: {from: done, to: open}}}
endpoints:
  task: [create, read, finish, reopen]
  note: [create, read, update]
  label: [create, read, delete]
authentication:
  schemes: {key: {type: apiKey, in: header, name: X-API-Key}}
  scopes: {tasks: Keep tasks., notes: Keep notes.}
  default: {scopes: [tasks]}
  public: [label.read]
  require: {note.create: [notes], note.read: [notes], note.update: [notes]}
events:
  webhooks: {subscriptions: api, path: /webhooks, signing: standard-webhooks, timeout: 5s}
  stream: {path: /events}
  retry: {attempts: 3, backoff: fixed, initialDelay: 1s}
  catalog:
    task.created: {on: task.created, payload: resource}
    task.finished: {on: task.finish, payload: [id, title, status]}
    task.reopened: {on: task.reopen, payload: [id, status], since: "2"}
    note.added: {on: note.created, payload: resource}
    note.changed: {on: note.updated, payload: resource}
    label.added: {on: label.created, payload: [id, name]}
    label.removed: {on: label.deleted, payload: [id]}
errors:
  shape: problem
  catalog:
    unauthenticated: {status: 401, title: Authentication required}
    forbidden: {status: 403, title: Forbidden}
    not-found: {status: 404, title: Not found}
    invalid-transition: {status: 409, title: Transition not allowed}
    validation-failed: {status: 422, title: Validation failed}
limits: {none: A test fixture.}
versioning:
  select: {header: API-Version}
  default: "1"
  versions:
    "1": {status: current}
    "2": {status: current}
`;

export interface Faults {
  /** Deliveries carry no webhook-id, webhook-timestamp nor webhook-signature. */
  readonly unsigned?: boolean;
  /** Deliveries are signed with another secret than the subscription's. */
  readonly wrongSignature?: boolean;
  /** This event is never emitted. */
  readonly drop?: string;
  /** The payload carries the writeOnly `pin`, or a field the payload does not declare. */
  readonly leak?: 'writeOnly' | 'extra';
  /** The stream sends only live events, whatever Last-Event-ID says. */
  readonly ignoreLastEventId?: boolean;
  /** A reconnected stream replays the whole log, whatever Last-Event-ID says. */
  readonly replayAll?: boolean;
  /** Every principal gets every task's event. */
  readonly leakToOthers?: boolean;
  /** Every principal gets every note's event, scopes or not. */
  readonly ignoreScopes?: boolean;
  /** Events are sent whatever their versions. */
  readonly ignoreVersions?: boolean;
  /** A refused delivery is not attempted again. */
  readonly noRetry?: boolean;
  /** A 410 from the receiver leaves the subscription enabled. */
  readonly ignoreGone?: boolean;
  /** A rotated secret replaces the old one at once, instead of signing beside it. */
  readonly dropOldSecret?: boolean;
  /** A replayed delivery goes out under a new webhook-id. */
  readonly replayNewId?: boolean;
  /** The stream serves every listener in version 1, whatever API-Version it asks for. */
  readonly streamInDefaultVersion?: boolean;
  /** Listed deliveries name another event type than the one they carried. */
  readonly wrongDeliveryType?: boolean;
}

export interface FakeOptions {
  /** API key -> principal. */
  readonly keys: Readonly<Record<string, string>>;
  /** A principal's scopes (default: all). */
  readonly scopes?: Readonly<Record<string, readonly string[]>>;
  readonly faults?: Faults;
  readonly cloudEvents?: boolean;
  /** How long after a receiver's answer a delivery is recorded as delivered (a slower store; not a fault). */
  readonly settleDelayMs?: number;
  /** An operator-configured subscription (subscriptions: config): it sees every event. */
  readonly operator?: { readonly url: string; readonly secret: string };
}

interface Task { id: number; title: string; pin: string; status: 'open' | 'done'; owner: string }
interface Item { id: number; [field: string]: unknown }
interface Logged { n: number; type: string; data: Record<string, unknown>; owner?: string; scope?: string; source: string; subject: number; timestamp: string }
/** `secrets`: the live ones, newest first; each signs (docs/events.md: 24 h of overlap after a rotation). */
interface Sub { id: string; url: string; events: string[]; secrets: string[]; owner?: string; version: string; status: 'enabled' | 'disabled'; createdAt: string; deliveries: Sent[] }
interface Sent { id: string; event: Logged; status: 'pending' | 'delivered' | 'dead'; attempts: number; createdAt: string; deliveredAt?: string; replays: number }
interface Listener { res: ServerResponse; owner: string; version: string }

const EVENTS: Record<string, { fields?: string[]; since?: string }> = {
  'task.created': {},
  'task.finished': { fields: ['id', 'title', 'status'] },
  'task.reopened': { fields: ['id', 'status'], since: '2' },
  'note.added': {},
  'note.changed': {},
  'label.added': { fields: ['id', 'name'] },
  'label.removed': { fields: ['id'] },
};

/** The other resources: plain records, who may read them (a scope, or anyone) and their event. */
const PLAIN: Record<string, { field: string; scope?: string; event: string; updated?: string; deleted?: string }> = {
  notes: { field: 'text', scope: 'notes', event: 'note.added', updated: 'note.changed' },
  labels: { field: 'name', event: 'label.added', deleted: 'label.removed' },
};

export async function startEventsService(options: FakeOptions): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const faults = options.faults ?? {};
  const tasks = new Map<number, Task>();
  const log: Logged[] = [];
  const subs = new Map<string, Sub>();
  if (options.operator) subs.set('op', { id: 'op', url: options.operator.url, events: [], secrets: [options.operator.secret], version: '1', status: 'enabled', createdAt: new Date().toISOString(), deliveries: [] });
  const listeners = new Set<Listener>();
  let nextTask = 1;
  let nextSub = 1;
  let nextDelivery = 1;

  const view = (t: Task) => ({ id: t.id, title: t.title, status: t.status });
  const inVersion = (type: string, version: string) => faults.ignoreVersions || !EVENTS[type].since || Number(version) >= Number(EVENTS[type].since);
  const plain = new Map<string, Map<number, Item>>(Object.keys(PLAIN).map((p) => [p, new Map()]));
  let nextPlain = 1;
  const may = (who: string, scope: string | undefined) => !scope || !options.scopes?.[who] || options.scopes[who].includes(scope);
  /** An operator's subscription (no principal) sees everything; a principal what it may read. */
  const sees = (who: string | undefined, e: Logged) => {
    if (who === undefined) return true;
    if (e.owner !== undefined) return who === e.owner || faults.leakToOthers === true;
    return may(who, e.scope) || faults.ignoreScopes === true;
  };
  const frame = (e: Logged) => `id: evt_${e.n}\nevent: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`;

  function emit(type: string, record: Record<string, unknown> & { id: number }, who: { owner?: string; scope?: string; source: string }, pin?: string): void {
    if (faults.drop === type) return;
    const fields = EVENTS[type].fields;
    let data = fields ? Object.fromEntries(fields.filter((f) => f in record).map((f) => [f, record[f]])) : record;
    if (faults.leak === 'writeOnly' && pin) data = { ...data, pin };
    if (faults.leak === 'extra') data = { ...data, internalNote: 'x' };
    const e: Logged = { n: log.length + 1, type, data, ...who, subject: record.id, timestamp: new Date().toISOString() };
    log.push(e);
    for (const l of listeners) if (sees(l.owner, e) && inVersion(type, l.version)) l.res.write(frame(e));
    for (const s of subs.values()) if (s.status === 'enabled' && (!s.events.length || s.events.includes(type)) && sees(s.owner, e) && inVersion(type, s.version)) {
      const sent: Sent = { id: `dlv_${nextDelivery++}`, event: e, status: 'pending', attempts: 0, createdAt: new Date().toISOString(), replays: 0 };
      s.deliveries.unshift(sent);
      void deliver(s, sent);
    }
  }

  async function deliver(s: Sub, sent: Sent, attempt = 1): Promise<void> {
    const e = sent.event;
    const id = faults.replayNewId && sent.replays ? `evt_${e.n}${sent.replays}` : `evt_${e.n}`;
    const body = options.cloudEvents
      ? JSON.stringify({ specversion: '1.0', id, source: e.source, type: e.type, subject: String(e.subject), time: e.timestamp, datacontenttype: 'application/json', data: e.data })
      : JSON.stringify({ type: e.type, timestamp: e.timestamp, data: e.data });
    const headers: Record<string, string> = { 'content-type': options.cloudEvents ? 'application/cloudevents+json' : 'application/json' };
    if (!faults.unsigned) {
      const now = new Date();
      const secrets = faults.wrongSignature ? [`whsec_${randomBytes(24).toString('base64')}`] : s.secrets;
      Object.assign(headers, { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, now, body)).join(' ') });
    }
    sent.attempts++;
    const status = await fetch(s.url, { method: 'POST', headers, body, redirect: 'manual' }).then(async (r) => (await r.arrayBuffer(), r.status)).catch(() => 0);
    if (status >= 200 && status < 300) {
      if (options.settleDelayMs) await new Promise((resolve) => setTimeout(resolve, options.settleDelayMs));
      sent.status = 'delivered';
      sent.deliveredAt = new Date().toISOString();
      return;
    }
    if (status === 410 && !faults.ignoreGone) s.status = 'disabled';
    // The spec's policy: 3 attempts, fixed 1 s, the wait drawn from its upper half.
    else if (attempt < 3 && !faults.noRetry) setTimeout(() => void deliver(s, sent, attempt + 1), 500 + Math.random() * 500).unref();
    else sent.status = 'dead';
  }

  const server = createServer(async (req, res) => {
    try {
      await route(req, res);
    } catch (error) {
      send(res, 500, { title: 'Internal error', status: 500, code: 'internal', detail: String(error) });
    }
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const parts = url.pathname.split('/').filter(Boolean);
    const method = req.method ?? 'GET';
    const isPublic = method === 'GET' && parts[0] === 'labels' && parts.length === 2;
    const key = req.headers['x-api-key'];
    const who = key === undefined && isPublic ? '' : options.keys[String(key ?? '')];
    if (who === undefined) return send(res, 401, problem(401, 'unauthenticated', 'Authentication required'), { 'www-authenticate': 'ApiKey header="X-API-Key"' });
    const version = String(req.headers['api-version'] ?? '1');
    if (parts[0] === 'tasks') {
      if (method === 'POST' && parts.length === 1) {
        const body = await json(req);
        const errors = [];
        if (typeof body?.title !== 'string' || !body.title) errors.push({ pointer: '/title', message: 'required' });
        if (typeof body?.pin !== 'string' || !/^[0-9]{4}$/.test(body.pin)) errors.push({ pointer: '/pin', message: 'required' });
        if (errors.length) return send(res, 422, { ...problem(422, 'validation-failed', 'Validation failed'), errors });
        const t: Task = { id: nextTask++, title: body.title, pin: body.pin, status: 'open', owner: who };
        tasks.set(t.id, t);
        emit('task.created', view(t), { owner: who, source: '/tasks' }, t.pin);
        return send(res, 201, view(t), { location: `/tasks/${t.id}` });
      }
      const t = tasks.get(Number(parts[1]));
      if (!t || t.owner !== who) return send(res, 404, problem(404, 'not-found', 'Not found'));
      if (method === 'GET' && parts.length === 2) return send(res, 200, view(t));
      const move = { finish: ['open', 'done', 'task.finished'], reopen: ['done', 'open', 'task.reopened'] }[parts[2] as 'finish' | 'reopen'];
      if (method === 'POST' && move) {
        if (t.status !== move[0]) return send(res, 409, problem(409, 'invalid-transition', 'Transition not allowed'));
        t.status = move[1] as Task['status'];
        emit(move[2], view(t), { owner: who, source: '/tasks' }, t.pin);
        return send(res, 200, view(t));
      }
    }
    const kind = PLAIN[parts[0]];
    if (kind) {
      if (!may(who, kind.scope)) return send(res, 403, problem(403, 'forbidden', 'Forbidden'));
      const items = plain.get(parts[0]) as Map<number, Item>;
      if (method === 'POST' && parts.length === 1) {
        const body = await json(req);
        if (typeof body?.[kind.field] !== 'string' || !body[kind.field]) return send(res, 422, { ...problem(422, 'validation-failed', 'Validation failed'), errors: [{ pointer: `/${kind.field}`, message: 'required' }] });
        const item: Item = { id: nextPlain++, [kind.field]: body[kind.field] };
        items.set(item.id, item);
        emit(kind.event, item, { ...(kind.scope ? { scope: kind.scope } : {}), source: `/${parts[0]}` });
        return send(res, 201, item, { location: `/${parts[0]}/${item.id}` });
      }
      const item = items.get(Number(parts[1]));
      if (!item) return send(res, 404, problem(404, 'not-found', 'Not found'));
      const who2 = { ...(kind.scope ? { scope: kind.scope } : {}), source: `/${parts[0]}` };
      if (method === 'GET' && parts.length === 2) return send(res, 200, item);
      if (method === 'PATCH' && parts.length === 2 && kind.updated) {
        const body = await json(req);
        if (body?.[kind.field] !== undefined) {
          if (typeof body[kind.field] !== 'string' || !body[kind.field]) return send(res, 422, { ...problem(422, 'validation-failed', 'Validation failed'), errors: [{ pointer: `/${kind.field}`, message: 'must be text' }] });
          item[kind.field] = body[kind.field];
        }
        emit(kind.updated, item, who2);
        return send(res, 200, item);
      }
      if (method === 'DELETE' && parts.length === 2 && kind.deleted) {
        items.delete(item.id);
        emit(kind.deleted, item, who2);
        res.writeHead(204).end();
        return;
      }
    }
    if (parts[0] === 'webhooks' && !options.operator) {
      const mine = [...subs.values()].filter((s) => s.owner === who);
      const shown = (s: Sub) => ({ id: s.id, url: s.url, events: s.events, status: s.status, apiVersion: s.version, createdAt: s.createdAt });
      if (method === 'POST' && parts.length === 1) {
        const body = await json(req);
        const errors = [];
        if (typeof body?.url !== 'string' || !/^https?:\/\//.test(body.url)) errors.push({ pointer: '/url', message: 'must be an http(s) URL' });
        const events: unknown[] = Array.isArray(body?.events) ? body.events : [];
        events.forEach((e, i) => !(typeof e === 'string' && e in EVENTS && inVersion(e, version)) && errors.push({ pointer: `/events/${i}`, message: 'unknown event' }));
        if (errors.length) return send(res, 422, { ...problem(422, 'validation-failed', 'Validation failed'), errors });
        const s: Sub = { id: `sub_${nextSub++}`, url: body.url, events: events as string[], secrets: [newSecret()], owner: who, version, status: 'enabled', createdAt: new Date().toISOString(), deliveries: [] };
        subs.set(s.id, s);
        return send(res, 201, { ...shown(s), secret: s.secrets[0] }, { location: `/webhooks/${s.id}` });
      }
      if (method === 'GET' && parts.length === 1) return send(res, 200, { items: mine.map(shown) });
      const s = mine.find((x) => x.id === parts[1]);
      if (!s) return send(res, 404, problem(404, 'not-found', 'Not found'));
      if (method === 'GET' && parts.length === 2) return send(res, 200, shown(s));
      if (method === 'POST' && parts[2] === 'rotate-secret' && parts.length === 3) {
        s.secrets = faults.dropOldSecret ? [newSecret()] : [newSecret(), s.secrets[0]];
        return send(res, 200, { ...shown(s), secret: s.secrets[0] });
      }
      const listed = (d: Sent) => ({ id: d.id, eventId: `evt_${d.event.n}`, type: faults.wrongDeliveryType ? 'task.nothing' : d.event.type, status: d.status, attempts: d.attempts, createdAt: d.createdAt, ...(d.deliveredAt ? { deliveredAt: d.deliveredAt } : {}) });
      if (method === 'GET' && parts[2] === 'deliveries' && parts.length === 3) {
        const status = url.searchParams.get('status');
        return send(res, 200, { items: s.deliveries.filter((d) => !status || d.status === status).slice(0, 100).map(listed) });
      }
      const d = parts[2] === 'deliveries' && parts[4] === 'replay' && parts.length === 5 ? s.deliveries.find((x) => x.id === parts[3]) : undefined;
      if (method === 'POST' && d) {
        d.status = 'pending';
        d.replays++;
        setTimeout(() => void deliver(s, d), 10).unref();
        return send(res, 202, listed(d));
      }
      if (method === 'DELETE' && parts.length === 2) {
        subs.delete(s.id);
        res.writeHead(204).end();
        return;
      }
    }
    if (parts[0] === 'events' && method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write('retry: 3000\n\n');
      const last = /^evt_(\d+)$/.exec(String(req.headers['last-event-id'] ?? url.searchParams.get('lastEventId') ?? ''));
      if (last && !faults.ignoreLastEventId) for (const e of log.slice(faults.replayAll ? 0 : Number(last[1]))) if (sees(who, e) && inVersion(e.type, version)) res.write(frame(e));
      const l: Listener = { res, owner: who, version: faults.streamInDefaultVersion ? '1' : version };
      listeners.add(l);
      req.on('close', () => listeners.delete(l));
      return;
    }
    return send(res, 404, problem(404, 'not-found', 'Not found'));
  }

  const baseUrl = await new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
  return {
    baseUrl,
    close: async () => {
      for (const l of listeners) l.res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function problem(status: number, code: string, title: string) {
  return { type: 'about:blank', title, status, code };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers }).end(JSON.stringify(body));
}

async function json(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
