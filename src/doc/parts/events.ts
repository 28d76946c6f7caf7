import type { Events, Spec } from '../../spec/model.ts';
import { code, codes, facts, maybeText, paragraph, table, type Block, type Inline, type Text } from '../blocks.ts';
import { WEBHOOK_BODY_MEMBERS } from '../../spec/conventions/events.ts';
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
    ...(webhooks ? deliveryBlocks(webhooks) : []),
    ...(stream ? [paragraph('The event stream sends each event as ', code('id:'), ' its event id, ', code('event:'), ' its name and ', code('data:'), ' its payload on one line; a client that reconnects sends the last id it saw in ', code('Last-Event-ID'), ' (or ', code('?lastEventId='), ') and gets every later event first, none lost or repeated.')] : []),
  ];
}

/** What a receiver gets, and how a client manages its subscriptions (docs/events.md, src/spec/conventions/events.ts). */
function deliveryBlocks(w: NonNullable<Events['webhooks']>): Block[] {
  const out: Block[] = [
    w.cloudEvents
      ? paragraph('A delivery is ', code('POST <receiver URL>'), ' of a CloudEvents 1.0 event in structured mode (', code('application/cloudevents+json'), '): ', code('source'), ' the collection path, ', code('subject'), ' the record\'s id, ', code('data'), ' the payload.')
      : paragraph('A delivery is ', code('POST <receiver URL>'), ' with ', code(`{${WEBHOOK_BODY_MEMBERS.map((m) => `"${m}": …`).join(', ')}}`), ': the event\'s name, when its change was committed (RFC 3339, UTC) and its payload. Only a 2xx answer counts as delivered; anything else is retried, and a 410 ends the subscription.'),
  ];
  if (w.signing === 'standard-webhooks') {
    out.push(paragraph('Each delivery is signed (Standard Webhooks): ', code('webhook-id'), ' the event id, the same on every retry; ', code('webhook-timestamp'), ' seconds since the epoch; ', code('webhook-signature'), ' ', code('v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">'), ' keyed by the base64 part of the subscription\'s secret after ', code('whsec_'), ', one per live secret (an old one signs beside the new for 24 hours after a rotation).'));
  }
  if (w.subscriptions === 'api' && w.path) {
    const p = `${BASE_URL}${w.path}`;
    out.push(...table(['Request', 'Answer'], [
      [[code(`POST ${p}`), ' ', code('{"url", "events"?, "description"?}')], ['201, the subscription with its ', code('secret'), ' (shown only here)']],
      [[code(`GET ${p}`)], ['200 ', code('{"items": [subscription, …]}'), ', the caller\'s own']],
      [[code(`GET ${p}/{id}`), ', ', code(`DELETE ${p}/{id}`)], ['200 the subscription; 204']],
      [[code(`POST ${p}/{id}/rotate-secret`)], ['200, the subscription with its new ', code('secret')]],
      [[code(`GET ${p}/{id}/deliveries?status=`)], ['200 ', code('{"items": [delivery, …]}'), ', newest first']],
      [[code(`POST ${p}/{id}/deliveries/{deliveryId}/replay`)], ['202, the delivery pending again']],
    ]));
  }
  return out;
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
