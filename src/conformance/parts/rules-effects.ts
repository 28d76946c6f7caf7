/**
 * Effects (issue #14): after each write that declares effects, a read of the record and of
 * the records its refs point to shows each effect applied — a field set to the value its
 * expression gives (computed locally in CEL; a time within the request's window), a field
 * incremented by exactly its step (a book's `available` one down after `approve`). One
 * write per write-with-effects, made on records of the check's own whose guards hold; one
 * result per effect, so a report names the one that was not applied.
 */
import { fromCel } from '../../spec/domain/cel.ts';
import type { Field, Resource } from '../../spec/model.ts';
import { Failure, Skip, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { isObject, jsonEqual } from '../expect.ts';
import type { Exchange } from '../http.ts';
import type { DomainWrite } from '../rules-data.ts';
import { judge, selfOf } from './rules-guards.ts';
import { CLOCK_SKEW_MS, fromStates, partOf, requestFor, sameId, Scene, writeName, type SceneRecord } from './rules-scene.ts';

type Data = Record<string, unknown>;

interface Fired {
  readonly scene: Scene;
  readonly write: DomainWrite;
  readonly exchange: Exchange;
  /** The variables the write's expressions saw (before it). */
  readonly vars: Data;
  readonly before: { readonly self: Data; readonly targets: ReadonlyMap<string, Data> };
  readonly after: { readonly self?: Data; readonly targets: ReadonlyMap<string, Data> };
  readonly from: number;
  readonly to: number;
}

export async function checkEffects(ctx: TestContext, data: DataFactory, part: 'resources' | 'states' | 'endpoints'): Promise<void> {
  for (const resource of ctx.spec.resources) {
    for (const write of data.domain.writes(resource)) {
      if (partOf(write) !== part || !write.rules.effects.length) continue;
      let fired: Promise<Fired> | undefined;
      const once = () => (fired ??= fire(ctx, data, resource, write));
      for (const effect of write.rules.effects) {
        const target = effect.ref === undefined ? resource : ctx.resource(resource.fields.find((f) => f.name === effect.ref)?.resource ?? '');
        if (!target) continue;
        const where = effect.ref === undefined ? resource.name : `${effect.ref} (${target.name})`;
        const items = [
          ...effect.set.map((s) => ({ field: s.field, text: `set ${s.field} = ${s.expr.source}`, verify: (f: Fired) => verifySet(f, effect.ref, target, s.field, s.expr) })),
          ...effect.increment.map((i) => ({ field: i.field, text: `increment ${i.field} by ${i.by}`, verify: (f: Fired) => verifyIncrement(f, effect.ref, i.field, i.by) })),
        ];
        for (const item of items) {
          const id = `${resource.name}.${writeName(write)}.effect.${effect.ref ?? 'self'}.${item.field}`;
          const title = `${resource.name}: after ${writeName(write)}, ${where}.${item.field} reads as its effect says (${item.text})`;
          await ctx.check(part, id, title, { pointer: effect.pointer, text: `effect on ${where}: ${item.text}` }, async () => item.verify(await once()));
        }
      }
    }
  }
}

/** The write, made once on records of its own whose guards hold, with reads before and after. */
async function fire(ctx: TestContext, data: DataFactory, resource: Resource, write: DomainWrite): Promise<Fired> {
  const scene = new Scene(ctx, data, resource);
  if (write.kind === 'create') await scene.makeTargets();
  else await scene.makeSubject(fromStates(ctx, resource, write));
  const body = write.kind === 'create' ? await scene.body() : await requestFor(scene, write);
  const j = judge(scene, write, body);
  if (j.first !== -1) throw new Skip(`not checked: in the tester's setup the guard \`${write.rules.guards[j.first]?.expr.source}\` would refuse the write`);
  const before = { self: scene.subject ? { ...scene.subject.data } : selfOf(scene, write, body), targets: new Map([...scene.targets].map(([k, t]) => [k, { ...t.data }])) };
  const from = ctx.now();
  const ex = await scene.fire(write, scene.subject, body);
  const to = ctx.now();
  if (ex.response.status < 200 || ex.response.status >= 300) throw new Failure(`${writeName(write)} was refused (${ex.response.status}) although every guard holds for the records the tester made, so its effects cannot be seen: ${ex.response.text.slice(0, 200)}`, ex);
  let subject: SceneRecord | undefined = scene.subject;
  if (write.kind === 'create') {
    scene.data.track(resource, ex, scene.as);
    const idField = scene.data.idField(resource);
    const created = isObject(ex.response.json) ? ex.response.json[idField] : undefined;
    if (typeof created === 'string' || typeof created === 'number') subject = { resource, id: String(created), data: ex.response.json as Data };
  }
  await scene.refresh();
  const self = subject && write.kind !== 'delete' ? ((await scene.read(resource, subject.id)) ?? subject.data) : undefined;
  const targets = new Map<string, Data>();
  for (const [k, t] of scene.targets) targets.set(k, t.data);
  return { scene, write, exchange: ex, vars: j.vars, before, after: { ...(self ? { self } : {}), targets }, from, to };
}

function readAfter(f: Fired, ref: string | undefined): Data {
  const after = ref === undefined ? f.after.self : f.after.targets.get(ref);
  if (!after) throw new Skip(`not checked: the tester cannot read the ${ref ?? 'record'} after the write (no read endpoint${ref === undefined ? ', or the write removed it' : ''})`);
  return after;
}

function verifySet(f: Fired, ref: string | undefined, target: Resource, name: string, expr: { source: string; pointer: string }): void {
  const after = readAfter(f, ref);
  const field = target.fields.find((x) => x.name === name) as Field;
  const value = f.scene.data.domain.evaluate(f.scene.resource, expr, { ...f.vars, now: new Date(f.from) }, f.write);
  const got = after[name];
  if (value === undefined) {
    const was = ref === undefined ? f.before.self[name] : f.before.targets.get(ref)?.[name];
    if (!jsonEqual(got, was)) throw new Failure(`'${expr.source}' has no value for this write, so ${name} should stay ${JSON.stringify(was)}; it reads ${JSON.stringify(got)}`, f.exchange);
    return;
  }
  // The time of the write, however the expression came to it (`now`, `cond ? now : old.x`): within the request's time.
  if (value instanceof Date && value.getTime() === f.from) {
    const at = typeof got === 'string' ? Date.parse(got) : Number.NaN;
    const lo = f.from - CLOCK_SKEW_MS;
    const hi = f.to + CLOCK_SKEW_MS;
    const day = field.format === 'date';
    if (Number.isNaN(at)) throw new Failure(`${name} should be the time of the write; it reads ${JSON.stringify(got)}`, f.exchange);
    if (day ? at < Date.parse(new Date(lo).toISOString().slice(0, 10)) || at > hi : at < lo || at > hi) throw new Failure(`${name} reads ${String(got)}, not the time of the write (${new Date(f.from).toISOString()} to ${new Date(f.to).toISOString()}, ±${CLOCK_SKEW_MS / 1000} s)`, f.exchange);
    return;
  }
  const expected = fromCel(value, field);
  if (!jsonEqual(got, expected) && !sameId(got, expected)) throw new Failure(`${name} reads ${JSON.stringify(got)}, not ${JSON.stringify(expected)} ('${expr.source}')`, f.exchange);
}

function verifyIncrement(f: Fired, ref: string | undefined, name: string, by: number): void {
  const after = readAfter(f, ref);
  const was = ref === undefined ? f.before.self[name] : f.before.targets.get(ref)?.[name];
  const base = typeof was === 'number' ? was : 0;
  const got = after[name];
  if (got !== base + by) throw new Failure(`${name} reads ${JSON.stringify(got)}; it was ${JSON.stringify(was ?? null)} before the write, and the effect ${by < 0 ? `takes ${-by} off` : `adds ${by}`} (${base + by} expected)`, f.exchange);
}
