/** Test helpers for the resource tests: requests through inject(), and reading problem bodies. */
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';

export interface Violation {
  readonly pointer: string;
  readonly message: string;
}

export interface Problem {
  readonly code: string;
  readonly status: number;
  readonly detail?: string;
  readonly errors?: readonly Violation[];
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  /** The parsed JSON body; undefined when there is none. */
  readonly body: any;
}

export async function send(app: FastifyInstance, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const r = await app.inject({
    method,
    url,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: r.statusCode, headers: r.headers, body: r.body === '' ? undefined : JSON.parse(r.body) };
}

/** The one violation at a pointer of a validation-failed body (fails the test otherwise). */
export function violationAt(answer: Answer, pointer: string): string {
  assert.equal(answer.status, 422, JSON.stringify(answer.body));
  assert.equal(answer.body.code, 'validation-failed', JSON.stringify(answer.body));
  const found = (answer.body as Problem).errors?.filter((e) => e.pointer === pointer) ?? [];
  assert.equal(found.length, 1, `one violation at '${pointer}': ${JSON.stringify(answer.body.errors)}`);
  return found[0].message;
}

export function pointersOf(answer: Answer): string[] {
  return ((answer.body as Problem).errors ?? []).map((e) => e.pointer);
}
