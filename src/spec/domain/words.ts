/**
 * The domain rules in words, for readers of the documents and of an exported OpenAPI
 * description: `doc` and `export` say the same thing the same way. Expressions are quoted as
 * written (CEL reads well enough, and a paraphrase could say something else).
 */
import type { CountDef, Effect, Field, ManagedSource, Resource, Spec, UniqueRule, WriteRules } from '../model.ts';

function list(items: readonly string[], last = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

const code = (text: string) => `\`${text}\``;

/** "No two member records share `email` (ignoring case) … Refused with `email-taken`." */
export function uniqueWords(resource: Resource, u: UniqueRule): string {
  const fields = list(u.fields.map(code));
  const among = u.where.length ? `, among the ${resource.name} records whose ${list(u.where.map((w) => `${code(w.field)} is ${list(w.values.map((v) => code(String(v))), 'or')}`))}` : '';
  return `No two ${resource.name} records share ${u.fields.length > 1 ? 'the same ' : ''}${fields}${u.fields.length > 1 ? ' together' : ''}${u.ignoreCase ? ' (ignoring case)' : ''}${among}; a record with any of them absent conflicts with none. Refused with ${code(u.error)}.`;
}

/** "`self.end > self.start` must hold (refused with validation-failed at /end: …)." */
export function ruleWords(rule: { readonly expr: { readonly source: string }; readonly error: string; readonly message?: string; readonly field?: string }): string {
  return `${code(rule.expr.source)} must hold after every write; otherwise refused with ${code(rule.error)}${rule.field ? ` at ${code(`/${rule.field}`)}` : ''}${rule.message ? `: ${rule.message}` : '.'}`;
}

/** What sets a managed field, in words. */
export function managedWords(source: ManagedSource): string {
  switch (source.kind) {
    case 'created-at': return 'Set by the service: the time the record was created.';
    case 'updated-at': return 'Set by the service: the time of the latest write (the create, then every change).';
    case 'created-by': return 'Set by the service: the id of the principal who created the record.';
    case 'updated-by': return 'Set by the service: the id of the principal who last changed the record.';
    case 'sequence': return `Set by the service on create: the next number of its own counter, from 1, formatted as ${code(source.template)}.`;
    case 'expr': return `Set by the service ${source.on === 'create' ? 'on create' : 'on every write'}: ${code(source.expr.source)}.`;
  }
}

/** What deleting the record a ref points to does to the record holding the ref. */
export function refDeletionWords(spec: Spec, resource: Resource, field: Field): string | undefined {
  const target = field.resource ?? 'record';
  switch (field.onDelete?.kind) {
    case 'refuse': return `Deleting the ${target} it names is refused with ${code(field.onDelete.error)} while any ${resource.name} refers to it.`;
    case 'cascade': return `Deleting the ${target} it names deletes this ${resource.name} with it.`;
    case 'nullify': return `Deleting the ${target} it names sets it to null.`;
    default: {
      const deletable = spec.endpoints.some((e) => e.resource === field.resource && (e.operation === 'delete' || e.operation === 'bulk-delete'));
      return deletable ? `The spec is silent on what deleting the ${target} it names does: the ref is left naming nothing.` : undefined;
    }
  }
}

function countWords(c: CountDef): string {
  const where = c.where.map((w) => ('expr' in w ? `${code(w.field)} is ${code(w.expr.source)}` : `${code(w.field)} is ${list(w.values.map((v) => code(String(v))), 'or')}`));
  return `${code(`count.${c.name}`)} is the number of ${c.resource} records${where.length ? ` whose ${list(where)}` : ''}`;
}

function effectWords(e: Effect): string {
  const on = e.ref === undefined ? 'the record' : `the ${e.ref} it names`;
  const changes = [
    ...e.set.map((s) => `sets ${code(s.field)} to ${code(s.expr.source)}`),
    ...e.increment.map((i) => (i.by >= 0 ? `adds ${i.by} to ${code(i.field)}` : `takes ${-i.by} from ${code(i.field)}`)),
  ];
  return `On ${on}, it ${list(changes)}.`;
}

/** The counts, guards and effects of a write, a sentence each, in the order they apply. */
export function writeRulesWords(rules: WriteRules): string[] {
  const out: string[] = [];
  if (rules.counts.length) out.push(`Where ${list(rules.counts.map(countWords))}.`);
  for (const g of rules.guards) out.push(`Refused with ${code(g.error)} unless ${code(g.expr.source)}${g.each !== undefined ? ` holds for every item of ${code(g.each)} (\`item\`)` : ''}${g.message ? `: ${g.message}` : '.'}`);
  for (const e of rules.effects) out.push(effectWords(e));
  if (rules.guards.length || rules.effects.length) out.push('Guards, the change and its effects are one transaction.');
  return out;
}

// ---- the extensions of an exported description (docs/format.md "Domain rules in OpenAPI") ----

/** `x-svcspec-unique`: the resource's `unique`, as the format writes it. */
export function uniqueExtension(u: UniqueRule): Record<string, unknown> {
  return {
    name: u.name, fields: [...u.fields],
    ...(u.where.length ? { where: Object.fromEntries(u.where.map((w) => [w.field, w.values.length === 1 ? w.values[0] : [...w.values]])) } : {}),
    ...(u.ignoreCase ? { ignoreCase: true } : {}),
    error: u.error,
  };
}

/** `x-svcspec-rules` items: `{ rule, error, message?, field? }`, as the format writes them. */
export function ruleExtension(rule: { readonly expr: { readonly source: string }; readonly error: string; readonly message?: string; readonly field?: string }): Record<string, unknown> {
  return { rule: rule.expr.source, error: rule.error, ...(rule.message !== undefined ? { message: rule.message } : {}), ...(rule.field !== undefined ? { field: rule.field } : {}) };
}

/** `x-svcspec-managed`: the field's `managed`, as the format writes it. */
export function managedExtension(source: ManagedSource): unknown {
  if (source.kind === 'sequence') return { sequence: source.template };
  if (source.kind === 'expr') return { expr: source.expr.source, on: source.on };
  return source.kind;
}

/** `x-svcspec-on-delete`: the ref's `onDelete`, as the format writes it. */
export function onDeleteExtension(field: Field): unknown {
  const d = field.onDelete;
  if (!d) return undefined;
  return d.kind === 'refuse' ? { refuse: d.error } : d.kind;
}

/**
 * `x-svcspec-counts`, `x-svcspec-guards`, `x-svcspec-effects` of an operation, as the format
 * writes them (a count condition's literal values always as a list: a string alone is an expression).
 */
export function writeRulesExtensions(rules: WriteRules): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (rules.counts.length) {
    out['x-svcspec-counts'] = Object.fromEntries(rules.counts.map((c) => [c.name, {
      resource: c.resource,
      ...(c.where.length ? { where: Object.fromEntries(c.where.map((w) => [w.field, 'expr' in w ? w.expr.source : [...w.values]])) } : {}),
    }]));
  }
  if (rules.guards.length) out['x-svcspec-guards'] = rules.guards.map((g) => ({ ...(g.each !== undefined ? { each: g.each } : {}), ...(ruleExtension(g) as Record<string, unknown>) }));
  if (rules.effects.length) {
    out['x-svcspec-effects'] = rules.effects.map((e) => ({
      ...(e.ref !== undefined ? { ref: e.ref } : {}),
      ...(e.set.length ? { set: Object.fromEntries(e.set.map((s) => [s.field, s.expr.source])) } : {}),
      ...(e.increment.length ? { increment: Object.fromEntries(e.increment.map((i) => [i.field, i.by])) } : {}),
    }));
  }
  return out;
}
