/**
 * Server processes for the benches: each server runs in a child process of its own, so the
 * load generator in the bench process never shares its event loop. Every child started
 * here is remembered and killed when the bench process exits, whatever the reason.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

export interface ServerProcess {
  readonly name: string;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly child: ChildProcess;
  /** What the child wrote on stderr (the last 8 KiB), for error messages. */
  stderr(): string;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  readonly name: string;
  /** Arguments of `node` (process.execPath): flags, the script, its arguments. */
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /**
   * How the child says it is ready, from one line of its stdout: the port it listens on,
   * or undefined for a line that says nothing yet.
   */
  readonly readyFrom: (line: string) => number | undefined;
  readonly timeoutMs?: number;
  /** Open an IPC channel to the child (child.send / process.on('message')). */
  readonly ipc?: boolean;
}

const children = new Set<ChildProcess>();

function killAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

let guarded = false;
/** Kill every child on exit, also when the bench throws or is interrupted. */
function guard(): void {
  if (guarded) return;
  guarded = true;
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killAll();
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    });
  }
}

export async function startServer(options: StartOptions): Promise<ServerProcess> {
  guard();
  const child = spawn(process.execPath, [...options.args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let err = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    err = (err + chunk).slice(-8192);
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      children.delete(child);
      resolve();
    });
  });
  const stop = async (graceMs = 5000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  const timeoutMs = options.timeoutMs ?? 60_000;
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => fail(`did not say it was ready within ${timeoutMs / 1000} s`), timeoutMs);
    const onError = (error: Error) => fail(`could not be started: ${error.message}`);
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => fail(`exited before it was ready (${signal ?? `code ${code}`})`);
    function done(): void {
      clearTimeout(timer);
      child.off('error', onError);
      child.off('close', onExit);
      lines.removeAllListeners('line');
    }
    function fail(why: string): void {
      done();
      lines.close();
      reject(new Error(`${options.name} ${why}${err.trim() ? `; its stderr:\n${err.trim()}` : ''}`));
    }
    child.once('error', onError);
    child.once('close', onExit);
    lines.on('line', (line) => {
      const found = options.readyFrom(line);
      if (found === undefined) return;
      // The interface keeps reading (and dropping) stdout, so a chatty child never blocks on a full pipe.
      done();
      resolve(found);
    });
  }).catch(async (error: unknown) => {
    await stop(1000);
    throw error;
  });
  return { name: options.name, url: `http://127.0.0.1:${port}`, child, stderr: () => err, stop };
}

/** Runs a node script to its end (seeding, say); fails with its stderr unless it exits 0. */
export async function runNode(name: string, args: readonly string[]): Promise<void> {
  guard();
  const child = spawn(process.execPath, [...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.add(child);
  let err = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    err = (err + chunk).slice(-8192);
  });
  await new Promise<void>((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`${name} could not be started: ${error.message}`)));
    child.once('close', (code, signal) => {
      children.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`${name} failed (${signal ?? `code ${code}`})${err.trim() ? `; its stderr:\n${err.trim()}` : ''}`));
    });
  });
}

/** A port free on loopback now, for a server that cannot be told to pick its own. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * CPU time a process has used so far (user + system), in ms, from /proc (Linux); undefined
 * elsewhere. Clock ticks are taken as 100 a second, the USER_HZ of every Linux port in use.
 */
export function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined || process.platform !== 'linux') return undefined;
  try {
    // pid (comm) state ppid ... : utime and stime are the 14th and 15th fields.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
