/**
 * The domain rules of the spec (issue #14), provoked against the implementation. Each
 * family has its file; their checks belong to the part where the rule is written:
 *
 *   resources   rules-unique.ts (unique), rules-records.ts (rules), rules-managed.ts
 *               (managed fields), rules-delete.ts (a ref's onDelete), and the guards and
 *               effects of creates and deletes (onCreate, onDelete)
 *   states      the guards and effects of transitions
 *   endpoints   the guards and effects of actions
 *
 * rules-guards.ts and rules-effects.ts serve all three; rules-scene.ts makes the records
 * each check works with; ../rules-data.ts is what generated data respects.
 */
import type { TestContext } from '../context.ts';
import type { DataFactory } from '../data.ts';
import { checkDeleteBehaviours } from './rules-delete.ts';
import { checkEffects } from './rules-effects.ts';
import { checkGuards } from './rules-guards.ts';
import { checkManaged } from './rules-managed.ts';
import { checkRecordRules } from './rules-records.ts';
import { checkUniqueness } from './rules-unique.ts';

export async function checkResourceRules(ctx: TestContext, data: DataFactory): Promise<void> {
  await checkUniqueness(ctx, data);
  await checkRecordRules(ctx, data);
  await checkManaged(ctx, data);
  await checkGuards(ctx, data, 'resources');
  await checkEffects(ctx, data, 'resources');
  await checkDeleteBehaviours(ctx, data);
}

export async function checkTransitionRules(ctx: TestContext, data: DataFactory): Promise<void> {
  await checkGuards(ctx, data, 'states');
  await checkEffects(ctx, data, 'states');
}

export async function checkActionRules(ctx: TestContext, data: DataFactory): Promise<void> {
  await checkGuards(ctx, data, 'endpoints');
  await checkEffects(ctx, data, 'endpoints');
}
