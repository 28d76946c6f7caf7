/**
 * The proxy's judging alone (issue #19): what forward.ts does with a request and its answer in
 * report mode (decide, then done, the judgement run as the proxy runs it, a turn later),
 * fed the answers `svcspec serve` gives on bench/fixtures/items.yaml: a read of one item and
 * a page of 20. No sockets and no other process, so its CPU per exchange moves far less with
 * the machine's load than the proxy bench's figures: it is the judging's own cost, the part
 * of the proxy's CPU per request above its wire floor that the proxy's code decides.
 *
 * SVCSPEC_BENCH_SECONDS  not used: 5 runs of 20,000 exchanges per kind, the median printed
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSpec } from '../src/load/index.ts';
import { decide } from '../src/proxy/forward.ts';
import { Judge } from '../src/proxy/judge.ts';
import { runNode, startServer } from './support/children.ts';
import { seedRecords } from './support/serve-checks.ts';
import { textTable } from './support/timing.ts';
import type { BenchOutcome } from './run.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const SPEC = here('./fixtures/items.yaml');
const RUNS = 5;
const EXCHANGES = 20_000;

interface Captured {
  readonly path: string;
  readonly status: number;
  readonly fields: string[];
  readonly body: Buffer;
}

export async function proxyJudgeBench(): Promise<BenchOutcome> {
  const dir = await mkdtemp(join(tmpdir(), 'svcspec-bench-judge-'));
  try {
    const records = seedRecords().slice(0, 200);
    await writeFile(join(dir, 'seed.json'), JSON.stringify(records));
    await runNode('svcspec seeding', [here('./servers/svcspec-seed.ts'), SPEC, join(dir, 'items.db'), join(dir, 'seed.json')]);
    const service = await startServer({ name: 'svcspec serve', args: [here('./servers/svcspec.ts'), SPEC, join(dir, 'items.db'), 'normal'], readyFrom: (line) => (/^\{"port":(\d+)\}$/.exec(line.trim()) ? Number(/\d+/.exec(line)![0]) : undefined) });
    const get = async (path: string): Promise<Captured> => {
      const { request } = process.getBuiltinModule('node:http');
      return new Promise((resolve, reject) => request(`${service.url}${path}`, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ path, status: res.statusCode ?? 0, fields: res.rawHeaders, body: Buffer.concat(chunks) }));
      }).on('error', reject).end());
    };
    const kinds = { read: await get(`/items/${records[7]!.id}`), page: await get('/items?limit=20') };
    await service.stop();
    const spec = (await loadSpec(SPEC)).value;
    if (!spec || kinds.read.status !== 200 || kinds.page.status !== 200) {
      console.error('proxy-judge bench: the service did not answer the read and the page');
      return { name: 'proxy-judge', ok: false };
    }
    const judge = new Judge(spec);
    let findings = 0;
    const options = { judge, upstream: new URL('http://127.0.0.1:3000'), mode: 'report' as const, onFindings: (found: readonly unknown[]) => void (findings += found.length) };
    const self = { url: 'http://127.0.0.1:3001' };
    const fields = ['Host', '127.0.0.1:3001', 'User-Agent', 'autocannon', 'Accept', '*/*'];
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const rows: string[][] = [];
    for (const [kind, a] of Object.entries(kinds)) {
      const once = () => {
        const d = decide(options, self, { method: 'GET', url: a.path, fields, body: Buffer.alloc(0) });
        if (!('forward' in d)) throw new Error('the proxy answered the request itself');
        d.forward.hold(a.status, a.fields);
        d.forward.done(a.status, a.fields, a.body, a.body.length);
      };
      // The proxy judges a turn's answers together, a turn later: 50 a turn here.
      const run = async () => {
        for (let i = 0; i < EXCHANGES; i++) {
          once();
          if (i % 50 === 49) await turn();
        }
        await turn();
      };
      await run();
      const us: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        const before = process.cpuUsage();
        await run();
        const spent = process.cpuUsage(before);
        us.push((spent.user + spent.system) / EXCHANGES);
      }
      us.sort((x, y) => x - y);
      rows.push([kind, `${a.body.length} bytes`, us[Math.floor(RUNS / 2)]!.toFixed(1), `${us[0]!.toFixed(1)}–${us[RUNS - 1]!.toFixed(1)}`]);
    }
    console.log(`judging one exchange in report mode, CPU µs (this process: user + system), ${RUNS} runs of ${EXCHANGES.toLocaleString('en')}`);
    console.log(textTable(['exchange', 'answer', 'median µs', 'range µs'], rows));
    if (findings) console.error(`proxy-judge bench: the judge found ${findings} findings in answers of a service that keeps the spec`);
    return { name: 'proxy-judge', ok: findings === 0 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
