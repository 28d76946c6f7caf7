/**
 * `svcspec import` runs the import in a worker thread with a bounded young generation, and
 * hands back only text and findings (issue #17: a 4 MB document within 300 MB).
 *
 * Why a worker: building the model of a large document keeps most of what it allocates, and
 * V8 answers a high survival rate by growing the young generation, on a machine with much
 * memory up to ~130 MB of semi-spaces that then stay mapped. A process cannot change its own
 * heap limits once started (`v8.setFlagsFromString` comes too late for them); a worker's
 * `resourceLimits` set them for its own isolate. Bounded at YOUNG_MB, Box's API scaled to
 * 4.9 MB peaks about 70 MB lower at about the same time (`npm run bench -- import`).
 *
 * The worker loads the import's modules; this one loads none of them, so the command's main
 * thread stays small. A library caller who wants the model calls `importOpenApi` itself.
 */
import { Worker } from 'node:worker_threads';
import { fromSource, packageFile } from '../spec/package-files.ts';
import type { Diagnostic, Result } from '../spec/diagnostics.ts';
import type { ImportOptions } from './openapi/index.ts';

export interface ImportedText {
  readonly yaml: string;
  readonly json: string;
  /** The OpenAPI version read (`3.0.2`). */
  readonly openapi: string;
}

/** Young generation of the worker, MB: smaller costs more scavenges, larger more memory. */
const YOUNG_MB = 24;

/**
 * The worker, CommonJS (the form `eval` workers take): it imports the import module by URL,
 * the TypeScript source in a checkout or the built file in the package, the same as this one.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// An eval worker has a global require that resolves from the working directory (as \`node -e\`):
// svcspec's modules, which use a global require where one is (the bundle's), would look for
// their dependencies there, and miss them outside a project that has them.
delete globalThis.require;
import(workerData.module).then(async ({ importOpenApi }) => {
  const r = await importOpenApi(workerData.file, workerData.options);
  const value = r.value && { yaml: r.value.yaml, json: r.value.json, openapi: r.value.openapi };
  parentPort.postMessage({ value, diagnostics: r.diagnostics });
});
`;

export function importOpenApiText(file: string, options: ImportOptions = {}): Promise<Result<ImportedText | undefined>> {
  const module = packageFile(fromSource ? 'src/import/index.ts' : 'dist/import/index.js').href;
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { module, file, options },
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB },
      // The worker's output is the command's: findings are printed by the caller, from the message.
      stdout: false,
      stderr: false,
    });
    let settled = false;
    worker.once('message', (message: { value: ImportedText | undefined; diagnostics: Diagnostic[] }) => {
      settled = true;
      resolve(message);
      void worker.terminate();
    });
    // A failure inside the import is a bug of svcspec (the import reports bad documents as
    // findings): it reaches the caller as the error it was, as a direct call would throw it.
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the import's worker stopped (exit code ${code}) without an answer`));
    });
  });
}
