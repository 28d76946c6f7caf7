/**
 * Part 4: path parameters of a shape of their own (`params: { day: { type: string, format:
 * date } }`). For an endpoint whose parameters are such values, and the record's id at most
 * (`/articles/{id}/comments/{commentId}`, a record the run makes): a path whose values fit
 * is not refused for them, and each constraint of each parameter broken one at a time is
 * refused with validation-failed at `/path/<name>` (src/spec/conventions/paths.ts).
 */
import { fillPath, idParam, pathPointer } from '../../spec/conventions/paths.ts';
import type { Field } from '../../spec/model.ts';
import { Failure, type TestContext } from '../context.ts';
import type { DataFactory, Made } from '../data.ts';
import { expectError } from '../expect.ts';
import { breaches, valueOf } from '../generate.ts';

export async function checkPathParams(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const e of ctx.spec.endpoints) {
    const shaped = e.params.filter((p) => p.binding.kind === 'value');
    if (!shaped.length) continue;
    const others = e.params.filter((p) => p.binding.kind !== 'value');
    const resource = ctx.resource(e.resource);
    const byId = others.length === 1 && others[0]!.binding.kind === 'id' && resource !== undefined;
    if ((others.length && !byId) || e.select !== undefined) {
      ctx.skip('endpoints', `${e.id}.path-params`, `${e.id}: its shaped path parameters`, 'the path also needs a parent; the tester checks shaped values beside a record id only');
      continue;
    }
    // As every check that needs a record of a resource without a create (data.createEndpoint): nothing could make one.
    if (byId && !data.createEndpointOrUndefined(resource!)) {
      ctx.skip('endpoints', `${e.id}.path-params`, `${e.id}: its shaped path parameters`, `${resource!.name} has no create endpoint, so the tester cannot make the record its path names`, { kind: 'not-applicable' });
      continue;
    }
    if (!ctx.may(ctx.main, e)) continue;
    const fields: Field[] = shaped.map((p) => ({ ...(p.binding.kind === 'value' ? p.binding.shape : { type: 'string' as const, pointer: p.pointer }), name: p.name, required: true, readOnly: false, writeOnly: false, hasDefault: false }));
    // The record the path names, where it names one: made for this endpoint's checks (the run's first where the
    // create's quota is scarce), asked for by its maker; a failure of its create fails the check that asked.
    let made: Promise<Made> | undefined;
    const record = async (): Promise<Record<string, string>> => {
      if (!byId) return {};
      made ??= data.scarce(resource!) && data.firstMade(resource!) ? Promise.resolve(data.firstMade(resource!)!) : data.create(resource!);
      return { [idParam(e) ?? 'id']: (await made).id };
    };
    /** The request's options, sent as the record's maker where the path names a record (an owned one is its maker's). */
    const options = async () => {
      const maker = byId && made ? (await made).as : undefined;
      return { ...body, ...(maker ? { as: maker } : {}) };
    };
    const shapedValues = (): Record<string, string> => Object.fromEntries(fields.map((f) => [f.name, String(ctx.draw.one(valueOf(f)))]));
    const valid = async (): Promise<Record<string, string>> => ({ ...(await record()), ...shapedValues() });
    const body = e.method === 'GET' || e.method === 'DELETE' ? {} : { body: {} };
    for (const f of fields) {
      for (const b of breaches(f, ctx.draw)) {
        // A path is text: a wrong type is text that does not read as the type (a string takes any).
        const breach = b.constraint === `type ${f.type}` ? (f.type === 'string' ? undefined : { ...b, value: f.type === 'boolean' ? 'maybe' : 'svcspec' }) : b;
        if (!breach || breach.omit || breach.value === null || typeof breach.value === 'object' || String(breach.value) === '') continue;
        const rule = { pointer: shaped.find((p) => p.name === f.name)!.pointer, text: `{${f.name}}: ${breach.constraint}` };
        await ctx.check('endpoints', `${e.id}.path.${f.name}.${breach.constraint.replace(/\s+/g, '-')}`, `${e.id}: a {${f.name}} breaking '${breach.constraint}' is refused`, rule, async () => {
          const path = fillPath(e.path, { ...(await valid()), [f.name]: String(breach.value) });
          expectError(ctx, await ctx.call(e.method, path, await options()), 'validation-failed', pathPointer(f.name));
        });
      }
    }
    await ctx.check('endpoints', `${e.id}.path-params`, `${e.id}: path values that fit their shapes are not refused`, { pointer: e.pointer, text: `${e.method} ${e.path}` }, async () => {
      const ex = await ctx.call(e.method, fillPath(e.path, await valid()), await options());
      const errors = ex.response.json !== null && typeof ex.response.json === 'object' ? JSON.stringify(ex.response.json) : '';
      if (ex.response.status === 422 && errors.includes('/path/')) throw new Failure(`fitting path values were refused: ${errors.slice(0, 200)}`, ex);
    });
  }
}
