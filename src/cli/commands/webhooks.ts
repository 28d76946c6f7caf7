import { defineCommand } from 'citty';
import { eventId } from '../../serve/events/envelope.ts';
import { addSubscription, enableSubscription, listDeliveries, removeSubscription, replayDelivery, rotateSecret } from '../../serve/events/operator.ts';
import { presentDelivery, presentSubscription } from '../../serve/events/subscriptions.ts';
import { openServiceStore } from '../../serve/server.ts';
import { describeTarget } from '../../store/open.ts';
import type { DeliveryStatus } from '../../store/events.ts';
import { databaseOf, DB_HELP } from '../database.ts';
import { CliError, EXIT } from '../errors.ts';
import { oneOf, printDiagnostics } from '../output.ts';
import { specFileOf } from '../spec-file.ts';

const ACTIONS = ['add', 'list', 'remove', 'rotate', 'enable', 'deliveries', 'replay'] as const;

export default defineCommand({
  meta: {
    name: 'webhooks',
    description: 'Webhook subscriptions the operator configures (events.webhooks.subscriptions: config), and the deliveries of any subscription: list, replay dead ones. Works on the service\'s database, running or not (docs/events.md).',
  },
  args: {
    action: { type: 'positional', required: true, description: 'add | list | remove | rotate | enable | deliveries | replay', valueHint: ACTIONS.join('|') },
    id: { type: 'positional', required: false, description: 'remove/rotate/enable/deliveries: the subscription id; replay: the delivery id' },
    spec: { type: 'string', description: 'The spec (default: svcspec.yaml, .yml, .json or .md in the current folder)', valueHint: 'FILE' },
    db: { type: 'string', description: DB_HELP },
    url: { type: 'string', description: 'For add: where deliveries go (http or https)' },
    events: { type: 'string', description: 'For add: the events, comma-separated (default: every event)', default: '' },
    description: { type: 'string', description: 'For add: a note to recognise it by' },
    'api-version': { type: 'string', description: 'For add: the API version of the payloads (default: the spec\'s default version)' },
    'allow-private': { type: 'boolean', description: 'For add: allow loopback and private addresses (local development)' },
    status: { type: 'string', description: 'For deliveries: pending, delivered or dead', valueHint: 'pending|delivered|dead' },
    format: { type: 'string', description: 'text or json', default: 'text', valueHint: 'text|json' },
  },
  async run({ args }) {
    const action = oneOf('action', args.action, ACTIONS, 'list');
    const format = oneOf('format', args.format, ['text', 'json'] as const, 'text');
    if (action !== 'add' && action !== 'list' && !args.id) throw new CliError(`webhooks ${action} needs an id: svcspec webhooks ${action} ID --spec FILE.`);
    if (action === 'add' && !args.url) throw new CliError('webhooks add needs --url URL.');
    const status = args.status === undefined ? undefined : oneOf('status', args.status, ['pending', 'delivered', 'dead'] as const, 'dead');
    const specFile = specFileOf(args.spec);
    const opened = await openServiceStore(specFile, databaseOf(args.db));
    if (!opened.ok) {
      printDiagnostics(opened.diagnostics);
      if (opened.reason) throw new CliError(opened.reason);
      throw new CliError(`cannot read the spec '${specFile}'.`);
    }
    const { spec, store } = opened;
    const print = (value: unknown, text: string) => process.stdout.write(format === 'json' ? `${JSON.stringify(value, null, 2)}\n` : text);
    const check = <T>(r: { ok: true; value: T } | { ok: false; message: string }): T => {
      if (!r.ok) throw new CliError(r.message, EXIT.findings);
      return r.value;
    };
    try {
      const id = args.id as string;
      switch (action) {
        case 'add': {
          const events = args.events.split(',').map((e) => e.trim()).filter(Boolean);
          const { subscription, secret } = check(await addSubscription(spec, store, {
            url: args.url as string, events, allowPrivate: Boolean(args['allow-private']),
            ...(args.description ? { description: args.description } : {}), ...(args['api-version'] ? { apiVersion: args['api-version'] } : {}),
          }));
          if (format === 'text') process.stderr.write(`svcspec: subscribed ${subscription.url} (${subscription.events.length ? subscription.events.join(', ') : 'every event'}), in ${describeTarget(opened.db)}; the secret is shown this once.\n`);
          print(presentSubscription(subscription, secret), `${subscription.id}\nsecret: ${secret}\n`);
          break;
        }
        case 'list': {
          const all = await store.events.listSubscriptions();
          print(all.map((s) => presentSubscription(s)), all.length === 0 ? 'No webhook subscriptions.\n' : all.map((s) => `${s.id}  ${s.status.padEnd(8)}  ${s.url}  ${s.events.length ? s.events.join(',') : '*'}${s.principal ? `  (principal ${s.principal})` : ''}\n`).join(''));
          break;
        }
        case 'remove':
          print({ removed: id }, `${check(await removeSubscription(store, id))}\n`);
          break;
        case 'enable':
          print({ enabled: id }, `${check(await enableSubscription(store, id))}\n`);
          break;
        case 'rotate': {
          const secret = check(await rotateSecret(store, id));
          if (format === 'text') process.stderr.write('svcspec: the old secret goes on signing beside the new one for 24 hours.\n');
          print({ id, secret }, `secret: ${secret}\n`);
          break;
        }
        case 'deliveries': {
          const list = check(await listDeliveries(store, id, status as DeliveryStatus | undefined));
          print(list.map(presentDelivery), list.length === 0 ? 'No deliveries.\n' : list.map((d) => `${d.id}  ${eventId(d.eventSeq)}  ${d.eventName}  ${d.status.padEnd(9)}  attempts ${d.attempts}${d.lastStatus !== undefined ? `  last ${d.lastStatus}` : ''}${d.lastError ? `  ${d.lastError}` : ''}\n`).join(''));
          break;
        }
        case 'replay': {
          const d = check(await replayDelivery(store, id));
          print(presentDelivery(d), `${d.id} is pending again; a running service delivers it within a second.\n`);
          break;
        }
      }
      return EXIT.ok;
    } finally {
      await store.close();
    }
  },
});
