/**
 * The assertions of the checks, each failing with a message in the spec's terms and the
 * exchange that broke it. Errors are held to the declared shape (part 7) wherever they
 * are met, whichever part's check met them.
 */
import type { Situation } from '../spec/http-errors.ts';
import type { Endpoint } from '../spec/model.ts';
import { Failure, type TestContext } from './context.ts';
import { mediaTypeOf, type Exchange } from './http.ts';
import { refusedAt } from './envelope.ts';

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The success statuses an endpoint declares (the format's conventional one when it declares none). */
export function successStatuses(endpoint: Endpoint): number[] {
  const declared = endpoint.responses.filter((r) => r.status >= 200 && r.status < 300).map((r) => r.status);
  if (declared.length) return declared;
  return [endpoint.operation === 'create' ? 201 : endpoint.operation === 'delete' ? 204 : 200];
}

/** A success the endpoint declares; with a JSON body when it returns one. */
export function expectSuccess(endpoint: Endpoint, ex: Exchange): void {
  const allowed = successStatuses(endpoint);
  if (!allowed.includes(ex.response.status)) {
    throw new Failure(`${endpoint.id} answered ${ex.response.status}; the spec declares ${allowed.join(' or ')}${detailOf(ex)}`, ex);
  }
  const declared = endpoint.responses.find((r) => r.status === ex.response.status);
  const withBody = ex.response.status !== 204 && (declared ? declared.body === 'resource' || declared.body === 'page' : endpoint.operation !== 'delete');
  if (withBody) {
    if (!/^application\/([\w.+-]+\+)?json$/.test(mediaTypeOf(ex))) throw new Failure(`${endpoint.id} answered with content type '${ex.response.headers['content-type'] ?? '(none)'}', not JSON`, ex);
    // A page may be a bare array (`limits.pagination.body: array`): readPage judges it against the spec's page body.
    const page = declared ? declared.body === 'page' : endpoint.operation === 'list';
    if (!isObject(ex.response.json) && !(page && Array.isArray(ex.response.json))) throw new Failure(`${endpoint.id} answered a body that is not a JSON object`, ex);
  }
}

/**
 * The error of a situation: its status, here; its shape (media type, code, title, members)
 * is a finding of its own, recorded once per code under part 7 (context.ts
 * errorShapeFinding), so a 404 in the wrong shape after a delete fails the error shape,
 * not "the record is gone". The violation's pointer is checked where the shape holds.
 */
export function expectError(ctx: TestContext, ex: Exchange, situation: Situation, pointer?: string): void {
  const want = ctx.resolve(situation);
  const shape = ctx.errorShape;
  if (!want.stated) {
    // The spec states no code for the situation: svcspec's default answer is no promise of the
    // spec's. What HTTP asks holds: a refusal of the client's request is a 4xx, a failure of the
    // service's a 5xx (RFC 9110 §15.5, §15.6); its status and code are the implementation's.
    const expected = Math.floor(want.status / 100);
    if (Math.floor(ex.response.status / 100) !== expected) throw new Failure(`expected a ${expected}xx (the ${situation} situation, for which the spec states no code), got ${ex.response.status}${detailOf(ex)}`, ex);
    const wrong = shapeProblem(ctx, ex, undefined, ex.response.status);
    if (wrong) ctx.errorShapeFinding(situation, wrong, ex, `errors of the ${situation} situation are answered in the declared shape`);
    return;
  }
  if (ex.response.status !== want.status) {
    throw new Failure(`expected ${want.status} (${want.code}, the ${situation} situation), got ${ex.response.status}${detailOf(ex)}`, ex);
  }
  const wrong = shapeProblem(ctx, ex, want.code, want.status);
  if (wrong) return ctx.errorShapeFinding(want.code, wrong, ex);
  if (pointer !== undefined && ctx.spec.errors.shape && shape.members.errors) {
    const list = (ex.response.json as Record<string, unknown>)[shape.members.errors];
    const at = refusedAt(ex, pointer);
    if (!Array.isArray(list) || !list.some((item) => JSON.stringify(item).includes(JSON.stringify(at)))) {
      throw new Failure(`the error lists no violation at '${at}' in '${shape.members.errors}'`, ex);
    }
  }
}

/** Any error response, held to the declared shape whatever its code (a shape problem is part 7's finding, once per code). */
export function expectErrorShape(ctx: TestContext, ex: Exchange): void {
  const json = ex.response.json;
  const member = ctx.errorShape.members.code;
  const code = isObject(json) && member ? json[member] : undefined;
  const known = ctx.spec.errors.catalog.find((e) => e.code === code);
  const named = typeof code === 'string' ? code : '(a code)';
  const status = known?.status ?? ex.response.status;
  if (ex.response.status !== status) throw new Failure(`code '${named}' is declared with status ${status}, answered with ${ex.response.status}`, ex);
  const wrong = shapeProblem(ctx, ex, named, status);
  if (wrong) ctx.errorShapeFinding(named, wrong, ex);
}

/**
 * What is wrong with an error body against the declared shape for its code (any, where none
 * is given) and status; undefined when nothing is, or the spec declares no shape (svcspec's
 * default is no promise of the spec's).
 */
function shapeProblem(ctx: TestContext, ex: Exchange, code: string | undefined, status: number): string | undefined {
  if (!ctx.spec.errors.shape) return undefined;
  const shape = ctx.errorShape;
  const media = mediaTypeOf(ex);
  if (media !== shape.mediaType.toLowerCase()) return `the error's content type is '${ex.response.headers['content-type'] ?? '(none)'}', not the declared '${shape.mediaType}'`;
  const body = ex.response.json;
  if (!isObject(body)) return 'the error body is not a JSON object';
  const m = shape.members;
  // A shape without a code member (a one-message body) is judged by its status and members alone.
  if (m.code && code !== undefined && body[m.code] !== code) return `the error's '${m.code}' is ${JSON.stringify(body[m.code])}, not '${code}'`;
  if (m.title && typeof body[m.title] !== 'string') return `the error has no '${m.title}' string`;
  if (m.status && body[m.status] !== status) return `the error's '${m.status}' is ${JSON.stringify(body[m.status])}, not ${status}`;
  return undefined;
}

function detailOf(ex: Exchange): string {
  const text = ex.response.text;
  return text ? `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}` : '';
}

/** Deep equality of JSON values (member order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * How two records differ, member by member, in words: `'location' is absent (expected
 * "Hall 2")`, `'title' is "A" (expected "B")`, `'extra' is there (expected absent)`; the first
 * few, so a failure names what is wrong rather than only that something is.
 */
export function recordDiff(actual: Record<string, unknown>, expected: Record<string, unknown>, max = 3): string {
  const out: string[] = [];
  for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    if (jsonEqual(actual[key], expected[key])) continue;
    if (!(key in actual)) out.push(`'${key}' is absent (expected ${JSON.stringify(expected[key])})`);
    else if (!(key in expected)) out.push(`'${key}' is there (${JSON.stringify(actual[key])}; expected absent)`);
    else out.push(`'${key}' is ${JSON.stringify(actual[key])} (expected ${JSON.stringify(expected[key])})`);
  }
  return out.length > max ? `${out.slice(0, max).join('; ')}; and ${out.length - max} more` : out.join('; ');
}
