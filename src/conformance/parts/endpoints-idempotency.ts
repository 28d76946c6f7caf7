/**
 * Part 8's idempotency keys (`limits.idempotency`, draft-ietf-httpapi-idempotency-key-header),
 * checked only where the spec states them. For each resource with a plain create (a POST):
 *
 *   replay   the same request sent again with the same key answers the first answer: the
 *            same status and the same record, and makes no second record (§2.6)
 *   reuse    the same key with another body is refused (idempotency-key-reused, §2.7), and
 *            makes nothing
 *   scope    the same key from another principal: per credential a request of its own, per
 *            address the first answer again
 *
 * Where the create's quota is scarce (DataFactory.scarce), reuse and scope send their key
 * after the replay check's first request instead of making a first record of their own.
 */
import { sentBody } from '../envelope.ts';
import { isPlain } from '../../spec/conventions/paths.ts';
import { takesIdempotencyKey } from '../../spec/conventions/promises.ts';
import type { Endpoint, IdempotencyKeys, Resource } from '../../spec/model.ts';
import { Failure, Skip, type Principal, type TestContext } from '../context.ts';
import { UNIQUE_RETRIES, type DataFactory } from '../data.ts';
import { expectError, expectSuccess, isObject, jsonEqual } from '../expect.ts';
import { freshBody } from './fresh.ts';
import type { Exchange } from '../http.ts';

export async function checkIdempotency(ctx: TestContext, data: DataFactory): Promise<void> {
  const promise = ctx.spec.limits.idempotency;
  if (!promise) {
    const none = ctx.spec.limits.none?.idempotency;
    ctx.skip('endpoints', 'idempotency', 'idempotency keys as stated', none ? `the spec states there are none (${none.reason})` : "the spec states no idempotency keys (limits.idempotency): svcspec serve's Idempotency-Key is its runtime default, not a promise to hold another implementation to", { kind: 'not-applicable' });
    return;
  }
  const rule = { pointer: promise.pointer, text: `idempotency: ${promise.header}, ${promise.lifetimeMs} ms, per ${promise.scope}` };
  let n = 0;
  // Keys are one run's: an implementation keeps a key for its lifetime (a day, say), so a run
  // again with the same seed, drawing the same keys, would meet its own earlier requests
  // (another body under a known key is refused as reuse). The run's start names them apart.
  const run = Date.now().toString(36);
  for (const resource of ctx.spec.resources) {
    const create = ctx.endpoint(resource.name, 'create');
    if (!create || !isPlain(create) || !takesIdempotencyKey(create.method) || resource.perOwner === 'one') continue;
    const as = ctx.principalFor(create);
    const key = (suffix: string) => `svcspec-${ctx.draw.seed}-${run}-${resource.name}-${++n}-${suffix}`;
    // Keys per client address are one address's: every request of a key goes from the run's first (sources.ts).
    const oneAddress = promise.scope === 'address';
    const send = (body: Record<string, unknown>, k: string) => ctx.call(create.method, create.path, { body, as: as ?? null, headers: { [promise.header]: k }, oneAddress });
    const idOf = (ex: Exchange) => (isObject(ex.response.json) ? ex.response.json[data.idField(resource)] : undefined);
    // Of a scarce create (helpdesk: 5 tickets a minute), the replay's first request is the one
    // the other checks send their key after: each of them still sends what it is about.
    let replayed: Replayed | undefined;

    await ctx.check('endpoints', `${create.id}.idempotency.replay`, `${create.id}: the same request with the same ${promise.header} gets the first answer again and makes nothing new`, rule, async () => {
      if (!as && create.auth && !create.auth.public) throw new Skip(`no principal given may call ${create.id}`);
      const { body, k, first } = await firstOfItsKey(data, resource, () => freshBody(data, resource, as), () => key('replay'), send);
      expectSuccess(create, first);
      data.track(resource, first, as);
      const again = await send(body, k);
      data.track(resource, again, as);
      if (again.response.status !== first.response.status) throw new Failure(`the repeat answered ${again.response.status}; the first answer was ${first.response.status}`, again);
      if (idOf(again) !== idOf(first)) throw new Failure(`the repeat made another ${resource.name} ('${String(idOf(again))}', the first was '${String(idOf(first))}')`, again);
      if (!jsonEqual(again.response.json, first.response.json)) throw new Failure('the repeat answered another representation than the first answer', again);
      if (data.scarce(resource)) replayed = { key: k, first, as };
    });
    await ctx.check('endpoints', `${create.id}.idempotency.reuse`, `${create.id}: the same ${promise.header} with another body is refused (idempotency-key-reused)`, rule, async () => {
      if (!as && create.auth && !create.auth.public) throw new Skip(`no principal given may call ${create.id}`);
      const { k, first } = replayed ? { k: replayed.key, first: replayed.first } : await firstOfItsKey(data, resource, () => freshBody(data, resource, as), () => key('reuse'), send);
      if (!replayed) {
        expectSuccess(create, first);
        data.track(resource, first, as);
      }
      const other = await otherBody(data, resource, first, as);
      const ex = await send(other, k);
      await data.discard(resource, ex, as);
      expectError(ctx, ex, 'idempotency-key-reused');
    });
    await checkScope(ctx, data, resource, create, promise, rule, () => key('scope'), replayed);
  }
  if (n === 0) ctx.skip('endpoints', 'idempotency', 'idempotency keys as stated', 'no resource has a plain create (a POST) to send a key with', { kind: 'not-applicable' });
}

/**
 * Whose keys are one namespace: with `scope: credential` the same key from another principal
 * is another request (a record of its own, neither a replay nor a refusal); with `address`, a
 * principal at the same address (the tester's) gets the first answer again.
 */
/** The replay check's first request: its key, its answer, who sent it. */
interface Replayed {
  readonly key: string;
  readonly first: Exchange;
  readonly as: Principal | undefined;
}

async function checkScope(ctx: TestContext, data: DataFactory, resource: Resource, create: Endpoint, promise: IdempotencyKeys, rule: { pointer: string; text: string }, fresh: () => string, replayed?: Replayed): Promise<void> {
  // The first that may, and of the others the one with most of the create's quota left (earlier checks may have spent another's window).
  const [one, ...others] = ctx.principals.filter((p) => ctx.may(p, create));
  const two = others.reduce<Principal | undefined>((best, p) => (best === undefined || ctx.quota.left(create, p.name) > ctx.quota.left(create, best.name) ? p : best), undefined);
  const per = promise.scope === 'credential' ? 'credential' : 'client address';
  await ctx.check('endpoints', `${create.id}.idempotency.scope`, `${create.id}: ${/^[aeiou]/i.test(promise.header) ? 'an' : 'a'} ${promise.header} is ${promise.scope === 'credential' ? "one credential's: another principal's same key makes its own record" : "one client address's: another principal at the same address gets the first answer"}`, rule, async () => {
    if (!one || !two) throw new Skip(`two principals that may call ${create.id} are needed to tell keys per ${per}`);
    if (resource.owned && promise.scope === 'address') throw new Skip(`${resource.name} is owned: another principal cannot be given the first principal's record`);
    // The replay check's first request, where it was the first principal's; else one sent here.
    const earlier = replayed?.as?.name === one.name ? replayed : undefined;
    const sendAs = (as: Principal) => (b: Record<string, unknown>, key: string) => ctx.call(create.method, create.path, { body: b, as, headers: { [promise.header]: key }, oneAddress: promise.scope === 'address' });
    const { k, body, first } = earlier
      ? { k: earlier.key, body: (sentBody(earlier.first) ?? {}) as Record<string, unknown>, first: earlier.first }
      : await firstOfItsKey(data, resource, () => freshBody(data, resource, one), fresh, sendAs(one));
    const send = (as: Principal, b: Record<string, unknown>) => sendAs(as)(b, k);
    if (!earlier) {
      expectSuccess(create, first);
      data.track(resource, first, one);
    }
    // Per credential, the other principal's is a request of its own (its own refs: it may not see the first's records); per address, the same request.
    let other = await send(two, promise.scope === 'credential' ? await freshBody(data, resource, two) : body);
    // A value under a uniqueness held by a record the run cannot know of (an earlier run's with
    // the same seed): drawn again, under the same key, which is the point of the check.
    for (let i = 0; promise.scope === 'credential' && i < UNIQUE_RETRIES && data.takenUnique(resource, other); i++) other = await send(two, await freshBody(data, resource, two));
    if (promise.scope === 'credential' && data.takenUnique(resource, other)) throw new Skip(`${two.name}'s ${resource.name} bodies kept meeting values taken by records the run did not make (${UNIQUE_RETRIES + 1} draws)`);
    data.track(resource, other, two);
    const idOf = (ex: Exchange) => (isObject(ex.response.json) ? ex.response.json[data.idField(resource)] : undefined);
    if (promise.scope === 'credential') {
      expectSuccess(create, other);
      if (idOf(other) === idOf(first)) throw new Failure(`another principal's request with the same key was answered with the first principal's ${resource.name} '${String(idOf(first))}': keys are per credential`, other);
    } else if (idOf(other) !== idOf(first)) {
      throw new Failure(`another principal at the same address with the same key made ${resource.name} '${String(idOf(other))}': keys are per client address, so the first answer was due`, other);
    }
  });
}

/**
 * The first request of a key: a fresh body under a fresh key, drawn again (body and key) while
 * a declared uniqueness refuses it: a record the run cannot know of (an earlier run's with the
 * same seed) may hold a value, and a key once answered is spent.
 */
async function firstOfItsKey(
  data: DataFactory,
  resource: Resource,
  draw: () => Promise<Record<string, unknown>>,
  key: () => string,
  send: (body: Record<string, unknown>, key: string) => Promise<Exchange>,
): Promise<{ body: Record<string, unknown>; k: string; first: Exchange }> {
  let body = await draw();
  let k = key();
  let first = await send(body, k);
  for (let i = 0; i < UNIQUE_RETRIES && data.takenUnique(resource, first); i++) {
    body = await draw();
    k = key();
    first = await send(body, k);
  }
  return { body, k, first };
}

/** Another valid body: a fresh one, drawn again until it differs from what was sent. */
async function otherBody(data: DataFactory, resource: Resource, first: Exchange, as: Principal | undefined): Promise<Record<string, unknown>> {
  const sent = sentBody(first);
  for (let i = 0; i < 8; i++) {
    const body = await freshBody(data, resource, as);
    if (!jsonEqual(body, sent)) return body;
  }
  throw new Skip(`${resource.name} admits no second body to tell apart from the first`);
}
