/**
 * Rate-limit counters shared by every instance of a service (./rate.ts: RateCounter), for
 * several `svcspec serve` processes behind one balancer. In each, checking the window and
 * taking from it is one atomic operation of the shared server, so concurrent requests on
 * different instances are counted one after the other, and a burst spread across them is
 * admitted up to the limit and never beyond.
 *
 *   Redis (`--redis URL`, or SVCSPEC_REDIS_URL): one Lua script per request (EVALSHA, run
 *   atomically by Redis): read the window's count, refuse at the limit, else INCR, and give
 *   a new window its expiry (PEXPIRE). Windows expire by themselves in Redis.
 *
 *   PostgreSQL (the store's database, when no Redis is given): one upsert per request on
 *   the store's `rate_windows` table (src/store/postgres-schema.ts). The row lock of
 *   INSERT … ON CONFLICT DO UPDATE orders concurrent takes of one window; a closed window
 *   is reopened by the same statement. Closed windows are deleted now and then.
 *
 * Windows are opened by the instance's clock (its `now`), as the memory counter's are: the
 * instances' clocks are taken to agree within a fraction of the window (NTP).
 */
import type { Sql } from 'postgres';
import type { RateCounter, RatePolicy, RateTake } from './rate.ts';

/** How often closed windows are deleted from the PostgreSQL table. */
const PRUNE_MS = 60_000;

/**
 * KEYS[1] the window; ARGV[1] the limit, ARGV[2] the window in ms. Returns {admitted 0/1,
 * used, ms until it closes}. A refused request takes nothing.
 */
const TAKE_SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local limit = tonumber(ARGV[1])
if used >= limit then
  return {0, used, redis.call('PTTL', KEYS[1])}
end
used = redis.call('INCR', KEYS[1])
if used == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {1, used, redis.call('PTTL', KEYS[1])}
`;

/** A window's key: the policy and the client, apart from other services' keys by a prefix. */
function windowKey(prefix: string, policy: RatePolicy, key: string): string {
  return `${prefix}${policy.name}\u0000${key}`;
}

export interface RedisCounterOptions {
  readonly url: string;
  /** Keeps services sharing one Redis apart; default 'svcspec:rate:'. */
  readonly prefix?: string;
}

export async function redisCounter(options: RedisCounterOptions): Promise<RateCounter> {
  const prefix = options.prefix ?? 'svcspec:rate:';
  // Loaded only when a Redis URL is given. Through the default export: ioredis is CommonJS,
  // whose module.exports is the default from dist/ and from the CLI's bundle alike (the
  // bundle gives CommonJS no named exports); it carries the Redis class as `Redis`.
  const { Redis } = (await import('ioredis')).default;
  const redis = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  // Errors reach each command's promise; the client's own 'error' events would crash an unlistened emitter.
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`Redis at ${redact(options.url)} cannot be reached: ${(error as Error).message}`);
  }
  redis.defineCommand('svcspecTake', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  const take = (redis as unknown as { svcspecTake(key: string, limit: number, windowMs: number): Promise<[number, number, number]> }).svcspecTake.bind(redis);
  return {
    where: `Redis ${redact(options.url)}`,
    async take(policy, key, now): Promise<RateTake> {
      const [admitted, used, ttl] = await take(windowKey(prefix, policy, key), policy.limit, policy.windowMs);
      return { admitted: admitted === 1, used, closesAt: now + Math.max(0, ttl) };
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

export function postgresCounter(sql: Sql): RateCounter {
  let pruned = 0;
  return {
    where: 'PostgreSQL (the store\'s database)',
    async take(policy, key, now): Promise<RateTake> {
      // `used` may go one past the limit: that is how a refused take is told from the one that reached it.
      const [row] = await sql.unsafe<{ used: number; closes_at: string }[]>(`INSERT INTO rate_windows AS w (policy, key, closes_at, used) VALUES ($1, $2, $3::bigint + $4::bigint, 1)
        ON CONFLICT (policy, key) DO UPDATE SET
          used = CASE WHEN w.closes_at <= $3::bigint THEN 1 ELSE least(w.used + 1, $5::int + 1) END,
          closes_at = CASE WHEN w.closes_at <= $3::bigint THEN $3::bigint + $4::bigint ELSE w.closes_at END
        RETURNING used, closes_at`, [policy.name, key, now, policy.windowMs, policy.limit], { prepare: true }).execute();
      if (now - pruned > PRUNE_MS) {
        pruned = now;
        void sql.unsafe('DELETE FROM rate_windows WHERE closes_at <= $1', [now], { prepare: true }).catch(() => {});
      }
      const admitted = row.used <= policy.limit;
      return { admitted, used: Math.min(row.used, policy.limit), closesAt: Number(row.closes_at) };
    },
  };
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(a URL that does not parse)';
  }
}
