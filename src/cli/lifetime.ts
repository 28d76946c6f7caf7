/**
 * How a long-running command (serve, --watch) learns that it should stop: SIGINT (Ctrl-C),
 * SIGTERM (a process manager), SIGHUP (the terminal closed) — or, when npm started it
 * (`npx svcspec serve`, `npm exec`, `npm run`), npm going away. npm 11 dies of a SIGTERM sent
 * to it without passing it on, and its shell goes with it: svcspec, orphaned, would serve on
 * with nobody to stop it. An orphan is re-parented, so its parent id changes: that is the
 * sign, checked twice a second. Run directly (`node_modules/.bin/svcspec serve &`, nohup),
 * svcspec outlives its parent as any server does.
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    const parent = process.ppid;
    const underNpm = process.env.npm_command !== undefined || process.env.npm_lifecycle_event !== undefined;
    let timer: NodeJS.Timeout | undefined;
    const stop = (why: string) => {
      for (const s of SIGNALS) process.off(s, handlers[s]);
      if (timer) clearInterval(timer);
      resolve(why);
    };
    const handlers = Object.fromEntries(SIGNALS.map((s) => [s, () => stop(s)])) as Record<(typeof SIGNALS)[number], () => void>;
    for (const s of SIGNALS) process.once(s, handlers[s]);
    if (underNpm) {
      timer = setInterval(() => {
        if (process.ppid !== parent) stop('npm, which started svcspec, has stopped');
      }, 500);
      timer.unref();
    }
  });
}
