/**
 * The one place a store is opened from where it is named: a PostgreSQL URL
 * (`postgres://…` or `postgresql://…`) opens the PostgreSQL adapter, anything else is a
 * SQLite file (or ':memory:'). `svcspec serve`, `credentials` and `webhooks` all open
 * their store here, so they agree on what a `--db` means.
 */
import type { Store } from './store.ts';

export interface OpenStoreOptions {
  /** SQLite only: what an acknowledged write survives (src/store/sqlite.ts). PostgreSQL's is the server's `synchronous_commit`. */
  readonly durability?: 'full' | 'normal';
}

export function isDatabaseUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

/** The target as it may be shown: a URL without its password. */
export function describeTarget(target: string): string {
  if (!isDatabaseUrl(target)) return target;
  try {
    const url = new URL(target);
    if (url.password) url.password = '***';
    return `PostgreSQL ${url.toString()}`;
  } catch {
    return 'PostgreSQL (a URL that does not parse)';
  }
}

export async function openStore(target: string, options: OpenStoreOptions = {}): Promise<Store> {
  // Each adapter is loaded only when asked for: a SQLite service never loads the PostgreSQL client.
  if (isDatabaseUrl(target)) {
    const { openPostgresStore } = await import('./postgres.ts');
    return openPostgresStore({ url: target });
  }
  const { openSqliteStore } = await import('./sqlite.ts');
  return openSqliteStore({ path: target, durability: options.durability ?? 'full' });
}
