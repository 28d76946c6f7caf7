/**
 * A fresh TMPDIR for each test of a file (the caches of src/spec/cache-folder.ts live there),
 * with SVCSPEC_NO_CACHE cleared; the previous TMPDIR comes back after each test. Returns the
 * current folder's getter.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'node:test';

export function freshTmpdirEachTest(prefix: string): () => string {
  let previous: string | undefined;
  let temp = '';
  beforeEach(() => {
    previous = process.env.TMPDIR;
    temp = mkdtempSync(join(tmpdir(), prefix));
    process.env.TMPDIR = temp;
    delete process.env.SVCSPEC_NO_CACHE;
  });
  afterEach(() => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    delete process.env.SVCSPEC_NO_CACHE;
    rmSync(temp, { recursive: true, force: true });
  });
  return () => temp;
}
