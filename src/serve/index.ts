/**
 * `svcspec/serve`: the reference service as a library. The app factory never listens (the
 * caller does, or injects requests), and the store is passed in. A subpath of its own, so that
 * `import 'svcspec'` (load, check, doc, export) loads neither Fastify nor node:sqlite.
 */
export { createApp, type AppOptions } from './app.ts';
export { ActionError, type ActionHandler, type ActionHandlers, type ActionInput } from './actions.ts';
export { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from '../store/sqlite.ts';
export type { Store, StoredRecord } from '../store/store.ts';
// A SQLite path or a PostgreSQL URL; the PostgreSQL client is loaded only when a URL is given.
export { openStore, type OpenStoreOptions } from '../store/open.ts';
export { memoryCounter, type RateCounter } from './limits/rate.ts';
// For a program that serves an app it built: call first thing (the CLI's serve does).
export { settleNextTick } from './tick-warm-up.ts';
