/**
 * Table-driven rule tests (Spectral's habit): a valid base spec that no rule fires on, one
 * change per row, and the findings expected from the whole rule set, as `code pointer`.
 * Every row states everything that fires, so a rule that also fires where it should not
 * shows up as a difference.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { ERROR_RULES } from '../../src/check/index.ts';
import { RULES } from '../../src/check/rules/index.ts';
import { runRules } from '../../src/check/walk.ts';
import type { Diagnostic } from '../../src/spec/diagnostics.ts';
import { mustLoad } from '../support/spec.ts';

/** A change to the base: maps merge key by key, `undefined` removes a key, `whole(x)` and anything else replace. */
export type Patch = { readonly [key: string]: unknown };

export interface Row {
  readonly name: string;
  /** The change to the base spec. */
  readonly patch?: Patch;
  /** The findings, each `code pointer`, in any order. */
  readonly expect: readonly string[];
  /** Each must match the message of some finding (a "did you mean", the names involved). */
  readonly messages?: readonly RegExp[];
}

/** A small spec with all nine parts, consistent throughout: no rule fires on it. */
export const BASE: Patch = {
  svcspec: 1,
  purpose: {
    name: 'Tasks',
    summary: 'Keeps projects and their tasks.',
    users: [{ name: 'member', tasks: ['Track the tasks of a project.'] }],
  },
  resources: {
    project: {
      plural: 'projects',
      id: { field: 'id', assigned: 'uuid' },
      fields: {
        id: { type: 'string', format: 'uuid', readOnly: true },
        name: { type: 'string', minLength: 1, maxLength: 100, required: true },
        budget: { type: 'number', minimum: 0, multipleOf: 0.01, default: 0 },
      },
    },
    task: {
      plural: 'tasks',
      id: { field: 'id', assigned: 'sequence' },
      owned: true,
      fields: {
        id: { type: 'integer', minimum: 1, readOnly: true },
        title: { type: 'string', maxLength: 200, required: true },
        project: { type: 'ref', resource: 'project', nullable: true, onDelete: 'nullify' },
        status: { type: 'string', enum: ['open', 'done', 'archived'], readOnly: true },
        note: { type: 'string', maxLength: 500 },
        priority: { type: 'integer', minimum: 1, maximum: 5, default: 3 },
        tags: { type: 'array', maxItems: 10, uniqueItems: true, items: { type: 'string', pattern: '^[a-z]+$' }, default: [] },
        related: { type: 'array', items: { type: 'ref', resource: 'task' } },
        secret: { type: 'string', writeOnly: true },
        details: {
          type: 'object',
          properties: {
            size: { type: 'number', minimum: 0 },
            unit: { type: 'string', enum: ['h', 'd'], default: 'h' },
          },
        },
        dueOn: { type: 'string', format: 'date', since: '1', until: '2' },
      },
    },
  },
  states: {
    task: {
      field: 'status',
      initial: 'open',
      transitions: {
        finish: { from: 'open', to: 'done', requires: ['note'] },
        archive: { from: ['open', 'done'], to: 'archived' },
      },
    },
  },
  endpoints: {
    project: ['create', 'read', 'update', 'delete', 'list'],
    task: {
      create: { errors: ['validation-failed'] },
      read: {},
      update: {},
      list: {},
      finish: { summary: 'Mark a task done.', errors: ['invalid-transition'], responses: { 200: 'resource', 409: 'error' } },
      archive: {},
    },
  },
  authentication: {
    schemes: {
      key: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      token: { type: 'bearer', tokens: 'jwt', jwt: { algorithms: ['RS256'], jwksUrl: 'https://id.example/jwks.json' } },
    },
    scopes: { read: 'Read anything.', 'projects:write': 'Change projects.', tasks: 'Work with tasks.' },
    default: { scopes: ['read'] },
    public: ['project.read', 'project.list'],
    require: {
      'project.create': ['projects:write'],
      'project.update': ['projects:write'],
      'project.delete': ['projects:write'],
      'task.*': ['tasks'],
    },
  },
  events: {
    webhooks: { subscriptions: 'api', path: '/webhooks' },
    stream: { path: '/events' },
    retry: { attempts: 3, initialDelay: '1s', maxDelay: '1m' },
    catalog: {
      'project.created': { on: 'project.created' },
      'task.finished': { on: 'task.finish', payload: ['id', 'status', 'note'], since: '2' },
    },
  },
  errors: {
    shape: 'problem',
    catalog: {
      'malformed-body': { status: 400, title: 'Malformed body' },
      unauthenticated: { status: 401, title: 'Authentication required' },
      'not-found': { status: 404, title: 'Not found' },
      'invalid-transition': { status: 409, title: 'Transition not allowed' },
      'version-retired': { status: 410, title: 'Version retired' },
      'payload-too-large': { status: 413, title: 'Body too large' },
      'validation-failed': { status: 422, title: 'Validation failed' },
      'rate-limited': { status: 429, title: 'Too many requests' },
      timeout: { status: 504, title: 'Timed out' },
    },
  },
  limits: {
    rate: { limit: 100, window: '1m', scope: 'credential', overrides: { 'task.create': { limit: 10, window: '1m' } } },
    body: { maxSize: '64KiB' },
    timeouts: { request: '5s', status: 504 },
    pagination: { style: 'cursor', defaultSize: 20, maxSize: 100, overMax: 'clamp' },
  },
  versioning: {
    select: { header: 'API-Version' },
    default: '2',
    versions: {
      1: { status: 'deprecated', released: '2024-01-01', deprecated: '2025-01-01', sunset: '2026-01-01' },
      2: { status: 'current', released: '2025-01-01' },
    },
  },
};

function isMap(value: unknown): value is Patch {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const WHOLE = Symbol('whole');

/** In a patch: this value replaces the base's, instead of merging into it. */
export function whole(value: unknown): Patch {
  return { [WHOLE]: value };
}

export function merge(base: Patch, patch: Patch): Patch {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete out[key];
    else if (isMap(value) && WHOLE in value) out[key] = (value as { [WHOLE]: unknown })[WHOLE];
    else out[key] = isMap(value) && isMap(out[key]) ? merge(out[key] as Patch, value) : value;
  }
  return out;
}

/** The YAML text of the base with a patch applied. */
export function specText(patch: Patch = {}): string {
  return stringify(merge(BASE, patch));
}

/** Every finding of the rule set on a spec text (which must load without errors). */
export function findings(text: string): Diagnostic[] {
  const spec = mustLoad(text);
  const found = runRules(spec, RULES);
  // serve's readiness verdict runs only the rules that can find an error (ERROR_RULES): on
  // every row they must find every error the whole set finds, or a rule reports an error
  // code it does not declare.
  const errors = (ds: readonly Diagnostic[]) => ds.filter((d) => d.severity === 'error').map(summary).sort();
  assert.deepEqual(errors(runRules(spec, ERROR_RULES)), errors(found), 'the error rules find every error');
  return found;
}

export function summary(d: Diagnostic): string {
  return `${d.code} ${d.pointer}`;
}

/** One test per row. */
export function table(title: string, rows: readonly Row[]): void {
  for (const row of rows) {
    test(`${title}: ${row.name}`, () => {
      const found = findings(specText(row.patch));
      assert.deepEqual(found.map(summary).sort(), [...row.expect].sort(), found.map((d) => `${d.code}: ${d.message}`).join('\n'));
      for (const pattern of row.messages ?? []) {
        assert.ok(found.some((d) => pattern.test(d.message)), `no message matches ${pattern}:\n${found.map((d) => d.message).join('\n')}`);
      }
    });
  }
}
