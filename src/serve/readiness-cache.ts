/**
 * serve's readiness verdict, kept across starts of one build for one spec text (issue #20).
 *
 * The verdict runs every `check` rule over the spec, about a fifth of a start; it is a pure
 * function of the spec's text, its file's path (the reasons name it) and svcspec's code. A
 * restart of the same spec by the same build (a test run's servers, a process manager, a
 * container) reads it back instead. A spec edited by one character, another build, or any
 * failure to read or write the cache computes it again: the cache can only be missing, never
 * wrong. It is kept only where the code has an identity (the installed CLI's bundle: buildId);
 * from the sources or dist/ every start computes it.
 *
 * Where: a folder of the OS's temporary files for this user alone (mode 0700), as Node keeps
 * its compile cache; one small JSON file per spec text and build. SVCSPEC_NO_CACHE=1 turns it off.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { buildId } from '../spec/package-files.ts';
import type { Readiness } from './readiness.ts';

function folder(): string | undefined {
  const dir = join(tmpdir(), `svcspec-cache-${userInfo().uid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const info = lstatSync(dir);
    // Another user's folder of that name (made first, to plant verdicts) is not trusted.
    if (!info.isDirectory() || info.uid !== userInfo().uid || (info.mode & 0o077) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

function isReadiness(value: unknown): value is Readiness {
  const r = value as Readiness;
  const lines = (x: unknown) => Array.isArray(x) && x.every((l) => typeof l === 'string');
  return typeof r === 'object' && r !== null && typeof r.ok === 'boolean' && lines(r.reasons) && lines(r.notes);
}

/** The verdict of `compute` for this spec text, from the cache when this build has one for it. */
export function cachedReadiness(file: string, text: string, compute: () => Readiness, build: string | undefined = buildId): Readiness {
  if (build === undefined || process.env.SVCSPEC_NO_CACHE === '1') return compute();
  const dir = folder();
  if (!dir) return compute();
  const key = createHash('sha256').update(`${build}\0${resolve(file)}\0`).update(text).digest('hex');
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
