/**
 * --watch: run a command's work on the spec now and again after every change, until stopped.
 * The folder is watched, not the file: editors that save by writing a new file and renaming
 * it over the old one (vim, many IDEs) would end a watch on the file itself. Changes within
 * 100 ms are one change, and a save that leaves the text as it was is none.
 */
import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { EXIT } from './errors.ts';
import { untilStopped } from './lifetime.ts';

export async function watchSpec(file: string, work: () => Promise<void>, options: { initial?: boolean } = {}): Promise<number> {
  const path = resolve(file);
  const name = basename(path);
  const read = () => readFile(path, 'utf8').catch(() => undefined);
  let last = await read();
  if (options.initial !== false) await work();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  // Work that throws (a reloaded service that cannot listen again) ends the watch, and the command with it.
  let failed: (error: unknown) => void = () => {};
  const failure = new Promise<never>((_, reject) => { failed = reject; });
  failure.catch(() => {});
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(async () => {
        const now = await read();
        if (now === undefined || now === last) return;
        last = now;
        process.stderr.write(`svcspec: ${file} changed\n`);
        await work();
      }).catch(failed);
    }, 100);
  };
  const watcher = watch(dirname(path), (_event, changed) => {
    if (changed === null || changed === name) soon();
  });
  // A save during the first run, before the watch was on, is not lost either.
  soon();
  // Said once the watch is on, so that a save after the message is never missed.
  process.stderr.write(`svcspec: watching ${file} for changes (Ctrl-C to stop)\n`);
  try {
    await Promise.race([untilStopped(), failure]);
  } finally {
    watcher.close();
    clearTimeout(timer);
  }
  await running;
  return EXIT.ok;
}
