/**
 * serve's readiness verdict, kept across starts of one build for one spec text (issue #20).
 *
 * The verdict runs the `check` rules that can find an error over the spec (./readiness.ts),
 * about an eighth of a first start's CPU after an edit; it is a pure function of the spec's
 * text, its file's path as given (the reasons name it), svcspec's code and Node's version (V8
 * compiles the spec's patterns). A restart of the same spec by the same build (a test run's
 * servers, a process manager, a container) reads it back instead. A spec edited by one
 * character, another build, or any failure to read or write the cache computes it again: the
 * cache can only be missing, never wrong. It is kept only where the code has an identity (the
 * installed CLI's bundle: buildId); from the sources or dist/ every start computes it.
 *
 * Where: the user's cache folder (src/spec/cache-folder.ts, mode 0700); one small JSON file
 * per spec text and build. SVCSPEC_NO_CACHE=1 turns it off.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheFolder } from '../spec/cache-folder.ts';
import { buildId } from '../spec/package-files.ts';
import type { Readiness } from './readiness.ts';

function isReadiness(value: unknown): value is Readiness {
  const r = value as Readiness;
  const lines = (x: unknown) => Array.isArray(x) && x.every((l) => typeof l === 'string');
  return typeof r === 'object' && r !== null && typeof r.ok === 'boolean' && lines(r.reasons) && lines(r.notes);
}

/** The verdict of `compute` for this spec text, from the cache when this build has one for it. */
export function cachedReadiness(file: string, text: string, compute: () => Readiness, build: string | undefined = buildId): Readiness {
  if (build === undefined) return compute();
  const dir = cacheFolder();
  if (!dir) return compute();
  // The path as given (the reasons name it so), and Node's version (the patterns a check
  // compiles are V8's: one Node may refuse what another takes).
  const key = createHash('sha256').update(`${build}\0${process.version}\0${file}\0`).update(text).digest('hex');
  const path = join(dir, `readiness-${key}.json`);
  try {
    const kept: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (isReadiness(kept)) return kept;
  } catch {
    // Not kept yet, or unreadable: computed below.
  }
  const verdict = compute();
  try {
    // Written beside and renamed over: a concurrent start reads a whole file or none.
    const temp = `${path}.${process.pid}`;
    writeFileSync(temp, JSON.stringify(verdict), { mode: 0o600 });
    renameSync(temp, path);
  } catch {
    // A cache that cannot be written costs the next start the computation, nothing more.
  }
  return verdict;
}
