/**
 * Part 7 on the wire: every error the service answers on a declared endpoint is in the
 * declared shape (its media type, its members) with a declared code, answered with the
 * status that code declares; and a request the spec refuses is answered with the error of
 * its situation (src/spec/http-errors.ts resolves it against the catalog), not a success.
 */
import { errorShape, problemType } from '../../spec/conventions/errors.ts';
import { HTTP_ERRORS, resolveSituations, type ResolvedSituation, type Situation } from '../../spec/http-errors.ts';
import type { Spec } from '../../spec/model.ts';
import { mediaTypeOf } from '../../conformance/http.ts';
import type { Found, Seen } from '../seen.ts';
import { isObject } from './values.ts';

export class ErrorJudge {
  readonly #spec: Spec;
  readonly resolve: (s: Situation) => ResolvedSituation;
  /** Every code the service may answer with, and its status: the catalog's, and the situations' defaults. */
  readonly #codes = new Map<string, { status: number; pointer: string }>();

  constructor(spec: Spec) {
    this.#spec = spec;
    this.resolve = resolveSituations(spec);
    for (const e of spec.errors.catalog) this.#codes.set(e.code, { status: e.status, pointer: e.pointer });
    for (const d of HTTP_ERRORS) {
      const r = this.resolve(d.situation);
      if (!this.#codes.has(r.code)) this.#codes.set(r.code, { status: r.status, pointer: spec.parts.errors.pointer });
    }
  }

  /** An error answer against the declared shape and catalog. */
  findings(x: Seen): Found[] {
    const spec = this.#spec;
    if (spec.parts.errors.statement !== 'given') return [];
    const shape = errorShape(spec);
    const ex = x.exchange;
    const base = { part: 'errors' as const, ...(x.endpoint ? { endpoint: x.endpoint.id } : {}), pointer: shape.pointer };
    const media = mediaTypeOf(ex);
    if (media !== shape.mediaType.toLowerCase()) return [{ ...base, id: 'error-media-type', message: `the ${ex.response.status} answer's content type is '${ex.response.headers['content-type'] ?? '(none)'}', not the declared '${shape.mediaType}'`, text: `errors.shape: ${shape.mediaType}` }];
    const body = ex.response.json;
    if (!isObject(body)) return [{ ...base, id: 'error-shape', message: `the ${ex.response.status} answer's body is not a JSON object`, text: `errors.shape: ${shape.kind}` }];
    const m = shape.members;
    const out: Found[] = [];
    if (m.code) {
      const code = body[m.code];
      const known = typeof code === 'string' ? this.#codes.get(code) : undefined;
      if (!known) out.push({ ...base, id: 'error-code-undeclared', message: `the error's '${m.code}' is ${JSON.stringify(code)}, which the catalog does not declare`, pointer: spec.parts.errors.pointer, text: 'errors.catalog' });
      else if (known.status !== ex.response.status) out.push({ ...base, id: 'error-status', message: `code '${code}' is declared with status ${known.status}, answered with ${ex.response.status}`, pointer: known.pointer, text: `errors.${code}: status ${known.status}` });
    }
    if (m.title && typeof body[m.title] !== 'string') out.push({ ...base, id: 'error-shape', message: `the error has no '${m.title}' string`, text: `errors.shape: member ${m.title}` });
    if (m.status && body[m.status] !== undefined && body[m.status] !== ex.response.status) out.push({ ...base, id: 'error-shape', message: `the error's '${m.status}' is ${JSON.stringify(body[m.status])}, not ${ex.response.status}`, text: `errors.shape: member ${m.status}` });
    return out;
  }

  /** The body of the error the proxy answers itself in strict mode, in the declared shape. */
  /** `instance`: the request target (RFC 9457 §3.1.5), written where the shape has the member, as serve writes it. */
  body(situation: Situation | 'bad-gateway', detail: string, errors?: readonly { pointer: string; message: string }[], instance?: string): { status: number; mediaType: string; text: string } {
    const shape = errorShape(this.#spec);
    // The proxy's own failure to reach the service is no situation of the spec's: 502 (RFC 9110
    // §15.6.3), said so in the declared shape, its status member the answer's (RFC 9457 §3.1.2).
    const r = situation === 'bad-gateway' ? { status: 502, title: 'Bad gateway', code: 'bad-gateway' } : this.resolve(situation);
    const m = shape.members;
    const out: Record<string, unknown> = {};
    const problem = shape.kind === 'problem';
    if (m.type && problem) out[m.type] = problemType(r.code);
    if (m.title) out[m.title] = r.title;
    if (m.status) out[m.status] = r.status;
    if (m.detail) out[m.detail] = detail;
    if (m.instance && problem && instance !== undefined) out[m.instance] = instance;
    if (m.code) out[m.code] = r.code;
    if (m.errors && errors?.length) out[m.errors] = errors;
    return { status: r.status, mediaType: shape.mediaType, text: JSON.stringify(out) };
  }
}
