/**
 * Run at pack time (prepack), after tsc: bundles the command line, dist/cli/main.js with
 * everything it imports (its dependencies too), into dist/bundle/, one file per lazily loaded
 * command and shared chunks (esbuild's code splitting). The installed bin/svcspec.js runs it.
 *
 * Why (issue #20): Node loads a module graph one file at a time (resolve, read, compile, link);
 * `svcspec serve` loaded ~530 files, about half its start-up. The bundle is a few dozen.
 * The library entry points (svcspec, svcspec/serve, …) stay the unbundled dist/ modules, so a
 * program that imports svcspec shares its dependencies' single copies. What crosses from a
 * user's module into the bundled CLI (an ActionError a handler throws) is recognised by a
 * registered symbol, not by class identity (src/serve/actions.ts).
 *
 * Modules loaded by createRequire at run time (yaml, the CEL evaluator, mdast) stay out of
 * the bundle and load from node_modules when a spec needs them, as they do from dist/.
 */
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = new URL('..', import.meta.url);
const out = fileURLToPath(new URL('dist/bundle/', root));
rmSync(out, { recursive: true, force: true });

// The build's identity: a digest of every module tsc built (src/spec/package-files.ts's buildId).
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : []));
}
const hash = createHash('sha256');
const dist = fileURLToPath(new URL('dist/', root));
for (const file of filesUnder(dist).sort()) hash.update(`${file.slice(dist.length)}\0`).update(readFileSync(file)).update('\0');
const buildId = hash.digest('hex').slice(0, 32);

const result = await build({
  entryPoints: [fileURLToPath(new URL('dist/cli/main.js', root))],
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  // The floor of package.json's engines.
  target: 'node22.16',
  // CommonJS dependencies bundled into an ES module call require() for Node's built-ins;
  // esbuild's shim needs a real require in scope to hand them to.
  banner: { js: "import { createRequire as __svcspecCreateRequire } from 'node:module'; const require = __svcspecCreateRequire(import.meta.url);" },
  define: { __SVCSPEC_BUILD_ID__: JSON.stringify(buildId) },
  logLevel: 'warning',
  metafile: true,
  legalComments: 'none',
});

// The packages whose code the bundle carries, with their licence texts: their licences (MIT,
// ISC, BSD, Apache-2.0) ask that the notice travel with the code.
const packages = new Map<string, string>();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (m) packages.set(m[1] as string, input.slice(0, input.lastIndexOf(`node_modules/${m[1]}/`) + `node_modules/${m[1]}/`.length));
}
const notices: string[] = [];
for (const [name, dir] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string; license?: string };
  const file = readdirSync(dir).find((f) => /^(licen[sc]e|copying)(\.|$)/i.test(f));
  notices.push(`${name}@${manifest.version} (${manifest.license ?? 'see its package'})\n\n${file ? readFileSync(join(dir, file), 'utf8').trim() : `No licence file in the package; its package.json states ${manifest.license}.`}\n`);
}
writeFileSync(join(out, 'THIRD_PARTY_LICENSES.txt'), `The command line's bundle (dist/bundle/) carries code of these packages, each under its licence:\n\n${notices.join('\n---\n\n')}`);
const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
process.stdout.write(`bundled the command line into dist/bundle/: ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1e6).toFixed(1)} MB, code of ${packages.size} packages (THIRD_PARTY_LICENSES.txt)\n`);
