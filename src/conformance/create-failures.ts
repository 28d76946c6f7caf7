/**
 * A create that fails where a check only needed a record (the states' walk, a rule's scene):
 * the first such failure of a resource is that check's failure, with the exchange; each later
 * one alike (the same status, the same fault) is not a new finding about the checks that
 * meet it, which are then not checked, naming the failure. One defect of the create is
 * reported once, and the checks it stood in front of are counted as not checked rather
 * than failed for it, or silently dropped.
 */
import { Failure, Skip } from './context.ts';
import type { Exchange } from './http.ts';

export class CreateFailures {
  /** The first failure of each resource's create, by resource and kind (a status, or the fault). */
  readonly #first = new Map<string, string>();

  /** The error to throw for a failed create: a Failure the first time, else a Skip naming it. */
  failed(resource: string, kind: string, message: string, exchange?: Exchange): Failure | Skip {
    const key = `${resource} ${kind}`;
    const first = this.#first.get(key);
    if (first === undefined) {
      this.#first.set(key, message);
      return new Failure(message, exchange);
    }
    return new Skip(`needs a ${resource} made by its create, which fails here as reported before: ${first}`);
  }
}
