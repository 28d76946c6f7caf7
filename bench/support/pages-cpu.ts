/**
 * The serve bench's two page servers (svcspec and the hand-written baseline) compared by the
 * CPU time each process spends per page of 20, split into user and system time (/proc/<pid>/stat),
 * over four interleaved rounds of 4 s under autocannon. Callgrind (./pages-count.ts) counts
 * user-space instructions only: a syscall more per request (a read transaction of SQLite's
 * of its own takes two fcntl locks, issue #20) shows here as system time and nowhere there.
 * With STRACE=1 it also prints each server's syscalls over 2 s of load (strace -c -f).
 *
 *   node bench/support/pages-cpu.ts
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runNode, startServer, type ServerProcess } from './children.ts';
import { sample } from './load.ts';
import { seedRecords, walkPages } from './serve-checks.ts';

const run = promisify(execFile);
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'svcspec-pages-cpu-'));
const readyFrom = (line: string) => {
  const m = /"port":(\d+)/.exec(line);
  return m ? Number(m[1]) : undefined;
};
try {
  const seed = join(dir, 'seed.json');
  await writeFile(seed, JSON.stringify(seedRecords()));
  const spec = here('../fixtures/items.yaml');
  await runNode('svcspec seeding', [here('../servers/svcspec-seed.ts'), spec, join(dir, 'svcspec.db'), seed]);
  const servers: { server: ServerProcess; pages: string[]; responses: number; user: number; system: number }[] = [];
  for (const [name, args] of [
    ['hand-written', [here('../servers/hand-written.ts'), join(dir, 'hand.db'), 'normal', seed]],
    ['svcspec', [here('../servers/svcspec.ts'), spec, join(dir, 'svcspec.db'), 'normal']],
  ] as const) {
    const server = await startServer({ name, args, readyFrom });
    const pages = await walkPages({ kind: name, process: { url: server.url } as never, pages: [], headers: {} });
    servers.push({ server, pages, responses: 0, user: 0, system: 0 });
  }
  const load = (s: (typeof servers)[number], seconds: number) =>
    sample({ url: s.server.url, method: 'GET', path: () => s.pages[Math.floor(Math.random() * s.pages.length)]!, expect: 200, connections: 10 }, seconds);
  // Clock ticks of user and system time (fields 14 and 15 of /proc/<pid>/stat, after the name).
  const ticks = (pid: number) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { user: Number(fields[11]), system: Number(fields[12]) };
  };
  for (const s of servers) await load(s, 3); // warm-up
  for (let round = 0; round < 4; round++) {
    for (const s of servers) {
      const before = ticks(s.server.child.pid!);
      const r = await load(s, 4);
      const after = ticks(s.server.child.pid!);
      s.responses += r.responses;
      s.user += after.user - before.user;
      s.system += after.system - before.system;
    }
  }
  const tick = 1e6 / 100; // µs per clock tick (USER_HZ)
  for (const s of servers) {
    const per = (x: number) => ((x * tick) / s.responses).toFixed(1);
    console.log(`${s.server.name.padEnd(12)}  ${s.responses} pages  user ${per(s.user)} µs  system ${per(s.system)} µs  total ${per(s.user + s.system)} µs a page`);
  }
  if (process.env.STRACE) {
    for (const s of servers) {
      const traced = run('timeout', ['-s', 'INT', '3', 'strace', '-c', '-f', '-p', String(s.server.child.pid)]).catch((e: { stderr?: string }) => e);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const r = await load(s, 2);
      const out = (await traced) as { stderr?: string };
      console.log(`\n${s.server.name}: ${r.responses} pages\n${(out.stderr ?? '').split('\n').filter((l) => !l.startsWith('strace:')).join('\n')}`);
    }
  }
  for (const s of servers) await s.server.stop();
} finally {
  await rm(dir, { recursive: true, force: true });
}
