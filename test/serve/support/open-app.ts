/**
 * Test helpers for the serve tests of states and pagination: an app over a fresh store,
 * from an example file or inline spec text, closed when the test ends.
 */
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { credentialHeaders } from './credentials.ts';
import { loadSpec } from '../../../src/load/index.ts';
import type { Spec } from '../../../src/spec/model.ts';
import { createApp } from '../../../src/serve/app.ts';
import { openSqliteStore } from '../../../src/store/sqlite.ts';
import type { Store } from '../../../src/store/store.ts';
import { mustLoad } from '../../support/spec.ts';

export const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));

export async function exampleSpec(name: string): Promise<Spec> {
  const r = await loadSpec(`${EXAMPLES}${name}`);
  if (!r.value) throw new Error(`example ${name} did not load: ${r.diagnostics.map((d) => d.message).join('; ')}`);
  return r.value;
}

/** A fresh SQLite store in memory: the real adapter, nothing persisted. */
export async function freshStore(): Promise<Store> {
  return openSqliteStore({ path: ':memory:' });
}

export interface Served {
  readonly app: FastifyInstance;
  readonly store: Store;
  readonly spec: Spec;
  /** The credentials of a client holding every declared scope; `app.inject` sends them unless a request sets its own. */
  readonly auth: Readonly<Record<string, string>>;
}

/**
 * An app over the spec. The tests of the other parts act as a client holding every scope
 * (authentication has its own tests): inject sends its credentials by default. A request
 * that sets an `authorization` or key header of its own, or `anonymous`, sends those instead.
 */
export async function serve(t: TestContext, spec: Spec | string, store?: Store, options: { anonymous?: boolean } = {}): Promise<Served> {
  const s = typeof spec === 'string' ? mustLoad(spec) : spec;
  const st = store ?? (await freshStore());
  const app = await createApp({ spec: s, store: st });
  const auth = options.anonymous ? {} : await credentialHeaders(s, st);
  if (Object.keys(auth).length) {
    const inject = app.inject.bind(app) as (o: InjectOptions) => Promise<unknown>;
    app.inject = ((o: InjectOptions) => inject({ ...o, headers: { ...auth, ...(o.headers as object) } })) as unknown as FastifyInstance['inject'];
  }
  t.after(async () => {
    await app.close();
    await st.close();
  });
  return { app, store: st, spec: s, auth };
}
