import type { Events, Spec } from '../../spec/model.ts';
import { code, codes, facts, maybeText, table, type Block, type Inline, type Text } from '../blocks.ts';
import { BASE_URL, duration } from '../describe.ts';

export function eventsBlocks(spec: Spec): Block[] {
  const { webhooks, stream, retry, catalog } = spec.events;
  return [
    ...facts([
      ['Webhooks', webhooks ? webhookText(webhooks) : undefined],
      ['Event stream', stream ? [code(`GET ${BASE_URL}${stream.path}`), ' (server-sent events)', ...(stream.heartbeatMs !== undefined ? [`, a heartbeat every ${duration(stream.heartbeatMs)}`] : [])] : undefined],
      ['Retries', retry ? [`${retry.attempts} attempts in all, ${retry.backoff} backoff`, ...(retry.initialDelayMs ? [` from ${duration(retry.initialDelayMs)}`] : []), ...(retry.maxDelayMs !== undefined ? [` up to ${duration(retry.maxDelayMs)}`] : [])] : undefined],
    ]),
    ...table(
      ['Event', 'Trigger', 'Payload', 'Versions', 'Description'],
      catalog.map((e) => [[code(e.name)], [code(e.trigger.on)], e.payload.kind === 'resource' ? ['the whole record'] : codes(e.payload.fields), versions(e.since, e.until), maybeText(e.description)]),
    ),
  ];
}

function webhookText(w: NonNullable<Events['webhooks']>): Inline[] {
  const out: Inline[] = [];
  if (w.subscriptions === 'api') out.push('clients subscribe through the API', ...(w.path ? [' at ', code(`${BASE_URL}${w.path}`)] : []));
  else out.push('subscriptions are configured by the operator');
  out.push(w.signing === 'standard-webhooks' ? '; deliveries signed (Standard Webhooks)' : '; deliveries unsigned');
  if (w.cloudEvents) out.push('; CloudEvents 1.0, structured mode');
  if (w.timeoutMs !== undefined) out.push(`; a receiver has ${duration(w.timeoutMs)} to answer`);
  return out;
}

function versions(since: string | undefined, until: string | undefined): Text {
  if (since !== undefined && until !== undefined) return [`${since} to ${until}`];
  if (since !== undefined) return [`from ${since}`];
  if (until !== undefined) return [`up to ${until}`];
  return ['all'];
}
