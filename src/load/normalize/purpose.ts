import type { Purpose } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defined, isRecord, str, strs } from './read.ts';

export function normalizePurpose(raw: unknown, pointer: string): Purpose {
  if (!isRecord(raw)) return { users: [] };
  const users = Array.isArray(raw.users) ? raw.users : [];
  return defined({
    name: str(raw.name),
    summary: str(raw.summary),
    users: users.filter(isRecord).map((u, i) =>
      defined({ name: str(u.name) ?? '', description: str(u.description), tasks: strs(u.tasks), pointer: child(pointer, 'users', i) }),
    ),
  });
}
