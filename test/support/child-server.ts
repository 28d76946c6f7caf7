/** `svcspec serve` as a real child process, for tests of what only a process shows (durability, the CLI end to end). */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin/svcspec.js');

/** Starts `svcspec serve <args>` and resolves with the base URL it prints. */
export async function startServe(args: readonly string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  const { url } = await servingUrl(child);
  return { child, url };
}

/** The base URL a starting `serve` child prints on stderr, and what it printed so far. */
export async function servingUrl(child: ChildProcess): Promise<{ url: string; stderr: () => string }> {
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    // A child that does not start is killed: left running, its pipe would keep the test process alive.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${err}`));
    }, 30_000); // generous: the machine may be shared with other test runs
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /serving .* at (http:\/\/[\d.]+:\d+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${err}`)));
  });
  return { url, stderr: () => err };
}

/** Kills the children that still run, and waits until they are gone. */
export async function killAll(children: readonly ChildProcess[]): Promise<void> {
  await Promise.all(children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => new Promise((r) => { c.once('exit', r); c.kill('SIGKILL'); })));
}

/** Runs the CLI to completion. */
export function cli(args: readonly string[], cwd = ROOT): { status: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A temporary folder holding `text` as `name`, for a service run as a child process: the
 * children the test pushes are killed, and the folder removed, when the test ends.
 */
export function specInTempDir(t: TestContext, text: string, name = 'spec.yaml'): { dir: string; spec: string; children: ChildProcess[] } {
  const dir = mkdtempSync(join(tmpdir(), 'svcspec-child-'));
  const children: ChildProcess[] = [];
  t.after(async () => {
    await killAll(children);
    rmSync(dir, { recursive: true, force: true });
  });
  const spec = join(dir, name);
  writeFileSync(spec, text);
  return { dir, spec, children };
}

/** A loopback port free now, for a third-party server the test starts (json-server, Prism). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
