import { defineDiagnostic } from '../../spec/diagnostics.ts';
import { child } from '../../spec/pointer.ts';
import { defineRule } from '../rule.ts';
import { endpointRoutes, routeShape } from './support.ts';

const collides = defineDiagnostic({
  code: 'event-path-collides-endpoint',
  severity: 'error',
  part: 'events',
  message: 'The {what} path {path} is also the path of an endpoint, so requests to it would be ambiguous.',
  description: 'The event stream and the webhook subscriptions collection are served by the service next to the endpoints; they need paths of their own. Choose another path (`/events`, `/webhooks`).',
});

export default defineRule({
  name: 'event-path-collides-endpoint',
  diagnostics: [collides],
  spec(ctx) {
    const { stream, webhooks } = ctx.spec.events;
    const routes = endpointRoutes(ctx.spec);
    if (stream && routes.has(routeShape(stream.path))) ctx.report(collides, { what: 'event stream', path: stream.path }, child(stream.pointer, 'path'));
    if (webhooks?.subscriptions === 'api' && webhooks.path !== undefined && routes.has(routeShape(webhooks.path))) {
      ctx.report(collides, { what: 'webhook subscriptions', path: webhooks.path }, child(webhooks.pointer, 'path'));
    }
  },
});
