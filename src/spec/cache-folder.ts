/**
 * The folder where what one build computes is kept across runs (serve's readiness verdict,
 * the parsed sections of a spec; issue #20): in the OS's temporary files, for this user alone
 * (mode 0700), as Node keeps its compile cache. Undefined — nothing kept — where there is no
 * uid (Windows), the folder cannot be made, or another user made it first.
 * SVCSPEC_NO_CACHE=1 turns every such cache off.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function cacheFolder(): string | undefined {
  if (process.env.SVCSPEC_NO_CACHE === '1') return undefined;
  try {
    // The uid from the process, not the passwd file: a container's user often has no entry there.
    const uid = process.getuid?.();
    if (uid === undefined) return undefined;
    const dir = join(tmpdir(), `svcspec-cache-${uid}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const info = lstatSync(dir);
    // Another user's folder of that name (made first, to plant entries) is not trusted.
    if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o077) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}
