/**
 * The run's clean-up ("clean up everything it created", issue #16): what it made is deleted,
 * and so are the records of creates the run gave up waiting for (its time-out; http.ts
 * LateWrite): the client still listens for their answers, and each late answer that made a
 * record has it tracked, so it is deleted with the rest.
 */
import type { LateAbout } from './context.ts';
import type { DataFactory, Made } from './data.ts';

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

/**
 * Deletes what the run made (`made`, in the order made), newest first, where the spec has a
 * delete endpoint; failures are ignored. Returns how many records it could not remove, by
 * resource: those the spec gives no way to delete, those whose delete failed, and the creates
 * that never answered (`unanswered`, settleLate), which the report names.
 */
export async function cleanUp(data: DataFactory, made: readonly Made[], unanswered: readonly string[]): Promise<Record<string, number>> {
  const left: Record<string, number> = {};
  for (const name of unanswered) left[name] = (left[name] ?? 0) + 1;
  for (const m of [...made].reverse()) {
    const del = data.ctx.endpoint(m.resource.name, 'delete');
    let gone = false;
    if (del) {
      try {
        // Its own parents fill a nested delete's path (pathFor), where the spec deletes only through one.
        const ex = await data.ctx.call('DELETE', data.pathFor(del, m), { as: m.as ?? null });
        gone = ex.response.status < 300 || ex.response.status === 404;
      } catch {
        // Best effort: the run's verdict does not depend on clean-up.
      }
    }
    if (!gone) left[m.resource.name] = (left[m.resource.name] ?? 0) + 1;
  }
  return left;
}
