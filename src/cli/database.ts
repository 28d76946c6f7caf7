/**
 * Where a command's data is: `--db` first, else the environment's SVCSPEC_DATABASE_URL (as
 * twelve-factor services take their backing services, III "Config"), else the default
 * SQLite file beside the spec (src/serve/server.ts). The same for serve, credentials and
 * webhooks, so all three reach the same data. Likewise `--redis`, else SVCSPEC_REDIS_URL.
 */
export const DB_HELP = 'SQLite file, :memory:, or a PostgreSQL URL postgres://user@host/db?schema=name (default: $SVCSPEC_DATABASE_URL, else <spec>.db next to the spec)';

export function databaseOf(flag: string | undefined): string | undefined {
  if (flag !== undefined && flag !== '') return flag;
  const env = process.env.SVCSPEC_DATABASE_URL;
  return env !== undefined && env !== '' ? env : undefined;
}

export function redisOf(flag: string | undefined): string | undefined {
  if (flag !== undefined && flag !== '') return flag;
  const env = process.env.SVCSPEC_REDIS_URL;
  return env !== undefined && env !== '' ? env : undefined;
}
