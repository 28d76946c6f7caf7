import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule, type RuleContext } from '../rule.ts';
import { versionedVisitors, versionOrder } from './support.ts';

const inverted = defineDiagnostic({
  code: 'since-after-until',
  severity: 'error',
  part: 'versioning',
  message: "{subject} exists since version '{since}' but only until version '{until}', which is older: it is in no version.",
  description: '`since` is the first and `until` the last version in which a field or event exists, in the order the versions are listed (oldest first). `since` must not come after `until`. Swap them, or correct the versions.',
});

function check(ctx: RuleContext, subject: string, at: { since?: string; until?: string; pointer: string }): void {
  if (at.since === undefined || at.until === undefined) return;
  const order = versionOrder(ctx.spec);
  const since = order.get(at.since);
  const until = order.get(at.until);
  if (since !== undefined && until !== undefined && since > until) ctx.report(inverted, { subject, since: at.since, until: at.until }, child(at.pointer, 'since'));
}

export default defineRule({
  name: 'since-after-until',
  diagnostics: [inverted],
  ...versionedVisitors(check),
});
