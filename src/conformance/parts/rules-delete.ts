/**
 * What deleting a referenced record does (issue #14, a ref field's `onDelete`): the tester
 * makes a record and one that refers to it through the field, deletes the first, and reads
 * both: `refuse` answers the bound error and keeps both; `cascade` removes the referrer;
 * `nullify` keeps it with the field null.
 */
import type { Field, Resource } from '../../spec/model.ts';
import { Failure, Skip, type TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { expectError, expectSuccess } from '../expect.ts';
import { expectCode, readRecord, sameId, Scene } from './rules-scene.ts';

export async function checkDeleteBehaviours(ctx: TestContext, data: DataFactory): Promise<void> {
  for (const referrer of ctx.spec.resources) {
    for (const field of referrer.fields) {
      if (field.type !== 'ref' || !field.onDelete || !field.resource) continue;
      const target = ctx.resource(field.resource);
      if (!target) continue;
      const how = field.onDelete.kind === 'refuse' ? `is refused with ${field.onDelete.error}` : field.onDelete.kind === 'cascade' ? `removes the ${referrer.name}` : `sets the ${referrer.name}'s ${field.name} to null`;
      const id = `${referrer.name}.${field.name}.on-delete`;
      const title = `${referrer.name}.${field.name}: deleting the ${target.name} it points to ${how}`;
      await ctx.check('resources', id, title, { pointer: field.onDelete.pointer, text: `${field.name}: onDelete ${field.onDelete.kind}${field.onDelete.kind === 'refuse' ? ` → ${field.onDelete.error}` : ''}` }, () => behaviour(ctx, data, referrer, field, target));
    }
  }
}

async function behaviour(ctx: TestContext, data: DataFactory, referrer: Resource, field: Field, target: Resource): Promise<void> {
  const del = ctx.endpoint(target.name, 'delete');
  if (!del) throw new Skip(`not checked: the spec declares no delete of ${target.name}`);
  if (!ctx.endpoint(referrer.name, 'read')) throw new Skip(`not checked: the spec declares no read of ${referrer.name}, so the tester cannot see what the delete did to it`);
  const scene = new Scene(ctx, data, referrer);
  // A ref the create does not carry (a ticket's assignee) is set after it, by the update (Scene.createSetting).
  const carried = scene.refFields().some((f) => f.name === field.name);
  await scene.makeTargets(carried ? [] : [field]);
  const pointed = scene.targets.get(field.name);
  if (!pointed) throw new Skip(`not checked: no ${target.name} could be made for ${referrer.name}.${field.name}`);
  const what = `a ${referrer.name} referring to the ${target.name}`;
  const made = carried ? await scene.create(referrer, await scene.body(), what) : await scene.createSetting(referrer, scene.refValues(), what);
  const ex = await scene.send(del, pointed);
  const onDelete = field.onDelete as NonNullable<Field['onDelete']>;
  const after = await readRecord(ctx, data, referrer, made.id);
  switch (onDelete.kind) {
    case 'refuse': {
      expectCode(ctx, ex, onDelete.error);
      const still = await readRecord(ctx, data, target, pointed.id);
      if (still && still.exchange.response.status !== 200) throw new Failure(`the delete was refused, yet the ${target.name} reads ${still.exchange.response.status}`, still.exchange);
      if (after && (after.exchange.response.status !== 200 || !sameId(after.data[field.name], pointed.id))) throw new Failure(`the delete was refused, yet the ${referrer.name} that refers to it reads ${after.exchange.response.status} with ${field.name} ${JSON.stringify(after.data[field.name])}`, after.exchange);
      return;
    }
    case 'cascade':
      expectSuccess(del, ex);
      if (after) expectError(ctx, after.exchange, 'not-found');
      return;
    case 'nullify': {
      expectSuccess(del, ex);
      if (!after) return;
      if (after.exchange.response.status !== 200) throw new Failure(`the ${referrer.name} that referred to the deleted ${target.name} reads ${after.exchange.response.status}; it should stay, with ${field.name} null`, after.exchange);
      const v = after.data[field.name];
      if (v !== null && v !== undefined) throw new Failure(`${field.name} still reads ${JSON.stringify(v)} after the ${target.name} was deleted; onDelete: nullify sets it to null`, after.exchange);
    }
  }
}
