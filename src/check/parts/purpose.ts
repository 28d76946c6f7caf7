import type { Spec } from '../../spec/model.ts';

/** Part 1: what the service does, its users and their tasks. */
export function missingPurpose(spec: Spec): string[] {
  const p = spec.purpose;
  const missing: string[] = [];
  if (!p.name) missing.push('the service name');
  if (!p.summary) missing.push('what the service does (summary)');
  if (p.users.length === 0) missing.push('its users');
  for (const u of p.users) if (u.tasks.length === 0) missing.push(`the tasks of the user '${u.name}'`);
  return missing;
}
