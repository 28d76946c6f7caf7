/**
 * Record rules (issue #14): for each CEL rule of a resource, a record that breaks it (and no
 * rule before it: the first false one refuses) is refused with the bound error, pointing at
 * the rule's field when it names one. The violating record is found by search, field by
 * field, among generated candidates and the fields' bounds, judged by the rule evaluated
 * locally: first a create; where every create keeps the rule (it reads a value the service
 * sets, as `available <= copies` does), an update of a record made for it, which must then
 * leave the record as it was.
 */
import { refusedAt } from '../envelope.ts';
import type { Field, RecordRule, Resource } from '../../spec/model.ts';
import { Failure, Skip, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { isObject, jsonEqual } from '../expect.ts';
import type { Exchange } from '../http.ts';
import { valueOf } from '../generate.ts';
import { selfFields } from '../rules-data.ts';
import { expectCode, Scene } from './rules-scene.ts';

type Data = Record<string, unknown>;

/** Base records drawn, and values tried per field on each. */
const BASES = 6;
const VALUES = 12;

export async function checkRecordRules(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const resource of ctx.spec.resources) {
    for (const [i, rule] of resource.rules.entries()) {
      const id = `${resource.name}.rule.${i + 1}`;
      const title = `${resource.name}: a record breaking \`${rule.expr.source}\` is refused with ${rule.error}`;
      await ctx.check('resources', id, title, { pointer: rule.pointer, text: `rule ${rule.expr.source} → ${rule.error}` }, () => provoke(ctx, data, resource, rule));
    }
  }
}

/** The values of a field at its bounds (and 0, 1, true, false, its enum, null), nothing drawn. */
function bounds(f: Field): unknown[] {
  const out: unknown[] = [];
  if (f.type === 'integer' || f.type === 'number') {
    for (const v of [f.minimum, f.maximum, f.minimum !== undefined ? f.minimum + 1 : undefined, 0, 1]) if (v !== undefined && (f.minimum === undefined || v >= f.minimum) && (f.maximum === undefined || v <= f.maximum)) out.push(v);
  }
  if (f.type === 'boolean') out.push(true, false);
  if (f.enum) out.push(...f.enum);
  if (f.nullable) out.push(null);
  return out;
}

/** Values worth trying for a field: its bounds and a few drawn ones. */
function candidates(ctx: TestContext, f: Field): unknown[] {
  const out = bounds(f);
  while (out.length < VALUES) out.push(ctx.draw.one(valueOf(f)));
  return out;
}

async function provoke(ctx: TestContext, data: DataFactory, resource: Resource, rule: RecordRule): Promise<void> {
  const domain = data.domain;
  const breaksFirst = (record: Data) => domain.brokenRule(resource, record, ctx.now()) === rule;
  const read = new Set(selfFields(rule.expr));
  const fields = data.createFields(resource, ctx.version).filter((f) => f.type !== 'ref' && read.has(f.name));
  const create = data.createEndpointOrUndefined(resource);
  const scene = new Scene(ctx, data, resource);
  // 1. A create whose record breaks the rule.
  if (create && fields.length) {
    for (let b = 0; b < BASES; b++) {
      const base: Data = {};
      for (const f of data.createFields(resource, ctx.version)) if (f.type !== 'ref') base[f.name] = ctx.draw.one(valueOf(f));
      let set: Data | undefined = breaksFirst(domain.predictCreate(resource, base, ctx.now())) ? Object.fromEntries(fields.map((f) => [f.name, base[f.name]])) : undefined;
      for (const f of fields) {
        if (set) break;
        for (const v of candidates(ctx, f)) {
          if (breaksFirst(domain.predictCreate(resource, { ...base, [f.name]: v }, ctx.now()))) {
            set = { ...Object.fromEntries(fields.map((x) => [x.name, base[x.name]])), [f.name]: v };
            break;
          }
        }
      }
      if (!set) continue;
      const body = await data.validBody(resource, { ...(scene.as ? { as: scene.as } : {}), set, rules: false, accept: breaksFirst });
      const ex = await ctx.call('POST', await data.createPath(resource, body, scene.as), { body, as: scene.as ?? null });
      await data.discard(resource, ex, scene.as);
      if (ex.response.status >= 200 && ex.response.status < 300) throw new Failure(`a ${resource.name} with ${describe(set)} breaks \`${rule.expr.source}\` and was accepted (${ex.response.status})`, ex);
      expectCode(ctx, ex, rule.error);
      return pointsAt(ctx, ex, rule);
    }
  }
  // 2. An update of a record made for the check.
  const update = ctx.endpoint(resource.name, 'update');
  const writable = data.writable(resource, ctx.version).filter((f) => f.type !== 'ref' && !f.writeOnly && read.has(f.name));
  if (!update || !writable.length) throw new Skip(`not checked: no generated ${resource.name} breaks \`${rule.expr.source}\` on create${update ? '' : ', and the spec declares no update'}, so the tester cannot make one that does`);
  // A record one of whose fields' bounds breaks the rule once changed (a book with copies on its shelf, so fewer copies than available can be tried).
  const changeable = (record: Data) => writable.some((f) => bounds(f).some((v) => breaksFirst(domain.manage(resource, { ...record, [f.name]: v }, 'change', ctx.now()))));
  const made = await scene.create(resource, await data.validBody(resource, { ...(scene.as ? { as: scene.as } : {}), accept: changeable }), `a ${resource.name} to change`);
  const current = (await scene.read(resource, made.id)) ?? made.data;
  for (const f of writable) {
    for (const v of candidates(ctx, f)) {
      const next = domain.manage(resource, { ...current, [f.name]: v }, 'change', ctx.now());
      if (!breaksFirst(next)) continue;
      const ex = await scene.send(update, made, { [f.name]: v });
      if (ex.response.status >= 200 && ex.response.status < 300) throw new Failure(`changing ${f.name} to ${JSON.stringify(v)} leaves a ${resource.name} breaking \`${rule.expr.source}\` and was accepted (${ex.response.status})`, ex);
      expectCode(ctx, ex, rule.error);
      pointsAt(ctx, ex, rule);
      const after = await scene.read(resource, made.id);
      if (after && !jsonEqual(after[f.name], current[f.name])) throw new Failure(`the refused update changed ${f.name} from ${JSON.stringify(current[f.name])} to ${JSON.stringify(after[f.name])}`, ex);
      return;
    }
  }
  throw new Skip(`not checked: among ${BASES} generated ${resource.name}s and ${VALUES} values per field, none breaks \`${rule.expr.source}\` (first) on create or on update`);
}

/** A rule that names its field: the error lists a violation at it, where the error shape lists violations. */
function pointsAt(ctx: TestContext, ex: Exchange, rule: RecordRule): void {
  const member = ctx.errorShape.members.errors;
  if (rule.field === undefined || !member) return;
  const list = isObject(ex.response.json) ? ex.response.json[member] : undefined;
  const pointer = refusedAt(ex, `/${rule.field}`);
  if (!Array.isArray(list) || !list.some((item) => JSON.stringify(item).includes(JSON.stringify(pointer)))) throw new Failure(`the error lists no violation at '${pointer}' in '${member}' (the rule names field ${rule.field})`, ex);
}

function describe(set: Data): string {
  return Object.entries(set).map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(', ');
}
