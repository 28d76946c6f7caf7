#!/usr/bin/env node
// The svcspec command. Plain JavaScript that any Node parses, so an old Node gets a
// clear message instead of a syntax error.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

// In a checkout, run the TypeScript sources directly (Node strips the types); an installed
// package (under node_modules, where Node does not strip types) runs the built dist/.
const here = fileURLToPath(new URL('.', import.meta.url));
const source = new URL('../src/cli/main.ts', import.meta.url);
const useSource = !here.includes('/node_modules/') && existsSync(fileURLToPath(source));

// The floor, as package.json's engines states it (test/package/install.test.ts runs the
// installed package on it): node:sqlite's StatementSync#setReturnArrays arrived in 22.16
// and 24.0; Node 23 never had it.
const [major, minor] = process.versions.node.split('.').map(Number);
if ((major === 22 && minor < 16) || major < 22 || major === 23) {
  process.stderr.write(
    `svcspec: needs Node.js 22.16 or later in the 22 line, or 24 or later (it uses node:sqlite); this is Node ${process.versions.node} (${process.execPath}).\n` +
      (useSource
        ? 'In this checkout, run it through npm (npm run …, npx svcspec …), which uses the Node 24 the project pins.\n'
        : 'Install a current Node.js (https://nodejs.org, or `nvm install 24`), put it first on PATH, and run svcspec again.\n'),
  );
  process.exit(2);
}

// Node 22 announces node:sqlite as experimental on every run; it is what svcspec is built on
// and tested with, so the warning says nothing to a user. Other warnings pass.
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const type = typeof rest[0] === 'string' ? rest[0] : rest[0]?.type;
  if (type === 'ExperimentalWarning' && /SQLite/.test(String(warning))) return;
  return emitWarning.call(process, warning, ...rest);
};

// Node keeps the compiled code of the modules loaded from here on (V8's code cache, in the OS's
// temporary folder, keyed by Node version and file content; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off): a second start reads it instead of parsing and compiling ~500 modules again, the
// largest part of serve's start-up (issue #20). serve writes it once it listens, as a server
// rarely exits by itself (src/cli/commands/serve.ts).
module.enableCompileCache?.();

// The built modules import each other by relative paths ('./x.js'), ~900 imports for serve;
// Node's own resolution stats each file, reads the package.json scope above it for its
// format, and takes its real path. Within dist/ the answer is known: the file the path names,
// an ES module (package.json's "type"). Resolved so, serve loads its modules in about half
// the time (issue #20). Anything else — packages, node:, files outside dist/ — Node resolves.
if (!useSource) {
  const dist = new URL('../dist/', import.meta.url).href;
  module.registerHooks?.({
    resolve(specifier, context, next) {
      if ((specifier.startsWith('./') || specifier.startsWith('../')) && specifier.endsWith('.js') && context.parentURL?.startsWith(dist)) {
        const url = new URL(specifier, context.parentURL).href;
        if (url.startsWith(dist)) return { url, format: 'module', shortCircuit: true };
      }
      return next(specifier, context);
    },
  });
}

// The installed package runs the command line's bundle (scripts/bundle.ts, made at pack time):
// a few dozen files to load instead of ~530 (issue #20); dist/cli/main.js where there is none
// (a checkout built with `npm run build` only).
const bundled = new URL('../dist/bundle/main.js', import.meta.url);
const built = existsSync(fileURLToPath(bundled)) ? bundled : new URL('../dist/cli/main.js', import.meta.url);
const { run } = await import(useSource ? source.href : built.href);
await run(process.argv.slice(2));
