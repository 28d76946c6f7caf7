/** Part 2 at run time: create, read, update, replace, delete and list. PLACEHOLDER. */
import type { RouteHandlerMethod } from 'fastify';
import type { Endpoint } from '../spec/model.ts';
import type { ServeContext } from './context.ts';
import { HttpError } from './errors.ts';

export function resourceHandler(_ctx: ServeContext, _endpoint: Endpoint): RouteHandlerMethod {
  return async () => {
    throw new HttpError('internal', { detail: 'not built yet' });
  };
}
