/** Part 3 at run time: transitions. PLACEHOLDER. */
import type { RouteHandlerMethod } from 'fastify';
import type { Endpoint } from '../spec/model.ts';
import type { ServeContext } from './context.ts';
import { HttpError } from './errors.ts';

export function transitionHandler(_ctx: ServeContext, _endpoint: Endpoint): RouteHandlerMethod {
  return async () => {
    throw new HttpError('internal', { detail: 'not built yet' });
  };
}
