#!/usr/bin/env node
// The svcspec command. Plain JavaScript that any Node parses, so an old Node gets a
// clear message instead of a syntax error.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `svcspec needs Node.js 22.12 or later (it uses node:sqlite and runs TypeScript); this is Node ${process.versions.node}.\n` +
      'Inside the project, run it through npm (npm run / npx), which uses the pinned Node 24.\n',
  );
  process.exit(2);
}

// In a checkout, run the TypeScript sources directly (Node strips the types); an installed
// package (under node_modules, where Node does not strip types) runs the built dist/.
const here = fileURLToPath(new URL('.', import.meta.url));
const source = new URL('../src/cli/main.ts', import.meta.url);
const useSource = !here.includes('/node_modules/') && existsSync(fileURLToPath(source));
const { run } = await import(useSource ? source.href : new URL('../dist/cli/main.js', import.meta.url).href);
await run(process.argv.slice(2));
