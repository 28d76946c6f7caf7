/**
 * A worker thread of the cross-connection test in sqlite.test.ts: its own connection to the
 * file, one transition attempt as soon as the main thread says go, the outcome posted back.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteStore } from '../../src/store/sqlite.ts';

const { path, signal, n } = workerData as { path: string; signal: SharedArrayBuffer; n: number };
const flags = new Int32Array(signal);
const store = await openSqliteStore({ path });
Atomics.add(flags, 1, 1); // ready
Atomics.wait(flags, 0, 0); // until go
const result = await store.update('things', 'door', { status: 'closed', by: n }, { state: { field: 'status', from: ['open'] } });
await store.close();
parentPort!.postMessage(result.ok ? 'ok' : result.reason);
