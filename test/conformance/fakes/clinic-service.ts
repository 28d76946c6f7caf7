/**
 * A small hand-written implementation of a clinic spec with domain rules (issue #14): a
 * unique email (in any case), one open appointment per patient and slot, a rule across
 * fields (a slot ends after it starts), managed fields (a chart number from a sequence, time
 * stamps, the creating principal, a computed `free`), guards that read the referenced
 * records and a count (a blocked patient, a visit limit, a full slot), effects on a related
 * record (confirming takes a seat), and what deleting a referenced record does (refuse,
 * cascade). Plain node:http sharing nothing with src/serve: the tester is tested against an
 * implementation it has never seen. Faults make it wrong in one way each.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const CLINIC_SPEC = `svcspec: 1
purpose: {name: Clinic, summary: Books patients into appointment slots., users: [{name: desk, tasks: [book an appointment]}]}
resources:
  patient:
    plural: patients
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      name: {type: string, required: true, minLength: 1, maxLength: 40}
      email: {type: string, format: email, maxLength: 80, required: true}
      status: {type: string, enum: [active, blocked], readOnly: true}
      maxVisits: {type: integer, minimum: 0, maximum: 10, default: 3}
      chartNumber: {type: string, readOnly: true, managed: {sequence: 'PT-{n:5}'}}
      createdAt: {type: string, format: date-time, readOnly: true, managed: created-at}
      updatedAt: {type: string, format: date-time, readOnly: true, managed: updated-at}
      createdBy: {type: string, readOnly: true, managed: created-by}
    unique:
      - {fields: [email], ignoreCase: true, error: email-taken}
  slot:
    plural: slots
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      start: {type: integer, minimum: 0, maximum: 1000, required: true}
      end: {type: integer, minimum: 0, maximum: 1000, required: true}
      seats: {type: integer, minimum: 0, maximum: 20, default: 1}
      free: {type: integer, minimum: 0, readOnly: true, managed: {expr: self.seats, on: create}}
    rules:
      - {rule: self.end > self.start, error: validation-failed, field: end, message: A slot ends after it starts.}
  appointment:
    plural: appointments
    id: {field: id, assigned: sequence}
    fields:
      id: {type: integer, readOnly: true}
      patient: {type: ref, resource: patient, required: true, onDelete: {refuse: patient-has-appointments}}
      slot: {type: ref, resource: slot, required: true, onDelete: cascade}
      status: {type: string, enum: [booked, confirmed, cancelled], readOnly: true}
      confirmedAt: {type: string, format: date-time, readOnly: true}
    unique:
      - {fields: [patient, slot], where: {status: [booked, confirmed]}, error: already-booked}
    onCreate:
      counts:
        open: {resource: appointment, where: {patient: self.patient, status: [booked, confirmed]}}
      guards:
        - {rule: 'refs.patient.status != "blocked"', error: patient-blocked}
        - {rule: count.open < refs.patient.maxVisits, error: visit-limit-reached}
        - {rule: refs.slot.free > 0, error: slot-full}
states:
  patient:
    field: status
    initial: active
    transitions:
      block: {from: active, to: blocked}
      unblock: {from: blocked, to: active}
  appointment:
    field: status
    initial: booked
    transitions:
      confirm:
        from: booked
        to: confirmed
        guards:
          - {rule: refs.slot.free > 0, error: slot-full}
        effects:
          - {ref: slot, increment: {free: -1}}
          - {set: {confirmedAt: now}}
      cancel: {from: [booked, confirmed], to: cancelled}
endpoints:
  patient: [create, read, update, delete, block, unblock]
  slot: [create, read, update, delete]
  appointment: [create, read, confirm, cancel]
authentication:
  schemes: {key: {type: apiKey, in: header, name: X-API-Key}}
  scopes: {desk: Work the desk.}
  default: {scopes: [desk]}
events: {none: The clinic tells nobody.}
errors:
  shape: problem
  catalog:
    malformed-body: {status: 400, title: Malformed body}
    unauthenticated: {status: 401, title: Authentication required}
    forbidden: {status: 403, title: Forbidden}
    patient-blocked: {status: 403, title: Patient blocked}
    not-found: {status: 404, title: Not found}
    method-not-allowed: {status: 405, title: Method not allowed}
    invalid-transition: {status: 409, title: Transition not allowed}
    already-booked: {status: 409, title: Already booked}
    slot-full: {status: 409, title: Slot full}
    patient-has-appointments: {status: 409, title: Patient has appointments}
    unsupported-media-type: {status: 415, title: Unsupported media type}
    validation-failed: {status: 422, title: Validation failed}
    email-taken: {status: 422, title: Email taken}
    visit-limit-reached: {status: 422, title: Visit limit reached}
limits: {none: A test fixture.}
versioning: {none: A test fixture.}
`;

export interface ClinicFaults {
  /** Two patients may share an email. */
  readonly noUnique?: boolean;
  /** Confirming an appointment ignores the slot-full guard. */
  readonly confirmUnguarded?: boolean;
  /** Confirming an appointment leaves the slot's `free` as it was. */
  readonly noConfirmEffect?: boolean;
  /** Deleting a patient with appointments is done (and leaves them dangling). */
  readonly deleteIgnoresRefuse?: boolean;
  /** Patients get no createdAt / updatedAt. */
  readonly noTimestamps?: boolean;
}

type Rec = Record<string, unknown> & { id: number };
interface FieldDef { type: 'string' | 'integer' | 'ref'; required?: boolean; readOnly?: boolean; min?: number; max?: number; minLength?: number; maxLength?: number; email?: boolean; target?: string }

const FIELDS: Record<string, Record<string, FieldDef>> = {
  patients: {
    id: { type: 'integer', readOnly: true }, name: { type: 'string', required: true, minLength: 1, maxLength: 40 }, email: { type: 'string', required: true, email: true, maxLength: 80 },
    status: { type: 'string', readOnly: true }, maxVisits: { type: 'integer', min: 0, max: 10 }, chartNumber: { type: 'string', readOnly: true },
    createdAt: { type: 'string', readOnly: true }, updatedAt: { type: 'string', readOnly: true }, createdBy: { type: 'string', readOnly: true },
  },
  slots: { id: { type: 'integer', readOnly: true }, start: { type: 'integer', required: true, min: 0, max: 1000 }, end: { type: 'integer', required: true, min: 0, max: 1000 }, seats: { type: 'integer', min: 0, max: 20 }, free: { type: 'integer', readOnly: true } },
  appointments: { id: { type: 'integer', readOnly: true }, patient: { type: 'ref', required: true, target: 'patients' }, slot: { type: 'ref', required: true, target: 'slots' }, status: { type: 'string', readOnly: true }, confirmedAt: { type: 'string', readOnly: true } },
};

const ROUTES: { path: RegExp; methods: string[] }[] = [
  { path: /^\/(patients|slots|appointments)$/, methods: ['POST'] },
  { path: /^\/patients\/[^/]+$/, methods: ['GET', 'PATCH', 'DELETE'] },
  { path: /^\/slots\/[^/]+$/, methods: ['GET', 'PATCH', 'DELETE'] },
  { path: /^\/appointments\/[^/]+$/, methods: ['GET'] },
  { path: /^\/patients\/[^/]+\/(block|unblock)$/, methods: ['POST'] },
  { path: /^\/appointments\/[^/]+\/(confirm|cancel)$/, methods: ['POST'] },
];

const STATUS: Record<string, number> = { 'malformed-body': 400, unauthenticated: 401, 'patient-blocked': 403, 'not-found': 404, 'method-not-allowed': 405, 'invalid-transition': 409, 'already-booked': 409, 'slot-full': 409, 'patient-has-appointments': 409, 'unsupported-media-type': 415, 'validation-failed': 422, 'email-taken': 422, 'visit-limit-reached': 422 };

class Refused extends Error {
  readonly code: string;
  readonly errors?: { pointer: string; message: string }[];
  constructor(code: string, errors?: { pointer: string; message: string }[]) {
    super(code);
    this.code = code;
    if (errors) this.errors = errors;
  }
}

export async function startClinicService(options: { keys: Readonly<Record<string, string>>; faults?: ClinicFaults }): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const faults = options.faults ?? {};
  const db: Record<string, Map<number, Rec>> = { patients: new Map(), slots: new Map(), appointments: new Map() };
  const next: Record<string, number> = { patients: 1, slots: 1, appointments: 1 };
  let chart = 0;

  const get = (plural: string, raw: string | number): Rec => {
    const r = db[plural].get(Number(raw));
    if (!r || !/^\d+$/.test(String(raw))) throw new Refused('not-found');
    return r;
  };

  function validate(plural: string, body: Record<string, unknown>, partial: boolean): void {
    const defs = FIELDS[plural];
    const errors: { pointer: string; message: string }[] = [];
    for (const k of Object.keys(body)) if (!defs[k]) errors.push({ pointer: `/${k}`, message: 'is not a field' });
    for (const [k, d] of Object.entries(defs)) {
      const v = body[k];
      const bad = (message: string) => errors.push({ pointer: `/${k}`, message });
      if (v === undefined) {
        if (d.required && !partial) bad('is required');
        continue;
      }
      if (d.readOnly) { bad('is read-only'); continue; }
      if (d.type === 'string') {
        if (typeof v !== 'string') { bad('must be a string'); continue; }
        if (d.minLength !== undefined && v.length < d.minLength) bad('is too short');
        if (d.maxLength !== undefined && v.length > d.maxLength) bad('is too long');
        if (d.email && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v)) bad('is not an email');
      } else {
        if (typeof v !== 'number' || !Number.isInteger(v)) { bad('must be an integer'); continue; }
        if (d.min !== undefined && v < d.min) bad('is too small');
        if (d.max !== undefined && v > d.max) bad('is too large');
        if (d.type === 'ref' && !db[d.target as string].has(v)) bad('does not exist');
      }
    }
    if (errors.length) throw new Refused('validation-failed', errors);
  }

  /** Managed values, unique values, record rules: what every write of a record must meet. */
  function store(plural: string, r: Rec, create: boolean, who: string): void {
    const now = new Date().toISOString();
    if (plural === 'patients') {
      if (!faults.noTimestamps) {
        if (create) r.createdAt = now;
        r.updatedAt = now;
      }
      if (create) { r.createdBy = who; r.chartNumber = `PT-${String(++chart).padStart(5, '0')}`; }
      const email = String(r.email).toLowerCase();
      if (!faults.noUnique && [...db.patients.values()].some((p) => p.id !== r.id && String(p.email).toLowerCase() === email)) throw new Refused('email-taken', [{ pointer: '/email', message: 'is taken' }]);
    }
    if (plural === 'slots') {
      if (create) r.free = r.seats;
      if (!((r.end as number) > (r.start as number))) throw new Refused('validation-failed', [{ pointer: '/end', message: 'A slot ends after it starts.' }]);
    }
    if (plural === 'appointments') {
      const open = (a: Rec) => a.status === 'booked' || a.status === 'confirmed';
      if (open(r) && [...db.appointments.values()].some((a) => a.id !== r.id && open(a) && a.patient === r.patient && a.slot === r.slot)) throw new Refused('already-booked');
    }
    db[plural].set(r.id, r);
  }

  function create(plural: string, body: Record<string, unknown>, who: string): Rec {
    validate(plural, body, false);
    const r: Rec = { ...body, id: next[plural] };
    if (plural === 'patients') { r.status = 'active'; r.maxVisits ??= 3; }
    if (plural === 'slots') r.seats ??= 1;
    if (plural === 'appointments') {
      const patient = get('patients', r.patient as number);
      const slot = get('slots', r.slot as number);
      const open = [...db.appointments.values()].filter((a) => a.patient === r.patient && (a.status === 'booked' || a.status === 'confirmed')).length;
      if (patient.status === 'blocked') throw new Refused('patient-blocked');
      if (!(open < (patient.maxVisits as number))) throw new Refused('visit-limit-reached');
      if (!((slot.free as number) > 0)) throw new Refused('slot-full');
      r.status = 'booked';
    }
    store(plural, r, true, who);
    next[plural]++;
    return r;
  }

  function transition(plural: string, r: Rec, name: string): Rec {
    const table: Record<string, { from: string[]; to: string }> = plural === 'patients'
      ? { block: { from: ['active'], to: 'blocked' }, unblock: { from: ['blocked'], to: 'active' } }
      : { confirm: { from: ['booked'], to: 'confirmed' }, cancel: { from: ['booked', 'confirmed'], to: 'cancelled' } };
    const t = table[name];
    if (!t.from.includes(r.status as string)) throw new Refused('invalid-transition');
    const out: Rec = { ...r, status: t.to };
    if (name === 'confirm') {
      const slot = get('slots', r.slot as number);
      if (!faults.confirmUnguarded && !((slot.free as number) > 0)) throw new Refused('slot-full');
      if (!faults.noConfirmEffect) db.slots.set(slot.id, { ...slot, free: (slot.free as number) - 1 });
      out.confirmedAt = new Date().toISOString();
    }
    store(plural, out, false, '');
    return out;
  }

  function remove(plural: string, r: Rec): void {
    if (plural === 'patients' && !faults.deleteIgnoresRefuse && [...db.appointments.values()].some((a) => a.patient === r.id)) throw new Refused('patient-has-appointments');
    if (plural === 'slots') for (const a of [...db.appointments.values()]) if (a.slot === r.id) db.appointments.delete(a.id);
    db[plural].delete(r.id);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body?: unknown, type = 'application/json') => {
      res.writeHead(status, body === undefined ? {} : { 'content-type': type });
      res.end(body === undefined ? undefined : JSON.stringify(body));
    };
    const fail = (code: string, extra: Record<string, unknown> = {}) => send(STATUS[code], { type: 'about:blank', title: code, status: STATUS[code], code, ...extra }, 'application/problem+json');
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    const route = ROUTES.find((r) => r.path.test(path));
    if (!route) return fail('not-found');
    if (!route.methods.includes(method)) {
      res.setHeader('allow', route.methods.join(', '));
      return fail('method-not-allowed');
    }
    const who = options.keys[String(req.headers['x-api-key'] ?? '')];
    if (!who) {
      res.setHeader('www-authenticate', 'ApiKey header="X-API-Key"');
      return fail('unauthenticated');
    }
    let text = '';
    for await (const chunk of req) text += chunk;
    let body: Record<string, unknown> = {};
    if (text) {
      if (!/^application\/json\b/.test(String(req.headers['content-type'] ?? ''))) return fail('unsupported-media-type');
      try {
        body = JSON.parse(text);
      } catch {
        return fail('malformed-body');
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail('validation-failed', { errors: [{ pointer: '', message: 'must be an object' }] });
    }
    const [, plural, id, action] = path.split('/');
    try {
      if (id === undefined) return send(201, create(plural, body, who));
      const r = get(plural, id);
      if (action) return send(200, transition(plural, r, action));
      if (method === 'GET') return send(200, r);
      if (method === 'DELETE') return (remove(plural, r), send(204));
      validate(plural, body, true);
      const out = { ...r, ...body };
      store(plural, out, false, who);
      return send(200, out);
    } catch (error) {
      if (error instanceof Refused) return fail(error.code, error.errors ? { errors: error.errors } : {});
      throw error;
    }
  }

  const server = createServer((req, res) => void handle(req, res).catch((error: unknown) => { res.writeHead(500); res.end(String(error)); }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
