import type { Field, Resource, Spec } from '../../spec/model.ts';
import { code, facts, heading, maybeText, paragraphs, table, type Block, type Text } from '../blocks.ts';
import { constraints, shapeType, yesNo } from '../describe.ts';
import { resourceDomainBlocks } from './domain.ts';
import { isPlain, recordAddress } from '../../spec/conventions/paths.ts';

const ASSIGNED: Readonly<Record<string, string>> = {
  uuid: 'a random UUID chosen by the service',
  sequence: 'increasing integers chosen by the service',
  client: 'sent by the client on create',
};

export function resourcesBlocks(spec: Spec): Block[] {
  return spec.resources.flatMap((r) => resourceBlocks(spec, r));
}

function resourceBlocks(spec: Spec, r: Resource): Block[] {
  return [
    heading(code(r.name), ...collectionOf(spec, r)),
    ...paragraphs(r.description),
    ...facts([
      // src/spec/conventions/paths.ts recordAddress: where a record is read, the path a create's Location names.
      ['Record at', recordPath(spec, r)],
      ['Id', r.id ? [code(r.id.field), `, ${ASSIGNED[r.id.assigned] ?? r.id.assigned}`] : undefined],
      ['Owned', r.owned ? ['yes: a record is seen and changed only by the principal that created it'] : undefined],
      ['Undeclared members', r.unknownFields === 'keep' ? ['kept: stored and returned as sent (an open record)'] : r.unknownFields === 'ignore' ? ['ignored: dropped, and the request served without them'] : undefined],
      ['Members the service sets', r.readOnlyFields === 'ignore' ? ['ignored when a client sends them'] : r.readOnlyFields === 'either' ? ['ignored or refused when a client sends them, as the service chooses'] : undefined],
      // src/spec/conventions/envelope.ts: which bodies are enveloped.
      ['Envelope', r.envelope !== undefined ? [r.envelopeRequests === 'bare' ? 'each record is answered inside ' : 'each record is sent and answered inside ', code(`{"${r.envelope}": {…}}`), r.envelopeRequests === 'bare' ? ' and sent bare (a page\'s items and bulk items bare)' : ' (a page\'s items and bulk items bare)'] : undefined],
      ['Per owner', r.perOwner === 'one' ? ['one record at most (a singleton)'] : undefined],
      ['Visibility', r.visibility ? ['as its parent: a record is seen by whoever sees the record its ', code(r.visibility.field), ' names'] : undefined],
    ]),
    ...table(['Field', 'Type', 'Format', 'Required', 'Constraints', 'Description'], fieldRows(r.fields, '')),
    ...resourceDomainBlocks(spec, r),
  ];
}

/** ` (collection /books)`: the path of its list, the plain one first; nothing where it has none (no path is made up from its plural). */
function collectionOf(spec: Spec, r: Resource): Text {
  const lists = spec.endpoints.filter((e) => e.resource === r.name && e.operation === 'list');
  const list = lists.find(isPlain) ?? lists[0];
  return list ? [' (collection ', code(list.path), ')'] : [];
}

function recordPath(spec: Spec, r: Resource): Text | undefined {
  const at = recordAddress(spec.endpoints, r.name);
  return at ? [code(at.path)] : undefined;
}

/** One row per field; the members of an object (or of an array's object items) follow it as `parent.member`. */
function fieldRows(fields: readonly Field[], prefix: string): Text[][] {
  return fields.flatMap((f) => {
    const name = `${prefix}${f.name}`;
    const row: Text[] = [[code(name)], shapeType(f), f.format ? [code(f.format)] : [], [yesNo(f.required)], constraints(f), maybeText(f.description)];
    const members = f.properties ? fieldRows(f.properties, `${name}.`) : f.items?.properties ? fieldRows(f.items.properties, `${name}[].`) : [];
    return [row, ...members];
  });
}
