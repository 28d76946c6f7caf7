/**
 * A service that answers one create late: the reference service makes the record at once,
 * and a hook holds the 201 back for `delayMs` (a loaded machine, a slow disk). A tester whose
 * time-out is shorter gives up on the answer; the record exists all the same, and the
 * tester's clean-up must still find and remove it (issue #16, item 7).
 */
import type { FastifyInstance } from 'fastify';

export interface LateCreate {
  /** The id the late answer carries, once the create was made. */
  id?: string;
  /** Every request the service answered, as `METHOD url status`. */
  readonly answered: string[];
}

/** Holds back the answer of the first create answered 201 by `delayMs`. */
export function answerOneCreateLate(app: FastifyInstance, delayMs: number): LateCreate {
  const state: LateCreate = { answered: [] };
  app.addHook('onSend', async (request, reply, payload) => {
    if (state.id === undefined && request.method === 'POST' && reply.statusCode === 201 && typeof payload === 'string') {
      state.id = String((JSON.parse(payload) as { id: unknown }).id);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => void state.answered.push(`${request.method} ${request.url} ${reply.statusCode}`));
  return state;
}
