import { FIELD_TYPES, ID_ASSIGNMENTS, type Field, type FieldType, type IdAssignment, type Resource, type Shape } from '../../spec/model.ts';
import { child } from '../../spec/pointer.ts';
import { bool, defined, entries, isRecord, num, str } from './read.ts';
import { normalizeManaged, normalizeRecordRules, normalizeRefDeletion, normalizeUnique, normalizeWriteRules } from './domain.ts';

export function normalizeResources(raw: unknown, pointer: string): Resource[] {
  return entries(raw).map(([name, value]) => normalizeResource(name, value, child(pointer, name)));
}

function normalizeResource(name: string, raw: unknown, pointer: string): Resource {
  const r = isRecord(raw) ? raw : {};
  const id = isRecord(r.id) ? r.id : undefined;
  const assigned = str(id?.assigned);
  return defined({
    name,
    plural: str(r.plural) ?? name,
    description: str(r.description),
    id: id && str(id.field) && assigned && (ID_ASSIGNMENTS as readonly string[]).includes(assigned)
      ? { field: str(id.field) as string, assigned: assigned as IdAssignment, pointer: child(pointer, 'id') }
      : undefined,
    owned: bool(r.owned),
    unknownFields: r.unknownFields === 'keep' || r.unknownFields === 'ignore' ? r.unknownFields : 'refuse',
    readOnlyFields: r.readOnlyFields === 'ignore' || r.readOnlyFields === 'either' ? r.readOnlyFields : 'refuse',
    envelope: (isRecord(r.envelope) ? str(r.envelope.member) : str(r.envelope)) || undefined,
    envelopeRequests: isRecord(r.envelope) && r.envelope.requests === 'bare' ? 'bare' as const : undefined,
    perOwner: r.perOwner === 'one' ? 'one' as const : undefined,
    visibility: isRecord(r.visibility) && str(r.visibility.parent)
      ? { follows: 'parent' as const, field: str(r.visibility.parent) as string, pointer: child(pointer, 'visibility') }
      : undefined,
    fields: normalizeFields(r.fields, child(pointer, 'fields')),
    unique: normalizeUnique(r.unique, child(pointer, 'unique')),
    rules: normalizeRecordRules(r.rules, child(pointer, 'rules')),
    onCreate: isRecord(r.onCreate) ? normalizeWriteRules(r.onCreate, child(pointer, 'onCreate')) : undefined,
    onUpdate: isRecord(r.onUpdate) ? normalizeWriteRules(r.onUpdate, child(pointer, 'onUpdate')) : undefined,
    onDelete: isRecord(r.onDelete) ? normalizeWriteRules(r.onDelete, child(pointer, 'onDelete')) : undefined,
    pointer,
  });
}

export function normalizeFields(raw: unknown, pointer: string): Field[] {
  return entries(raw).map(([name, value]) => normalizeField(name, value, child(pointer, name)));
}

function normalizeField(name: string, raw: unknown, pointer: string): Field {
  // Short form: `title: string`.
  const f = typeof raw === 'string' ? { type: raw } : isRecord(raw) ? raw : {};
  return defined({
    ...normalizeShape(f, pointer),
    name,
    description: str(f.description),
    required: bool(f.required),
    readOnly: bool(f.readOnly),
    writeOnly: bool(f.writeOnly),
    default: f.default,
    hasDefault: 'default' in f,
    since: str(f.since),
    until: str(f.until),
    managed: f.managed !== undefined ? normalizeManaged(f.managed, child(pointer, 'managed')) : undefined,
    onDelete: f.onDelete !== undefined ? normalizeRefDeletion(f.onDelete, child(pointer, 'onDelete')) : undefined,
  });
}

export function normalizeShape(s: Record<string, unknown>, pointer: string): Shape {
  const type = str(s.type);
  return defined({
    type: (FIELD_TYPES as readonly string[]).includes(type ?? '') ? (type as FieldType) : 'string',
    format: str(s.format),
    enum: Array.isArray(s.enum) ? s.enum : undefined,
    minimum: num(s.minimum),
    maximum: num(s.maximum),
    exclusiveMinimum: num(s.exclusiveMinimum),
    exclusiveMaximum: num(s.exclusiveMaximum),
    multipleOf: num(s.multipleOf),
    minLength: num(s.minLength),
    maxLength: num(s.maxLength),
    pattern: str(s.pattern),
    minItems: num(s.minItems),
    maxItems: num(s.maxItems),
    uniqueItems: s.uniqueItems === true ? true : undefined,
    resource: str(s.resource),
    items: isRecord(s.items) ? normalizeShape(s.items, child(pointer, 'items')) : typeof s.items === 'string' ? normalizeShape({ type: s.items }, child(pointer, 'items')) : undefined,
    properties: isRecord(s.properties) ? normalizeFields(s.properties, child(pointer, 'properties')) : undefined,
    nullable: s.nullable === true ? true : undefined,
    pointer,
  });
}
