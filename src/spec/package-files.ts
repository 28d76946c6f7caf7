/**
 * Files of the svcspec package itself (package.json, schema/, vendor/, dist/), found from
 * wherever the running code lives: src/ in a checkout, dist/ in the package, or the CLI's
 * bundle under dist/bundle/ (scripts/bundle.ts), where every module shares one folder and a
 * path relative to the module's own place would miss. The root is the nearest folder above
 * that holds svcspec's package.json; it is found once.
 */
import { existsSync, readFileSync } from 'node:fs';

let root: URL | undefined;

function packageRoot(): URL {
  if (root) return root;
  for (let dir = new URL('./', import.meta.url); ; dir = new URL('../', dir)) {
    const manifest = new URL('package.json', dir);
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'svcspec') return (root = dir);
    if (new URL('../', dir).href === dir.href) throw new Error(`svcspec: no svcspec package.json above ${import.meta.url}`);
  }
}

/** A file of the package by its path from the package's root, e.g. 'schema/svcspec.schema.json'. */
export function packageFile(path: string): URL {
  return new URL(path, packageRoot());
}

/** True when this code runs from the TypeScript sources (a checkout), false when built. */
export const fromSource: boolean = import.meta.url.endsWith('.ts');

// Set by scripts/bundle.ts (esbuild's define) in the CLI's bundle; absent everywhere else.
declare const __SVCSPEC_BUILD_ID__: string | undefined;

/**
 * The identity of the built code, when it runs from the CLI's bundle: a digest of every built
 * module (scripts/bundle.ts). What is cached across runs of one build (serve's readiness
 * verdict) is keyed on it; from the sources or dist/, where the code has no such identity,
 * nothing is cached.
 */
export const buildId: string | undefined = typeof __SVCSPEC_BUILD_ID__ === 'string' ? __SVCSPEC_BUILD_ID__ : undefined;
