/**
 * Part 6 in the other live versions (docs/events.md: "The payload is the record as the
 * receiver's API version shows it"; part 9). The run makes its events happen in the working
 * version; a stream opened beforehand in each other live version receives them as that
 * version shows them: every event of that version about the run's records, each carrying
 * only that version's fields (none writeOnly), the fields both versions show equal to the
 * working version's payload (one event, one record), and none of the events outside that
 * version.
 */
import { sleep } from '../arrivals.ts';
import { Failure, type Principal, type TestContext } from '../context.ts';
import type { EventStream } from '../stream.ts';
import { isAbout, payloadProblem } from './events-payload.ts';
import { arrivedOfEvent, openStream, streamRule, type Stream } from './events-stream.ts';
import type { Triggered } from './events-trigger.ts';

/** How long the streams are watched after the last expected event, for events they should not send. */
const SETTLE_MS = 300;

/** The live versions other than the working one, when versions are selected at all. */
export function otherVersions(ctx: TestContext): string[] {
  if (!ctx.spec.versioning.select || ctx.version === undefined) return [];
  return ctx.spec.versioning.versions.filter((v) => v.status !== 'retired' && v.name !== ctx.version).map((v) => v.name);
}

/** A stream in each other live version, opened before anything happens; a failure to open is kept for its check. */
export async function openVersionStreams(ctx: TestContext, s: Stream, as: Principal | undefined): Promise<Map<string, EventStream | Error>> {
  const streams = new Map<string, EventStream | Error>();
  for (const v of otherVersions(ctx)) streams.set(v, await openStream(ctx, s, as, undefined, v).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))));
  return streams;
}

export async function checkOtherVersions(ctx: TestContext, s: Stream, streams: ReadonlyMap<string, EventStream | Error>, made: readonly Triggered[], idField: (t: Triggered) => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const [version, stream] of streams) {
    await ctx.check('events', `stream.version-${version}`, `the stream in version ${version} sends the run's events of version ${version} in its fields (those shared with ${ctx.version} equal), and none outside it`, { ...streamRule(s), text: `${streamRule(s).text}, in each live version` }, async () => {
      if (stream instanceof Error) throw new Failure(`the stream in version ${version} could not be opened: ${stream.message}`);
      if (stream.status !== 200) throw new Failure(`the stream in version ${version} answered ${stream.status}`, stream.exchange());
      const expected = made.filter((t) => ctx.inVersion(t.event, version));
      const aboutOf = (t: Triggered) => stream.events.items.find((e) => isAbout(t, idField(t), arrivedOfEvent(e)));
      await stream.events.until(() => (expected.every((t) => aboutOf(t)) ? true : undefined), deadline);
      await sleep(SETTLE_MS);
      const ex = stream.exchange();
      for (const t of made) {
        const sent = aboutOf(t);
        if (!ctx.inVersion(t.event, version)) {
          if (sent) throw new Failure(`${t.event.name} (${sent.id ?? 'no id'}) is sent in version ${version}, outside its versions`, ex);
          continue;
        }
        if (!sent) throw new Failure(`no ${t.event.name} about ${t.resource.name} '${t.id}' arrived on the stream of version ${version} within ${timeoutMs / 1000} s`, ex);
        const problem = payloadProblem(ctx, t, arrivedOfEvent(sent)?.data, version);
        if (problem) throw new Failure(`${t.event.name} (${sent.id ?? 'no id'}) in version ${version}: ${problem}`, ex);
      }
    });
  }
}
