/**
 * Part 2: resources and their fields. For each resource with a create endpoint: a valid
 * create is accepted and answered with what was sent (writeOnly fields left out), read back
 * equal; every declared constraint broken one at a time is refused with validation-failed
 * naming the field; an unknown field and a readOnly field sent are refused; writeOnly
 * fields never come back (create, read, list); update and replace change what they say;
 * after delete the record is gone: 404 on read, absent from the list. Where the create's quota
 * is scarce (helpdesk: 5 tickets a minute), a value the update takes is refused there, and the
 * breaches only a create shows share creates (./create-refusals.ts), each shown only where the
 * refusal lists its pointer, else sent alone.
 */
import { isPlain, parentParams, recordAddress } from '../../spec/conventions/paths.ts';
import { hasOwner } from '../../spec/conventions/ownership.ts';
import { unwrapRecord } from '../../spec/conventions/envelope.ts';
import type { Endpoint, Field, Resource } from '../../spec/model.ts';
import { Failure, NotApplicable, Skip, type Principal, type TestContext } from '../context.ts';
import type { Exchange } from '../http.ts';
import { locationOf } from '../created.ts';
import type { DataFactory, Made } from '../data.ts';
import { expectError, expectSuccess, isObject, jsonEqual, recordDiff } from '../expect.ts';
import { breaches, nestedBreaches, valueOf } from '../generate.ts';
import { RefusalBatches, type CreateRefusal } from './create-refusals.ts';
import { asAnswered } from '../shape.ts';
import { findInList } from './list-walk.ts';

export async function checkResources(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const resource of ctx.spec.resources) {
    if (!ctx.endpoint(resource.name, 'create')) {
      ctx.skip('resources', `${resource.name}.create`, `${resource.name}: create and read back`, 'the spec declares no create endpoint for it', { kind: 'not-applicable' });
      continue;
    }
    let made: Made | undefined;
    await ctx.check('resources', `${resource.name}.create`, `${resource.name}: a valid create is accepted, answered with what was sent, and reads back equal`, { pointer: resource.pointer, text: `resource ${resource.name}` }, async () => {
      // A success it does not declare (200 for 201) is part 4's finding (context.ts successStatusFinding); the record serves the checks below.
      made = await data.create(resource);
      const sent = made.sent;
      for (const f of data.createFields(resource, ctx.version)) {
        if (!(f.name in sent) || f.writeOnly) continue;
        if (!jsonEqual(made.body[f.name], asAnswered(f, sent[f.name]))) throw new Failure(`'${f.name}' was sent as ${JSON.stringify(sent[f.name])} and answered as ${JSON.stringify(made.body[f.name])}`, made.exchange);
      }
      const read = ctx.endpoint(resource.name, 'read');
      if (!read) return;
      const ex = await ctx.call('GET', data.pathFor(read, made));
      expectSuccess(read, ex);
      if (!jsonEqual(ex.response.json, made.body)) throw new Failure(`the record read back differs from the one the create answered: ${isObject(ex.response.json) ? recordDiff(ex.response.json, made.body) : `it is ${JSON.stringify(ex.response.json)?.slice(0, 100)}`}`, ex);
    });
    await checkEnvelope(ctx, data, resource, () => made);
    await checkLocation(ctx, data, resource, () => made);
    await checkListed(ctx, data, resource, () => made);
    // Without a record (its create failed above), the checks that need one are not checked, and say why.
    const first = made as Made | undefined;
    const record = (): Made => {
      if (first) return first;
      throw new Skip(`needs a ${resource.name} made by its create, which did not make one (see '${resource.name}: a valid create is accepted…' above)`);
    };
    await checkWriteOnly(ctx, data, resource, record);
    // Every refusal planned first, then checked in order: where the create's quota is scarce, the
    // breaches only a create shows go into shared creates (./create-refusals.ts), which must know them all.
    const create = data.createEndpoint(resource);
    const batches = data.scarce(resource) ? new RefusalBatches(ctx, data, resource, create, data.maker(resource) ?? ctx.principalFor(create)) : undefined;
    for (const run of [...planRefusals(ctx, data, resource, record, batches), ...planDeepRefusals(ctx, data, resource, record, batches)]) await run();
    await checkUpdates(ctx, data, resource, record);
    await checkDelete(ctx, data, resource);
  }
}

/**
 * `resources.<r>.location`: a create's Location, where it sends one, is where the record is
 * read (RFC 9110 §10.2.2): a read there answers the record made. Sending one is the server's
 * choice (§15.3.2: without it the request's target names the result), so none is not a
 * finding. Only where the spec reads the record somewhere (src/spec/conventions/paths.ts
 * recordAddress): without a read, a Location has nothing of the spec to be held to.
 */
async function checkLocation(ctx: TestContext, data: DataFactory, resource: Resource, made: () => Made | undefined): Promise<void> {
  const address = recordAddress(ctx.spec.endpoints, resource.name);
  // Only a read answers the record there; another operation's path names it, but what a GET answers is not the spec's to say.
  if (address?.operation !== 'read') return;
  await ctx.check('resources', `${resource.name}.location`, `${resource.name}: a created record's Location is where it is read`, { pointer: address.pointer, text: `${address.method} ${address.path}` }, async () => {
    const m = made();
    if (!m) throw new Skip(`needs a ${resource.name} made by its create, which did not make one (see '${resource.name}: a valid create is accepted…' above)`);
    const location = m.exchange.response.headers.location;
    if (!location) throw new NotApplicable(`the create sent no Location, which RFC 9110 §15.3.2 leaves to the server`);
    const path = locationOf(ctx, location);
    if (path === undefined) throw new Failure(`the Location '${location.slice(0, 200)}' is not a URI under the base URL`, m.exchange);
    // As checkEnvelope reads: the record's owner where it has one, else whoever may read.
    const ex = await ctx.call('GET', path, { as: (hasOwner(resource) ? m.as : ctx.principalFor(address)) ?? null });
    if (ex.response.status < 200 || ex.response.status >= 300) throw new Failure(`the record created at ${location} cannot be read there (${ex.response.status}); the spec reads it at ${address.path}`, ex);
    const id = isObject(ex.response.json) ? ex.response.json[data.idField(resource)] : undefined;
    if (String(id) !== m.id) throw new Failure(`reading the Location ${location} answers ${id === undefined ? 'no record' : `the ${resource.name} '${String(id)}'`}, not the one created ('${m.id}')`, ex);
  });
}

/**
 * A list's items are the records themselves (a page of records, docs/format.md): the record
 * the create check made is listed as its read shows it, every member and value (a list that
 * drops a required field passed every other check).
 */
/**
 * `resources.<r>.envelope`: the create's and the read's answers are the record inside its
 * member (src/spec/conventions/envelope.ts). The other checks read the record out of it
 * (../envelope.ts), and would take a record answered bare for one answered as declared.
 */
async function checkEnvelope(ctx: TestContext, data: DataFactory, resource: Resource, made: () => Made | undefined): Promise<void> {
  const member = resource.envelope;
  if (member === undefined) return;
  await ctx.check('resources', `${resource.name}.envelope`, `${resource.name}: a record is answered inside '${member}'`, { pointer: `${resource.pointer}/envelope`, text: `${resource.name}: envelope ${member}` }, async () => {
    const m = made();
    if (!m) throw new Skip(`needs a ${resource.name} made by its create, which did not make one (see '${resource.name}: a valid create is accepted…' above)`);
    const answers = [m.exchange];
    const read = ctx.endpoint(resource.name, 'read');
    if (read && (!hasOwner(resource) || !m.as || ctx.may(m.as, read))) answers.push(await ctx.call('GET', data.pathFor(read, m), { as: (hasOwner(resource) ? m.as : ctx.principalFor(read)) ?? null }));
    for (const ex of answers) {
      // Another status, no body or no JSON: other checks' findings.
      if (ex.response.status >= 300 || ex.response.text === '') continue;
      let raw: unknown;
      try {
        raw = JSON.parse(ex.response.text);
      } catch {
        continue;
      }
      const inside = unwrapRecord(member, raw);
      if (!inside.ok) throw new Failure(`the answer is not the record inside '${member}' the spec declares: ${inside.pointer === '' ? 'the body' : inside.pointer} ${inside.message}`, ex);
    }
  });
}

async function checkListed(ctx: TestContext, data: DataFactory, resource: Resource, made: () => Made | undefined): Promise<void> {
  const list = ctx.endpoint(resource.name, 'list');
  if (!list || !isPlain(list)) return;
  await ctx.check('resources', `${resource.name}.listed`, `${resource.name}: a record is listed as it reads`, { pointer: list.pointer, text: `${list.id}: a page of ${resource.name} records` }, async () => {
    const m = made();
    if (!m) throw new Skip(`needs a ${resource.name} made by its create, which did not make one (see '${resource.name}: a valid create is accepted…' above)`);
    // An owned record is its creator's to see; any other, whoever may call the endpoint.
    const owned = hasOwner(resource);
    const by = (e: Endpoint) => (owned ? m.as : ctx.principalFor(e));
    if (owned && m.as && !ctx.may(m.as, list)) throw new Skip(`${m.as.name}, who made the ${resource.name}, may not call ${list.id}`);
    const read = ctx.endpoint(resource.name, 'read');
    let expected = m.body;
    if (read && (!owned || !m.as || ctx.may(m.as, read))) {
      const ex = await ctx.call('GET', data.pathFor(read, m), { as: by(read) ?? null });
      if (ex.response.status < 300 && isObject(ex.response.json)) expected = ex.response.json;
    }
    const found = await findInList(ctx, data, resource, m.id, by(list));
    // Whether it should be there is the walk's check (part 8): one defect, one finding.
    if (!found) throw new Skip(`the ${resource.name} '${m.id}' the create made is not in the list its principal sees, so how it is listed cannot be compared`);
    if (!jsonEqual(found.item, expected)) throw new Failure(`the ${resource.name} '${m.id}' is listed otherwise than it reads: ${recordDiff(found.item, expected)}`, found.exchange);
  });
}

async function checkWriteOnly(ctx: TestContext, data: DataFactory, resource: Resource, record: () => Made): Promise<void> {
  const hidden = ctx.fieldsOf(resource).filter((f) => f.writeOnly);
  if (!hidden.length) return;
  await ctx.check('resources', `${resource.name}.writeOnly`, `${resource.name}: writeOnly fields (${hidden.map((f) => f.name).join(', ')}) never come back`, { pointer: hidden[0].pointer, text: `${hidden[0].name}: writeOnly` }, async () => {
    const made = record();
    const leak = (body: unknown, ex: Made['exchange'], where: string) => {
      for (const f of hidden) if (isObject(body) && f.name in body) throw new Failure(`writeOnly '${f.name}' came back in the ${where}`, ex);
    };
    leak(made.body, made.exchange, 'create response');
    const read = ctx.endpoint(resource.name, 'read');
    if (read) {
      const ex = await ctx.call('GET', data.pathFor(read, made));
      leak(ex.response.json, ex, 'read');
    }
    const found = await findInList(ctx, data, resource, made.id);
    if (found) leak(found.item, found.exchange, 'list');
  });
}

/** The checks of the refusals of top-level fields, an unknown field and a readOnly one, to run in order. */
function planRefusals(ctx: TestContext, data: DataFactory, resource: Resource, record: () => Made, batches: RefusalBatches | undefined): (() => Promise<unknown>)[] {
  const planned: (() => Promise<unknown>)[] = [];
  const create = data.createEndpoint(resource);
  // Spread across the principals that may (a per-credential quota on creates is spent evenly); refused bodies count against it too.
  const as = data.maker(resource) ?? ctx.principalFor(create);
  const fields = data.createFields(resource, ctx.version);
  // A create whose window cannot hold about two refusals a field (helpdesk: 5 tickets a minute) keeps its
  // quota for what only a create shows (a required field left out); a value the update takes is refused there.
  const policy = ctx.quota.policyOf(create);
  const update = ctx.endpoint(resource.name, 'update');
  const updatePolicy = update && ctx.quota.policyOf(update);
  const scarce = policy !== undefined && policy.limit < 2 * fields.length && update !== undefined && (!updatePolicy || updatePolicy.limit >= 2 * fields.length);
  const updatable = new Set(update?.request.kind === 'fields' ? update.request.fields : data.writable(resource, ctx.version).map((f) => f.name));
  /** A create carrying the change is refused naming the pointer: in a batch where one holds it, else alone. */
  const refused = (pointer: string, change: CreateRefusal['change']) => {
    const handle = batches?.add({ pointer, change });
    return async () => {
      const by = caller(ctx, create, as);
      if (handle !== undefined && (await batches!.holds(handle))) return;
      const body = await data.validBody(resource, { as, refs: 'shared' });
      const path = await data.createPath(resource, body, as);
      await change(body);
      const ex = await ctx.call('POST', path, { body, as: by });
      // A service that wrongly accepts it made a record: removed at once, so later checks do not list it.
      await data.discard(resource, ex, as);
      expectError(ctx, ex, 'validation-failed', pointer);
    };
  };
  // A create only nested (`POST /talks/{talkId}/reviews`) takes its parent from the path: a body
  // leaving the parent's ref out is complete there (docs/format.md, nested collections).
  const fromPath = new Set(parentParams(create).map((p) => p.field));
  for (const field of fields) {
    for (const breach of breaches(field, ctx.draw)) {
      if (breach.omit && fromPath.has(field.name)) continue;
      const onUpdate = scarce && !breach.omit && updatable.has(field.name);
      const where = onUpdate ? ` (on ${update!.id}: ${create.id} allows ${policy!.limit} per ${policy!.windowMs / 1000} s)` : '';
      const onCreate = onUpdate
        ? undefined
        : refused(`/${field.name}`, (body) => {
            if (breach.omit) delete body[field.name];
            else body[field.name] = breach.value;
          });
      planned.push(() =>
        ctx.check('resources', `${resource.name}.${field.name}.${breach.constraint.replace(/\s+/g, '-')}`, `${resource.name}.${field.name}: a value breaking '${breach.constraint}' is refused${where}`, { pointer: field.pointer, text: `${field.name}: ${breach.constraint}` }, async () => {
          if (onCreate) return onCreate();
          const changed = await ctx.call(update!.method, data.pathFor(update!, record()), { body: { [field.name]: breach.value }, as: caller(ctx, update!, ctx.principalFor(update!)) });
          expectError(ctx, changed, 'validation-failed', `/${field.name}`);
        }),
      );
    }
  }
  if (resource.unknownFields === 'keep') {
    planned.push(() =>
      ctx.check('resources', `${resource.name}.unknown-field`, `${resource.name}: a field the spec does not declare is kept (unknownFields: keep)`, { pointer: resource.pointer, text: `the fields of ${resource.name}: unknown ones kept` }, async () => {
        const body = { ...(await data.validBody(resource, { as })), svcspecUndeclaredField: 1 };
        const ex = await ctx.call('POST', await data.createPath(resource, body, as), { body, as: as ?? null });
        expectSuccess(create, ex);
        if (!isObject(ex.response.json) || ex.response.json.svcspecUndeclaredField !== 1) throw new Failure("the created record does not carry the undeclared member 'svcspecUndeclaredField' as sent", ex);
        const back = await readBack(ctx, data, resource, data.track(resource, ex, as), as);
        if (back && back.record.svcspecUndeclaredField !== 1) throw new Failure("the record read back does not carry the undeclared member 'svcspecUndeclaredField' its create kept", back.exchange);
      }),
    );
  } else if (resource.unknownFields === 'ignore') {
    planned.push(() =>
      ctx.check('resources', `${resource.name}.unknown-field`, `${resource.name}: a field the spec does not declare is ignored (unknownFields: ignore)`, { pointer: resource.pointer, text: `the fields of ${resource.name}: unknown ones ignored` }, async () => {
        const body = { ...(await data.validBody(resource, { as })), svcspecUndeclaredField: 1 };
        const ex = await ctx.call('POST', await data.createPath(resource, body, as), { body, as: as ?? null });
        expectSuccess(create, ex);
        const made = data.track(resource, ex, as);
        if (isObject(ex.response.json) && 'svcspecUndeclaredField' in ex.response.json) throw new Failure("the created record carries the undeclared member 'svcspecUndeclaredField'; the spec says such members are dropped", ex);
        // An answer may leave it out while the store kept it: the read shows what was kept.
        const back = await readBack(ctx, data, resource, made, as);
        if (back && 'svcspecUndeclaredField' in back.record) throw new Failure("the record read back carries the undeclared member 'svcspecUndeclaredField'; the spec says such members are dropped", back.exchange);
      }),
    );
  } else {
    const onCreate = refused('/svcspecUndeclaredField', (body) => void (body.svcspecUndeclaredField = 1));
    planned.push(() => ctx.check('resources', `${resource.name}.unknown-field`, `${resource.name}: a field the spec does not declare is refused`, { pointer: resource.pointer, text: `the fields of ${resource.name}` }, onCreate));
  }
  const readOnly = ctx.fieldsOf(resource).find((f) => f.readOnly && f.name !== data.idField(resource) && f.name !== data.machine(resource)?.field);
  const sample = readOnly ?? ctx.fieldsOf(resource).find((f) => f.readOnly);
  if (sample) {
    if (resource.readOnlyFields !== 'refuse') {
      const either = resource.readOnlyFields === 'either';
      planned.push(() =>
        ctx.check('resources', `${resource.name}.readOnly`, either ? `${resource.name}: a readOnly field sent by a client is refused, or ignored (readOnlyFields: either)` : `${resource.name}: a readOnly field sent by a client is ignored (readOnlyFields: ignore)`, { pointer: sample.pointer, text: `${sample.name}: readOnly, ${either ? 'refused or ignored' : 'ignored'} when sent` }, async () => {
          const sent = await readOnlyValue(ctx, data, sample);
          const body = { ...(await data.validBody(resource, { as })), [sample.name]: sent };
          const ex = await ctx.call('POST', await data.createPath(resource, body, as), { body, as: as ?? null });
          // JSON Schema's readOnly: "expected to be ignored or rejected"; a refusal is held to the refusal the spec states.
          if (either && ex.response.status >= 400 && ex.response.status < 500) {
            expectError(ctx, ex, 'validation-failed', `/${sample.name}`);
            // Refused for the member, not for another cause (a status class takes any 4xx): the same body without it is served.
            const { [sample.name]: _sent, ...without } = body;
            const control = await ctx.call('POST', await data.createPath(resource, without, as), { body: without, as: as ?? null });
            if (control.response.status < 200 || control.response.status >= 300) throw new Skip(`the create is refused without ${sample.name} too (${control.response.status}), so the refusal does not show what ${sample.name} did`);
            data.track(resource, control, as);
            return;
          }
          expectSuccess(create, ex);
          data.track(resource, ex, as);
          if (isObject(ex.response.json) && sample.name in ex.response.json && jsonEqual(ex.response.json[sample.name], sent)) throw new Failure(`the record took the ${sample.name} the client sent (${JSON.stringify(sent)}); the service sets it`, ex);
        }),
      );
    } else {
      const onCreate = refused(`/${sample.name}`, async (body) => void (body[sample.name] = await readOnlyValue(ctx, data, sample)));
      planned.push(() => ctx.check('resources', `${resource.name}.readOnly`, `${resource.name}: a readOnly field sent by a client is refused`, { pointer: sample.pointer, text: `${sample.name}: readOnly` }, onCreate));
    }
  }
  return planned;
}

/** The record a create made, as its read shows it; undefined where the spec has no read the caller may call, or the create's record is not known. */
async function readBack(ctx: TestContext, data: DataFactory, resource: Resource, made: Made | undefined, as: Principal | undefined): Promise<{ record: Record<string, unknown>; exchange: Exchange } | undefined> {
  const read = ctx.endpoint(resource.name, 'read');
  if (!made || !read || !ctx.may(as, read)) return undefined;
  const exchange = await ctx.call('GET', data.pathFor(read, made), { as: as ?? null });
  expectSuccess(read, exchange);
  if (!isObject(exchange.response.json)) throw new Failure(`reading ${resource.name} '${made.id}' answered no record`, exchange);
  return { record: exchange.response.json, exchange };
}

/**
 * Constraints at every depth (issue #16): each constraint of a member of an object or of an
 * array's items, broken alone, on create, update and replace, is refused with validation-failed
 * naming the violated member's pointer. An update is a merge patch: leaving a member out does
 * not break `required` there, so only the other breaches are sent to it.
 */
function planDeepRefusals(ctx: TestContext, data: DataFactory, resource: Resource, record: () => Made, batches: RefusalBatches | undefined): (() => Promise<unknown>)[] {
  const planned: (() => Promise<unknown>)[] = [];
  const create = data.createEndpoint(resource);
  const as = ctx.principalFor(create);
  const writes = [create, ctx.endpoint(resource.name, 'update'), ctx.endpoint(resource.name, 'replace')].filter((e): e is NonNullable<typeof e> => e !== undefined && (e === create || (isPlain(e) && !e.select)));
  for (const field of data.createFields(resource, ctx.version)) {
    for (const breach of nestedBreaches(field, ctx.draw)) {
      for (const endpoint of writes) {
        if (endpoint.operation === 'update' && breach.omit) continue;
        // A write that lists its request fields takes no other: a breach of one it does not take proves nothing there.
        if (endpoint !== create && endpoint.request.kind === 'fields' && !endpoint.request.fields.includes(field.name)) continue;
        const op = endpoint === create ? 'create' : endpoint.operation;
        const handle = endpoint === create ? batches?.add({ pointer: breach.pointer, keepsInside: breach.constraint === 'uniqueItems', changesType: breach.constraint.startsWith('type '), change: (body) => void (body[field.name] = breach.apply(body[field.name])) }) : undefined;
        planned.push(() =>
          ctx.check('resources', `${resource.name}.${op}${breach.pointer.replace(/\//g, '.')}.${breach.constraint.replace(/\s+/g, '-')}`, `${resource.name}: ${op} with ${breach.pointer} breaking '${breach.constraint}' is refused at that pointer`, { pointer: breach.shape.pointer, text: `${breach.pointer.slice(1).replace(/\//g, '.')}: ${breach.constraint}` }, async () => {
            caller(ctx, endpoint, endpoint === create ? as : ctx.principalFor(endpoint));
            if (handle !== undefined && (await batches!.holds(handle))) return;
            // A body meant to be refused points its refs at shared records: it costs no records of its own.
            const body = await data.validBody(resource, { as, refs: 'shared' });
            const path = endpoint === create ? await data.createPath(resource, body, as) : '';
            body[field.name] = breach.apply(body[field.name]);
            if (endpoint === create) {
              const ex = await ctx.call(create.method, path, { body, as: as ?? null });
              await data.discard(resource, ex, as);
              expectError(ctx, ex, 'validation-failed', breach.pointer);
              return;
            }
            // The record the run made first: a refused change leaves it as it was.
            const sent = endpoint.operation === 'update' ? { [field.name]: body[field.name] } : body;
            const ex = await ctx.call(endpoint.method, data.pathFor(endpoint, record()), { body: sent, as: ctx.principalFor(endpoint) ?? null });
            expectError(ctx, ex, 'validation-failed', breach.pointer);
          }),
        );
      }
    }
  }
  return planned;
}

async function readOnlyValue(ctx: TestContext, data: DataFactory, field: Field): Promise<unknown> {
  return data.fill(ctx.draw.one(valueOf(field)), undefined, 'shared');
}

async function checkUpdates(ctx: TestContext, data: DataFactory, resource: Resource, record: () => Made): Promise<void> {
  const writable = data.writable(resource, ctx.version).filter((f) => f.name !== data.idField(resource));
  for (const op of ['update', 'replace'] as const) {
    const endpoint = ctx.endpoint(resource.name, op);
    if (!endpoint) continue;
    await ctx.check('resources', `${resource.name}.${op}`, `${resource.name}: ${op} (${endpoint.method}) changes the record and reads back`, { pointer: endpoint.pointer, text: endpoint.id }, async () => {
      const made = record();
      // An endpoint that lists its request fields takes those only: the change is made through one of them.
      const takes = endpoint.request.kind === 'fields' ? new Set(endpoint.request.fields) : undefined;
      const candidates = takes ? writable.filter((f) => takes.has(f.name)) : writable;
      const field = candidates.find((f) => !f.writeOnly && f.type !== 'ref' && !f.enum) ?? candidates.find((f) => !f.writeOnly);
      if (!field) throw new Skip(`${resource.name} has no writable field to change${takes ? ` among those ${endpoint.id} takes` : ''}`);
      const as = ctx.principalFor(endpoint) ?? null;
      let next = await data.validBody(resource, { as: as ?? undefined });
      // The record the update leaves must keep the record rules (a slot's new start before its end).
      for (let i = 0; op === 'update' && i < 10 && data.domain.brokenRule(resource, { ...made.body, [field.name]: next[field.name] }, ctx.now()); i++) next = await data.validBody(resource, { as: as ?? undefined });
      const body = op === 'update' ? { [field.name]: next[field.name] } : takes ? Object.fromEntries(Object.entries(next).filter(([k]) => takes.has(k))) : next;
      const ex = await ctx.call(endpoint.method, data.pathFor(endpoint, made), { body, as });
      expectSuccess(endpoint, ex);
      const read = ctx.endpoint(resource.name, 'read');
      if (!read) return;
      const back = await ctx.call('GET', data.pathFor(read, made));
      if (!isObject(back.response.json) || !jsonEqual(back.response.json[field.name], asAnswered(field, next[field.name]))) {
        throw new Failure(`after ${op}, '${field.name}' reads ${JSON.stringify(isObject(back.response.json) ? back.response.json[field.name] : undefined)}, not the ${JSON.stringify(next[field.name])} sent`, back);
      }
    });
  }
}

async function checkDelete(ctx: TestContext, data: DataFactory, resource: Resource): Promise<void> {
  const del = ctx.endpoint(resource.name, 'delete');
  if (!del) return;
  await ctx.check('resources', `${resource.name}.delete`, `${resource.name}: after delete the record is gone, from reads and lists`, { pointer: del.pointer, text: del.id }, async () => {
    const made = await data.create(resource);
    const ex = await ctx.call('DELETE', data.pathFor(del, made), { as: ctx.principalFor(del) ?? null });
    expectSuccess(del, ex);
    const read = ctx.endpoint(resource.name, 'read');
    if (read) expectError(ctx, await ctx.call('GET', data.pathFor(read, made)), 'not-found');
    const found = await findInList(ctx, data, resource, made.id);
    if (found) throw new Failure(`the deleted ${resource.name} '${made.id}' is still listed`, found.exchange);
  });
}

/**
 * The principal a refusal check sends as: none given may call an endpoint that needs
 * credentials, and the check is not checked, naming them (a 401 is no refusal of the body).
 */
function caller(ctx: TestContext, endpoint: Endpoint, as: Principal | undefined): Principal | null {
  if (!as && endpoint.auth && !endpoint.auth.public) throw ctx.noPrincipal(endpoint);
  return as ?? null;
}
