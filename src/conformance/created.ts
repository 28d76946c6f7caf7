/**
 * What a create answered, read for the record it made (./data.ts create), and its failures.
 *
 * A create that fails where a check only needed a record (the states' walk, a rule's scene):
 * the first such failure of a resource is that check's failure, with the exchange; each later
 * one alike (the same status, the same fault) is not a new finding about the checks that
 * meet it, which are then not checked, naming the failure. One defect of the create is
 * reported once, and the checks it stood in front of are counted as not checked rather
 * than failed for it, or silently dropped.
 */
import type { Endpoint, Resource } from '../spec/model.ts';
import { Failure, Skip, type Principal, type TestContext } from './context.ts';
import { expectSuccess, isObject } from './expect.ts';
import type { Exchange } from './http.ts';
import { locationPath } from './made.ts';

/** A Location as the path ctx.call sends to (./made.ts locationPath): the working version's path prefix taken off, as ctx.call puts it on. */
export function locationOf(ctx: TestContext, location: string): string | undefined {
  return locationPath(location, ctx.client.baseUrl, ctx.spec.versioning.select?.by === 'path' ? ctx.address('').url : '');
}

export class CreateFailures {
  /** The first failure of each resource's create that was reported, by resource and kind (a status and error code, or the fault). */
  readonly #first = new Map<string, string>();

  /**
   * The error to throw for a failed create: a Failure, until one alike has been recorded as a
   * check's result; then a Skip naming it. (A caller that turns the Failure into a skip of its
   * own reports nothing, so the next one alike is still a Failure.)
   */
  failed(resource: string, kind: string, message: string, exchange?: Exchange): Failure | Skip {
    const key = `${resource} ${kind}`;
    const first = this.#first.get(key);
    if (first !== undefined) return new Skip(`needs a ${resource} made by its create, which fails here as reported before: ${first}`);
    const failure = new Failure(message, exchange);
    failure.onRecorded = () => void this.#first.set(key, message);
    return failure;
  }
}

/**
 * The record a create's answer made, and its id: from the body, or read at its Location when
 * the create declares no body (RFC 9110 §10.2.2). `declared`: the create endpoint whose
 * declared success the answer is held to (none for a replace that created the record); a
 * success it does not declare (200 for 201) is part 4's finding, once, and the record it
 * made serves the check that met it. Failures go through `failed`.
 */
export async function readCreated(ctx: TestContext, failed: CreateFailures, resource: Resource, ex: Exchange, declared: Endpoint | undefined, idField: string, as: Principal | undefined): Promise<{ body: Record<string, unknown>; id: string | number }> {
  // Two refusals alike share a status and an error code: a 400 for one reason is not taken for a 400 for another.
  const code = ctx.errorShape.members.code;
  const refusal = `${ex.response.status} ${code && isObject(ex.response.json) ? String(ex.response.json[code] ?? '') : ''}`;
  if (ex.response.status < 200 || ex.response.status >= 300) throw failed.failed(resource.name, refusal, `creating a ${resource.name} with a valid body was refused (${ex.response.status}): ${ex.response.text.slice(0, 300)}`, ex);
  // A success it does not declare is part 4's finding, once, whichever check met it (context.ts successStatusFinding).
  let deviation: Failure | undefined;
  if (declared) {
    try {
      expectSuccess(declared, ex);
    } catch (error) {
      if (!(error instanceof Failure)) throw error;
      deviation = error;
      ctx.successStatusFinding(declared, error);
    }
  }
  let body = isObject(ex.response.json) ? ex.response.json : undefined;
  if (!body) {
    const location = ex.response.headers.location;
    if (!location) {
      if (deviation) throw failed.failed(resource.name, 'answer', deviation.message, ex);
      throw new Skip(`the create of ${resource.name} answers no record and no Location (its declared response has no body), so the tester cannot know what it made`);
    }
    const path = locationOf(ctx, location);
    if (path === undefined) throw failed.failed(resource.name, 'location', `the create of ${resource.name} answers no record, and its Location '${location.slice(0, 200)}' is not a URI under the base URL`, ex);
    const back = await ctx.call('GET', path, { as: as ?? null });
    // 501 where the spec declares no read (the Location served by an action in prose): nothing to hold the create to.
    // With a read declared, it must answer there.
    if (back.response.status === 501 && !ctx.endpoint(resource.name, 'read')) throw new Skip(`the create of ${resource.name} answers no record, and reading it at its Location ${location} answers 501 (not implemented), so the tester cannot know what it made`);
    if (back.response.status < 200 || back.response.status >= 300 || !isObject(back.response.json)) throw failed.failed(resource.name, 'location', `the ${resource.name} created at ${location} cannot be read there (${back.response.status}${back.response.status < 300 ? ', not a JSON object' : ''})`, back);
    body = back.response.json;
    const id = body[idField];
    if (typeof id !== 'string' && typeof id !== 'number') throw failed.failed(resource.name, 'id', `the ${resource.name} read at the create's Location ${location} has no '${idField}'`, back);
    return { body, id };
  }
  const id = body[idField];
  if (typeof id !== 'string' && typeof id !== 'number') throw failed.failed(resource.name, 'id', `the created ${resource.name} has no '${idField}'`, ex);
  return { body, id };
}
