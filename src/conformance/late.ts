/**
 * Creates the run gave up waiting for (its time-out; http.ts LateWrite): the client still
 * listens for their answers, and at clean-up each late answer that made a record has it
 * tracked, so it is deleted with the rest ("clean up everything it created", issue #16).
 */
import type { LateAbout } from './context.ts';
import type { DataFactory } from './data.ts';

/** How long the clean-up waits, at most, for the late answers of creates the run gave up on (ms). */
export const LATE_WAIT_MS = 30_000;

/**
 * Tracks what the late answers of creates made, waiting for them up to LATE_WAIT_MS more from
 * now. Returns the resources of those that never answered: each may have made a record the run
 * cannot name, which the report counts as left.
 */
export async function settleLate(data: DataFactory): Promise<string[]> {
  const late = data.ctx.client.late.splice(0);
  if (!late.length) return [];
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), LATE_WAIT_MS)));
  const unanswered: string[] = [];
  try {
    for (const write of late) {
      const about = write.about as LateAbout | undefined;
      const resource = about?.endpoint && data.ctx.resource(about.endpoint.resource);
      const ex = await Promise.race([write.answer, deadline]);
      if (!resource || about?.endpoint?.operation !== 'create') continue;
      if (ex) data.track(resource, ex, about.as);
      else {
        write.abort();
        unanswered.push(resource.name);
      }
    }
  } finally {
    clearTimeout(timer);
  }
  return unanswered;
}
