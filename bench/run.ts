/**
 * npm run bench: runs every bench in sequence and prints its figures. Benches are not
 * tests: a missed target is reported and the run still exits 0. It exits 1 only when a
 * bench cannot measure what it should (its input is invalid, say).
 *
 * Run some only by naming them: `npm run bench -- events` (or `-- check serve`); an
 * unknown name is refused, listing the names.
 *
 * Add a bench: write `<name>.bench.ts` exporting an async function that prints its figures
 * and returns a BenchOutcome, and list it in BENCHES.
 */
import { checkBench } from './check.bench.ts';
import { eventsBench } from './events.bench.ts';
import { importBench } from './import.bench.ts';
import { listsBench } from './lists.bench.ts';
import { postgresBench } from './postgres.bench.ts';
import { proxyBench } from './proxy.bench.ts';
import { proxyJudgeBench } from './proxy-judge.bench.ts';
import { rulesBench } from './rules.bench.ts';
import { serveBench } from './serve.bench.ts';
import { startupBench } from './startup.bench.ts';
import { testerBench } from './tester.bench.ts';

export interface BenchOutcome {
  readonly name: string;
  /** False when the bench could not run meaningfully; a missed target is still ok. */
  readonly ok: boolean;
}

const BENCHES: readonly { readonly name: string; readonly run: () => Promise<BenchOutcome> }[] = [
  { name: 'check', run: checkBench },
  { name: 'serve', run: serveBench },
  { name: 'lists', run: listsBench },
  { name: 'startup', run: startupBench },
  { name: 'events', run: eventsBench },
  { name: 'tester', run: testerBench },
  { name: 'postgres', run: postgresBench },
  { name: 'rules', run: rulesBench },
  { name: 'import', run: importBench },
  { name: 'proxy', run: proxyBench },
  { name: 'proxy-judge', run: proxyJudgeBench },
];

async function main(): Promise<number> {
  console.log(`node ${process.version}`);
  const major = Number(/^v(\d+)/.exec(process.version)?.[1]);
  if (major < 24) {
    console.error('The benches need Node 24 (the project pins it): run them with `npm run bench`.');
    return 1;
  }
  const names = process.argv.slice(2);
  const unknown = names.filter((n) => !BENCHES.some((b) => b.name === n));
  if (unknown.length) {
    console.error(`no bench named ${unknown.join(', ')}; the benches: ${BENCHES.map((b) => b.name).join(', ')}`);
    return 1;
  }
  const failed: string[] = [];
  for (const bench of BENCHES.filter((b) => names.length === 0 || names.includes(b.name))) {
    console.log(`\n== ${bench.name} ==`);
    const outcome = await bench.run();
    if (!outcome.ok) failed.push(outcome.name);
  }
  if (failed.length) console.error(`\nbench failed to run meaningfully: ${failed.join(', ')}`);
  return failed.length ? 1 : 0;
}

if (import.meta.main) process.exitCode = await main();
