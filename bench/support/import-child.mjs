/**
 * One measured run of the import bench, in a child process of its own so that its peak RSS is
 * its own: `node import-child.mjs <mode> <file> [out]` prints {ms, cpuMs, maxRssMb, ...}.
 * Plain JavaScript on the built package (dist/), as an installed svcspec runs: the TypeScript
 * sources would add Node's type stripping to what is measured.
 *   cli        `svcspec import <file> -o <out>`: what a user runs (the import in its worker)
 *   library    importOpenApi(file) in this thread: everything the command does but write
 *   baseline   read + JSON.parse + swagger-parser's validation: what any validating reader pays
 */
import { writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import SwaggerParser from '@apidevtools/swagger-parser';

const [mode, file, out] = process.argv.slice(2);
const dist = new URL('../../dist/', import.meta.url);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let extra = {};
// The command exits the process itself: the figures are written on the way out (stdout is a pipe).
process.on('exit', (code) => {
  const cpu = process.cpuUsage(cpu0);
  const figures = { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, ...extra };
  if (code === 0) writeSync(1, `${JSON.stringify(figures)}\n`);
});
if (mode === 'cli') {
  const { run } = await import(new URL('cli/main.js', dist).href);
  // The command's summary goes to stderr; this child's stdout is kept for its figures.
  await run(['import', file, '-o', out]);
} else if (mode === 'library') {
  const { importOpenApi } = await import(new URL('import/index.js', dist).href);
  const r = await importOpenApi(file);
  if (!r.value) throw new Error(`the bench input does not import: ${r.diagnostics.map((d) => d.message).join('; ')}`);
  extra = { findings: r.diagnostics.length, endpoints: r.value.spec.endpoints.length, resources: r.value.spec.resources.length };
} else {
  const doc = JSON.parse(await readFile(file, 'utf8'));
  await SwaggerParser.validate(doc);
}
