/**
 * Durability, for real: the service runs as a child process, clients write concurrently,
 * the process is killed with SIGKILL mid-stream, restarted on the same SQLite file, and
 * every write it acknowledged (201) is found. Run for both --durability levels: a SIGKILL
 * is a process crash, which both survive (WAL); they differ only on power loss.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { killAll, ROOT, startServe } from '../support/child-server.ts';

const spec = join(ROOT, 'test/serve/fixtures/notes.yaml');

function start(db: string, durability: string) {
  return startServe([spec, '--port', '0', '--db', db, '--durability', durability, '--quiet']);
}

for (const durability of ['full', 'normal']) {
  test(`durability (${durability}): every acknowledged write survives SIGKILL`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svcspec-durability-'));
    const children: ChildProcess[] = [];
    // Every server stopped first, then its files removed (a live server would write them again).
    t.after(async () => {
      await killAll(children);
      rmSync(dir, { recursive: true, force: true });
    });
    const db = join(dir, 'notes.db');
    const first = await start(db, durability);
    children.push(first.child);
    const acknowledged: string[] = [];
    let killed = false;
    const writer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        try {
          const r = await fetch(`${first.url}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: `writer ${w} note ${i}`, n: i }) });
          if (r.status === 201) acknowledged.push(((await r.json()) as { id: string }).id);
        } catch {
          return; // the connection died with the process: that write was never acknowledged
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    // Kill mid-stream, once a good number of writes has been acknowledged.
    const deadline = Date.now() + 30_000;
    while (acknowledged.length < 300 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const exited = new Promise((r) => first.child.once('exit', r));
    first.child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    await exited;
    const count = acknowledged.length;

    const second = await start(db, durability);
    children.push(second.child);
    const missing: string[] = [];
    for (let i = 0; i < acknowledged.length; i += 50) {
      const batch = acknowledged.slice(i, i + 50);
      const statuses = await Promise.all(batch.map((id) => fetch(`${second.url}/notes/${id}`).then((r) => r.status)));
      statuses.forEach((s, j) => s !== 200 && missing.push(batch[j]));
    }
    assert.ok(count >= 300, `acknowledged ${count} writes before the kill`);
    assert.deepEqual(missing, [], `${missing.length} of ${count} acknowledged writes were lost`);
  });
}
