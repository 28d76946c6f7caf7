import type { Version, Versioning } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { defined, entries, isRecord, str } from './read.ts';

const STATUSES: readonly string[] = ['current', 'deprecated', 'retired'];

export function normalizeVersioning(raw: unknown, pointer: string): Versioning {
  if (!isRecord(raw)) return { versions: [], pointer };
  const select = isRecord(raw.select) ? raw.select : {};
  return defined({
    select: str(select.header) !== undefined ? { by: 'header' as const, name: str(select.header) as string }
      : str(select.query) !== undefined ? { by: 'query' as const, name: str(select.query) as string }
      : str(select.path) !== undefined ? { by: 'path' as const, prefix: str(select.path) as string }
      : undefined,
    default: str(raw.default),
    versions: entries(raw.versions).map(([name, value]): Version => {
      const v = isRecord(value) ? value : {};
      const status = str(v.status) ?? '';
      return defined({
        name,
        status: (STATUSES.includes(status) ? status : 'current') as Version['status'],
        released: str(v.released),
        deprecated: str(v.deprecated),
        sunset: str(v.sunset),
        docs: str(v.docs),
        pointer: child(pointer, 'versions', name),
      });
    }),
    pointer,
  });
}
