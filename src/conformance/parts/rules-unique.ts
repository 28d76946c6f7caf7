/**
 * Uniqueness (issue #14): for each `unique` of a resource, a second create with the values
 * of a first is refused with the bound error; with `ignoreCase`, so is one differing only in
 * case; with a `where`, the duplicate is refused among records inside it and accepted when
 * the first record is outside it.
 */
import type { Resource, UniqueRule } from '../../spec/model.ts';
import { Failure, Skip, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectSuccess } from '../expect.ts';
import { expectCode, machineOf, Scene, type SceneRecord } from './rules-scene.ts';

type Data = Record<string, unknown>;

export async function checkUniqueness(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const resource of ctx.spec.resources) {
    for (const u of resource.unique) {
      const where = u.where.length ? ` where ${u.where.map((w) => `${w.field} in [${w.values.join(', ')}]`).join(' and ')}` : '';
      const rule = { pointer: u.pointer, text: `unique ${u.fields.join(' + ')}${u.ignoreCase ? ' (ignoreCase)' : ''}${where} → ${u.error}` };
      const base = `${resource.name}.unique.${u.name}`;
      await ctx.check('resources', base, `${resource.name}: a second record with the same ${u.fields.join(' + ')}${where} is refused with ${u.error}`, rule, () => duplicate(ctx, data, resource, u, 'same'));
      if (u.ignoreCase) {
        await ctx.check('resources', `${base}.ignore-case`, `${resource.name}: a second record whose ${u.fields.join(' + ')} differs only in case is refused with ${u.error}`, rule, () => duplicate(ctx, data, resource, u, 'case'));
      }
      const update = ctx.endpoint(resource.name, 'update');
      const changeable = data.writable(resource, ctx.version).map((f) => f.name);
      if (update && !u.where.length && u.fields.every((f) => changeable.includes(f))) {
        await ctx.check('resources', `${base}.update`, `${resource.name}: an update onto another record's ${u.fields.join(' + ')} is refused with ${u.error}`, rule, () => onto(ctx, data, resource, u));
      }
      if (u.where.length) {
        await ctx.check('resources', `${base}.outside-where`, `${resource.name}: the same ${u.fields.join(' + ')} is accepted when the first record is outside${where}`, rule, () => duplicate(ctx, data, resource, u, 'outside'));
      }
    }
  }
}

/** Where a `where` condition is met: by a value the create sends, or by the state the record is walked to. */
function placement(ctx: TestContext, data: DataFactory, resource: Resource, u: UniqueRule, inside: boolean): { set: Data; states?: string[] } {
  const set: Data = {};
  let states: string[] | undefined;
  const machine = machineOf(ctx, resource);
  const writable = data.createFields(resource, ctx.version);
  for (const w of u.where) {
    if (machine && w.field === machine.field) {
      states = machine.states.filter((s) => w.values.includes(s) === inside);
      continue;
    }
    const f = writable.find((x) => x.name === w.field);
    if (!f) throw new Skip(`not checked: the condition on '${w.field}' cannot be met by a create (the field is not written by one, nor a state)`);
    if (inside) set[w.field] = w.values[0];
    else {
      const outside = (f.enum ?? (f.type === 'boolean' ? [true, false] : [])).find((v) => !w.values.includes(v as never));
      if (outside === undefined) throw new Skip(`not checked: the tester knows no value of '${w.field}' outside [${w.values.join(', ')}]`);
      set[w.field] = outside;
    }
  }
  return { set, ...(states ? { states } : {}) };
}

async function duplicate(ctx: TestContext, data: DataFactory, resource: Resource, u: UniqueRule, kind: 'same' | 'case' | 'outside'): Promise<void> {
  const create = data.createEndpointOrUndefined(resource);
  if (!create) throw new Skip(`not checked: ${resource.name} has no create endpoint`);
  const carried = data.createFields(resource, ctx.version).map((f) => f.name);
  // A field the service sets to who creates (created-by) holds the same value for two creates
  // by one principal, which both of these are: the scene's.
  const byCreator = (name: string) => resource.fields.find((f) => f.name === name)?.managed?.kind === 'created-by';
  const scene = new Scene(ctx, data, resource);
  const missing = u.fields.filter((f) => !carried.includes(f) && !(byCreator(f) && scene.as !== undefined));
  if (missing.length) throw new Skip(`not checked: a create does not carry ${missing.join(', ')} (the service sets it), so the tester cannot send the same value twice`);
  const first = placement(ctx, data, resource, u, kind !== 'outside');
  // Room for two: the duplicate must meet every guard the first met (a count of open ones).
  const firstBody = await data.validBody(resource, { ...(scene.as ? { as: scene.as } : {}), set: first.set, room: 1 });
  const made: SceneRecord = await scene.create(resource, firstBody, `the first ${resource.name}`);
  if (first.states && !first.states.includes(String(made.data[machineOf(ctx, resource)?.field ?? '']))) await scene.walk(made, first.states);
  const second = placement(ctx, data, resource, u, true);
  const machine = machineOf(ctx, resource);
  if (second.states && machine && !second.states.includes(machine.initial)) throw new Skip(`not checked: a new ${resource.name} starts in '${machine.initial}', outside the uniqueness's states; the duplicate would have to be walked there`);
  const copy: Data = {};
  for (const f of u.fields) copy[f] = firstBody[f];
  if (kind === 'case') {
    const fits = (f: string) => {
      const pattern = resource.fields.find((x) => x.name === f)?.pattern;
      return !pattern || new RegExp(pattern, 'u').test(swapCase(firstBody[f] as string));
    };
    const text = u.fields.find((f) => typeof firstBody[f] === 'string' && swapCase(firstBody[f] as string) !== firstBody[f] && fits(f));
    if (!text) throw new Skip('not checked: the first record\'s values have no letters whose case could change within their pattern');
    copy[text] = swapCase(firstBody[text] as string);
  }
  const body = { ...(await data.validBody(resource, { ...(scene.as ? { as: scene.as } : {}), set: second.set })), ...copy };
  const ex = await ctx.call('POST', await data.createPath(resource, body, scene.as), { body, as: scene.as ?? null });
  if (kind === 'outside') {
    if (ex.response.status >= 200 && ex.response.status < 300) data.track(resource, ex, scene.as);
    expectSuccess(create, ex);
    return;
  }
  await data.discard(resource, ex, scene.as);
  if (ex.response.status >= 200 && ex.response.status < 300) throw new Failure(`a second ${resource.name} with ${u.fields.map((f) => `${f} ${JSON.stringify(copy[f])}`).join(', ')} was accepted (${ex.response.status}); the first has ${u.fields.map((f) => JSON.stringify(firstBody[f])).join(', ')}`, ex);
  expectCode(ctx, ex, u.error);
}

/** An update giving a second record the values of a first: refused, and the second keeps its own. */
async function onto(ctx: TestContext, data: DataFactory, resource: Resource, u: UniqueRule): Promise<void> {
  const update = ctx.endpoint(resource.name, 'update');
  if (!update) throw new Skip(`not checked: ${resource.name} has no update`);
  const scene = new Scene(ctx, data, resource);
  const as = scene.as ? { as: scene.as } : {};
  const first = await data.validBody(resource, { ...as, room: 1 });
  await scene.create(resource, first, `the first ${resource.name}`);
  const second = await scene.create(resource, await data.validBody(resource, as), `the second ${resource.name}`);
  const copy: Data = Object.fromEntries(u.fields.map((f) => [f, first[f]]));
  const ex = await scene.send(update, second, copy);
  if (ex.response.status >= 200 && ex.response.status < 300) throw new Failure(`changing a second ${resource.name} to ${u.fields.map((f) => `${f} ${JSON.stringify(copy[f])}`).join(', ')}, which the first has, was accepted (${ex.response.status})`, ex);
  expectCode(ctx, ex, u.error);
  const after = await scene.read(resource, second.id);
  const changed = u.fields.filter((f) => after && after[f] !== second.data[f]);
  if (changed.length) throw new Failure(`the refused update changed ${changed.join(', ')} of the second ${resource.name}`, ex);
}

/** The text with every letter's case changed (upper to lower and back). */
function swapCase(text: string): string {
  return [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
}
