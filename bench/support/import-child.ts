/**
 * One measured run of the import bench, in a child process of its own so that its peak RSS is
 * its own: `node import-child.ts <import|baseline> <file>` prints {ms, cpuMs, maxRssMb, ...}.
 *   import     importOpenApi(file), everything `svcspec import` does but write the file
 *   baseline   read + JSON.parse + swagger-parser's validation: what any validating reader pays
 */
import { readFile } from 'node:fs/promises';
import SwaggerParser from '@apidevtools/swagger-parser';
import { importOpenApi } from '../../src/import/index.ts';

const [mode, file] = process.argv.slice(2);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let extra: Record<string, unknown> = {};
if (mode === 'import') {
  const r = await importOpenApi(file);
  if (!r.value) throw new Error(`the bench input does not import: ${r.diagnostics.map((d) => d.message).join('; ')}`);
  extra = { findings: r.diagnostics.length, endpoints: r.value.spec.endpoints.length, resources: r.value.spec.resources.length };
} else {
  const doc = JSON.parse(await readFile(file, 'utf8'));
  await SwaggerParser.validate(doc);
}
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, ...extra }));
