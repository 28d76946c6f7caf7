/**
 * A large, valid spec built in memory for the benches: many resources with varied fields
 * and constraints, state machines, short-form endpoints, scopes and `require` rules, an
 * events catalog, errors, limits and two versions. Deterministic: the same options give
 * the same document, so figures are comparable between runs.
 */
import { SITUATIONS } from '../../src/spec/http-errors.ts';

export interface BigSpecOptions {
  readonly resources: number;
  /** Fields per resource, the id included. */
  readonly fields: number;
  /** Every n-th resource has a state machine. */
  readonly machineEvery: number;
  readonly events: number;
}

export const CHECK_BENCH_SPEC: BigSpecOptions = { resources: 1000, fields: 20, machineEvery: 10, events: 200 };

type Obj = Record<string, unknown>;

const name = (i: number) => `res${String(i).padStart(4, '0')}`;
const group = (i: number) => `group${String(Math.floor(i / 10)).padStart(3, '0')}`;
const hasMachine = (i: number, o: BigSpecOptions) => i % o.machineEvery === 0;

/** The kinds of field the generator cycles through, each with its own constraints. */
const FIELD_KINDS: readonly ((i: number, r: number, o: BigSpecOptions) => Obj | string)[] = [
  () => ({ type: 'string', minLength: 1, maxLength: 200, required: true, description: 'A display name.' }),
  () => ({ type: 'string', format: 'email', maxLength: 254 }),
  () => ({ type: 'integer', minimum: 0, maximum: 10_000, default: 0 }),
  () => ({ type: 'number', minimum: 0, multipleOf: 0.01, description: 'An amount in EUR.' }),
  () => 'boolean',
  () => ({ type: 'string', enum: ['low', 'normal', 'high', 'urgent'], default: 'normal' }),
  () => ({ type: 'array', maxItems: 20, uniqueItems: true, items: { type: 'string', maxLength: 40 } }),
  () => ({
    type: 'object',
    properties: {
      street: { type: 'string', maxLength: 200, required: true },
      city: { type: 'string', maxLength: 100 },
      country: { type: 'string', pattern: '^[A-Z]{2}$', default: 'NL' },
    },
  }),
  (_i, r, o) => ({ type: 'ref', resource: name((r + 1) % o.resources), description: 'The related record.' }),
  () => ({ type: 'string', format: 'date-time', readOnly: true }),
  () => ({ type: 'string', pattern: '^[A-Z]{3}-[0-9]{6}$', nullable: true }),
  () => ({ type: 'string', format: 'uri', nullable: true }),
  () => ({ type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 1000 }),
  () => ({ type: 'string', format: 'date' }),
  () => ({ type: 'array', minItems: 1, maxItems: 5, items: { type: 'integer', minimum: 1 } }),
  () => ({ type: 'string', maxLength: 2000, description: 'Free text.' }),
  () => ({ type: 'string', format: 'uuid', writeOnly: true }),
  () => 'number',
];

function resource(r: number, o: BigSpecOptions): Obj {
  const fields: Obj = { id: { type: 'string', format: 'uuid', readOnly: true } };
  const machine = hasMachine(r, o);
  if (machine) {
    fields.status = { type: 'string', enum: ['draft', 'active', 'suspended', 'closed'], readOnly: true };
    fields.reason = { type: 'string', maxLength: 500 };
  }
  for (let f = 0; Object.keys(fields).length < o.fields; f++) {
    // field00 is always the display name (events carry it); the others cycle through the kinds.
    const kind = f === 0 ? FIELD_KINDS[0]! : FIELD_KINDS[1 + ((f + r) % (FIELD_KINDS.length - 1))]!;
    const field = kind(f, r, o);
    // Every fifth resource has fields that appear or disappear between the two versions.
    const versioned = r % 5 === 0 && (f === 3 || f === 4) && typeof field === 'object' ? { ...field, ...(f === 3 ? { since: '2' } : { until: '1' }) } : field;
    fields[`field${String(f).padStart(2, '0')}`] = versioned;
  }
  return { plural: `${name(r)}s`, description: `Records of kind ${r}.`, id: { field: 'id', assigned: 'uuid' }, ...(r % 7 === 0 ? { owned: true } : {}), fields };
}

function stateMachine(): Obj {
  return {
    field: 'status',
    initial: 'draft',
    transitions: {
      activate: { from: 'draft', to: 'active', description: 'Put into use.' },
      suspend: { from: 'active', to: 'suspended', requires: ['reason'] },
      close: { from: ['active', 'suspended'], to: 'closed' },
    },
  };
}

export function bigSpec(o: BigSpecOptions = CHECK_BENCH_SPEC): Obj {
  const indexes = Array.from({ length: o.resources }, (_, i) => i);
  const machines = indexes.filter((r) => hasMachine(r, o));
  const groups = [...new Set(indexes.map(group))];

  const require: Obj = {};
  for (const r of indexes) {
    if (hasMachine(r, o)) require[`${name(r)}.*`] = [`${group(r)}:manage`];
    require[`${name(r)}.create`] = [`${group(r)}:write`];
    require[`${name(r)}.update`] = [`${group(r)}:write`];
    require[`${name(r)}.delete`] = ['admin'];
  }

  // Half the events follow transitions (one per state machine, cycling through the three),
  // the other half record changes to other resources.
  const events: Obj = {};
  for (let e = 0; e < o.events; e++) {
    const transition = e % 2 === 0 && machines.length ? (['activate', 'suspend', 'close'] as const)[(e / 2) % 3]! : undefined;
    const r = transition ? machines[(e / 2) % machines.length]! : e % o.resources;
    const action = transition ?? (['created', 'updated', 'deleted'] as const)[e % 3]!;
    events[`${name(r)}.event${String(e).padStart(3, '0')}`] = {
      on: `${name(r)}.${action}`,
      payload: e % 3 === 0 ? 'resource' : ['id', 'field00'],
      description: `Event ${e}.`,
      ...(e % 10 === 0 ? { since: '2' } : {}),
    };
  }

  const catalog: Obj = {};
  const statusOf: Readonly<Record<string, number>> = {
    'malformed-body': 400, 'validation-failed': 422, unauthenticated: 401, forbidden: 403, 'not-found': 404,
    'method-not-allowed': 405, 'invalid-transition': 409, 'version-retired': 410, 'precondition-failed': 412,
    'payload-too-large': 413, 'unsupported-media-type': 415, 'idempotency-key-reused': 422, 'unknown-version': 400,
    'rate-limited': 429, internal: 500, timeout: 503,
  };
  for (const s of SITUATIONS) catalog[s] = { status: statusOf[s] ?? 400, title: `Situation ${s}`, when: `The runtime answers ${s}.` };
  for (let c = 0; c < 30; c++) catalog[`domain-rule-${c}`] = { status: c % 2 ? 409 : 422, title: `Domain rule ${c}`, when: 'A business rule is broken.' };

  const overrides: Obj = {};
  for (let r = 0; r < o.resources; r += 20) overrides[`${name(r)}.create`] = { limit: 30, window: '1m', ...(r % 40 === 0 ? { scope: 'address' } : {}) };

  return {
    svcspec: 1,
    title: `Benchmark service (${o.resources} resources x ${o.fields} fields)`,
    purpose: {
      name: 'Benchmark',
      summary: 'A large generated service used to time the checker.',
      users: [{ name: 'operator', tasks: ['Manage every kind of record.'] }, { name: 'auditor', tasks: ['Read records.'] }],
    },
    resources: Object.fromEntries(indexes.map((r) => [name(r), resource(r, o)])),
    states: Object.fromEntries(machines.map((r) => [name(r), stateMachine()])),
    endpoints: Object.fromEntries(indexes.map((r) => [name(r), ['create', 'read', 'update', 'delete', 'list', ...(hasMachine(r, o) ? ['activate', 'suspend', 'close'] : [])]])),
    authentication: {
      obtain: 'Operators create API keys in the console; services use tokens from the identity provider.',
      schemes: {
        key: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        token: { type: 'bearer', tokens: 'jwt', jwt: { issuer: 'https://id.example', audience: 'https://api.example', algorithms: ['RS256', 'ES256'], jwksUrl: 'https://id.example/jwks.json' } },
      },
      scopes: Object.fromEntries([
        ['read', 'Read every record.'],
        ['admin', 'Delete records.'],
        ...groups.flatMap((g) => [[`${g}:write`, `Write records of ${g}.`], [`${g}:manage`, `Run the transitions of ${g}.`]]),
      ]),
      default: { scopes: ['read'] },
      public: [`${name(1)}.read`, `${name(1)}.list`],
      require,
    },
    events: {
      webhooks: { subscriptions: 'api', path: '/webhooks', signing: 'standard-webhooks', timeout: '10s' },
      stream: { path: '/events', heartbeat: '15s' },
      retry: { attempts: 6, backoff: 'exponential', initialDelay: '30s', maxDelay: '1h' },
      catalog: events,
    },
    errors: { shape: 'problem', catalog },
    limits: {
      rate: { limit: 600, window: '1m', scope: 'credential', overrides },
      body: { maxSize: '256KiB' },
      fields: { maxStringLength: 4000, maxArrayItems: 100 },
      timeouts: { request: '10s', status: 503 },
      pagination: { style: 'cursor', defaultSize: 20, maxSize: 100, overMax: 'clamp' },
    },
    versioning: {
      select: { header: 'API-Version' },
      default: '2',
      versions: {
        '1': { status: 'deprecated', released: '2024-01-15', deprecated: '2026-01-15', sunset: '2027-01-15', docs: 'https://docs.example/migrate' },
        '2': { status: 'current', released: '2026-01-15' },
      },
    },
  };
}
