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
 * Modules the code loads only when a spec needs them (yaml for positions, the CEL evaluator,
 * the Markdown parser) are bundled too, through a literal require the bundle evaluates on its
 * first call (src/spec/domain/cel.ts). The dependencies are those of the packing checkout's
 * node_modules, as package-lock.json pins them: the CLI carries those versions until the next
 * release, while the library's imports use what the user's install resolved.
 */
import { createHash } from 'node:crypto';
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = new URL('..', import.meta.url);
const out = fileURLToPath(new URL('dist/bundle/', root));
rmSync(out, { recursive: true, force: true });

// The build's identity (src/spec/package-files.ts's buildId) is a digest of the bundle itself,
// its dependencies' code included: built with a placeholder of the same length, then set.
const PLACEHOLDER = 'svcspec-build-id-placeholder-000';

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
  define: { __SVCSPEC_BUILD_ID__: JSON.stringify(PLACEHOLDER) },
  logLevel: 'warning',
  metafile: true,
  legalComments: 'none',
  write: false,
});
const hash = createHash('sha256');
for (const file of [...result.outputFiles].sort((a, b) => a.path.localeCompare(b.path))) hash.update(`${file.path.slice(out.length)}\0`).update(file.contents).update('\0');
const buildId = hash.digest('hex').slice(0, PLACEHOLDER.length);
for (const file of result.outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, file.text.replaceAll(PLACEHOLDER, buildId));
}

// The packages whose code the bundle carries, with their licence texts: their licences (MIT,
// ISC, BSD, Apache-2.0) ask that the notice travel with the code. One entry per version (a
// package may be bundled in two).
const packages = new Map<string, string>();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (m) packages.set(m[1] as string, m[1] as string);
}
const notices: string[] = [];
const byVersion = new Map<string, { dir: string; manifest: { name: string; version: string; license?: string; author?: string | { name?: string } } }>();
for (const dir of packages.keys()) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string; author?: string | { name?: string } };
  byVersion.set(`${manifest.name}@${manifest.version}`, { dir, manifest });
}
const entries = [...byVersion.values()];
for (const { dir, manifest } of entries.sort((a, b) => a.manifest.name.localeCompare(b.manifest.name) || a.manifest.version.localeCompare(b.manifest.version))) {
  const file = readdirSync(dir).find((f) => /^(licen[sc]e|copying)(\.|$)/i.test(f));
  const author = typeof manifest.author === 'string' ? manifest.author : manifest.author?.name;
  const text = file ? readFileSync(join(dir, file), 'utf8').trim() : `No licence file in the package; its package.json states ${manifest.license}${author ? `, by ${author}` : ''}.`;
  notices.push(`${manifest.name}@${manifest.version} (${manifest.license ?? 'see its package'})\n\n${text}\n`);
}
writeFileSync(join(out, 'THIRD_PARTY_LICENSES.txt'), `The command line's bundle (dist/bundle/) carries code of these packages, each under its licence:\n\n${notices.join('\n---\n\n')}`);
const bytes = result.outputFiles.reduce((sum, o) => sum + o.contents.length, 0);
process.stdout.write(`bundled the command line into dist/bundle/ (build ${buildId}): ${result.outputFiles.length} files, ${(bytes / 1e6).toFixed(1)} MB, code of ${entries.length} packages (THIRD_PARTY_LICENSES.txt)\n`);
