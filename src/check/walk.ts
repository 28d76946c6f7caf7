/** Walks the model once, calling every rule's visitors on each node. */
import { diagnostic, type Diagnostic } from '../spec/diagnostics.ts';
import type { Field, Location, Resource, Spec } from '../spec/model.ts';
import type { Rule, RuleContext } from './rule.ts';
import { indexSpec } from './spec-index.ts';

export function runRules(spec: Spec, rules: readonly Rule[]): Diagnostic[] {
  const found: Diagnostic[] = [];
  const ctx: RuleContext = {
    spec,
    index: indexSpec(spec),
    report(def, params, pointer, options) {
      // A finding's place is looked up when it is read: serve reads none (it counts errors and
      // prints defaults), and the first look-up builds the whole position index (a second parse
      // of the document, most of serve's start-up when a note is found). Same keys, same order.
      const finding = diagnostic(options?.part ? { ...def, part: options.part } : def, params) as { -readonly [K in keyof Diagnostic]: Diagnostic[K] };
      let location: Location | undefined;
      Object.defineProperty(finding, 'location', {
        enumerable: true,
        configurable: true,
        get: () => (location ??= options?.key ? spec.source.locateKey(pointer)
          : options?.offset !== undefined && spec.source.locateWithin ? spec.source.locateWithin(pointer, options.offset)
            : spec.source.locate(pointer)),
      });
      finding.pointer = pointer;
      found.push(finding);
    },
  };
  const having = <K extends keyof Rule>(key: K) => rules.filter((r) => typeof r[key] === 'function');
  const specRules = having('spec');
  const resourceRules = having('resource');
  const fieldRules = having('field');
  const machineRules = having('stateMachine');
  const transitionRules = having('transition');
  const endpointRules = having('endpoint');
  const schemeRules = having('scheme');
  const authRules = having('authRule');
  const eventRules = having('event');
  const errorRules = having('errorCode');
  const versionRules = having('version');

  for (const rule of specRules) rule.spec!(ctx);
  const visitField = (field: Field, resource: Resource, parents: readonly Field[]): void => {
    for (const rule of fieldRules) rule.field!(field, resource, ctx, parents);
    for (const inner of field.properties ?? []) visitField(inner, resource, [...parents, field]);
  };
  for (const resource of spec.resources) {
    for (const rule of resourceRules) rule.resource!(resource, ctx);
    for (const field of resource.fields) visitField(field, resource, []);
  }
  for (const machine of spec.states) {
    for (const rule of machineRules) rule.stateMachine!(machine, ctx);
    for (const transition of machine.transitions) for (const rule of transitionRules) rule.transition!(transition, machine, ctx);
  }
  for (const endpoint of spec.endpoints) for (const rule of endpointRules) rule.endpoint!(endpoint, ctx);
  for (const scheme of spec.authentication.schemes) for (const rule of schemeRules) rule.scheme!(scheme, ctx);
  for (const authRule of spec.authentication.rules) for (const rule of authRules) rule.authRule!(authRule, ctx);
  for (const event of spec.events.catalog) for (const rule of eventRules) rule.event!(event, ctx);
  for (const error of spec.errors.catalog) for (const rule of errorRules) rule.errorCode!(error, ctx);
  for (const version of spec.versioning.versions) for (const rule of versionRules) rule.version!(version, ctx);
  return found;
}
