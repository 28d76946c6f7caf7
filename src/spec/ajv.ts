/**
 * Ajv and ajv-formats, loaded with the first validator made, not with the modules that make
 * validators (issue #20): serve compiles a request validator on the first request that needs
 * one, and check reaches for Ajv only for a default that does not plainly fit; a first start
 * answering a read never evaluates Ajv's ~100 modules. Synchronously, as the validators are
 * made; both ship CommonJS.
 */
import { createRequire } from 'node:module';
import type { Ajv } from 'ajv';

export interface AjvModules {
  readonly Ajv: typeof import('ajv').Ajv;
  readonly addFormats: (ajv: Ajv) => Ajv;
}

let loaded: AjvModules | undefined;

export function ajvModules(): AjvModules {
  if (loaded) return loaded;
  // In the CLI's bundle a `require` is in scope (scripts/bundle.ts), and esbuild bundles these
  // literal require calls as modules it evaluates on the first call (src/spec/domain/cel.ts).
  const ajv = (typeof require === 'function' ? require('ajv') : createRequire(import.meta.url)('ajv')) as typeof import('ajv');
  const formats = (typeof require === 'function' ? require('ajv-formats') : createRequire(import.meta.url)('ajv-formats')) as { default?: unknown };
  // ajv-formats is CommonJS: its function is the module itself, and its `default` too.
  return (loaded = { Ajv: ajv.Ajv, addFormats: (formats.default ?? formats) as (ajv: Ajv) => Ajv });
}
