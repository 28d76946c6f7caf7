/** Raw (validated) document -> the normalized Spec. One function per part, called in the nine-part order. */
import type { PartState, Spec, SpecSource } from '../../spec/model.ts';
import type { PartName } from '../../spec/parts.ts';
import { pointer } from '../../spec/pointer.ts';
import { endpointAuth, normalizeAuthentication, rulesByMatch } from './authentication.ts';
import { normalizeEndpoints } from './endpoints.ts';
import { normalizeErrors } from './errors.ts';
import { normalizeEvents } from './events.ts';
import { normalizeLimits } from './limits.ts';
import { normalizePurpose } from './purpose.ts';
import { defined, str } from './read.ts';
import { normalizeResources } from './resources.ts';
import { normalizeStates } from './states.ts';
import { normalizeVersioning } from './versioning.ts';

export function normalize(raw: Record<string, unknown>, parts: Record<PartName, PartState>, source: SpecSource): Spec {
  // A part stated as `none`, or a gap, contributes no content.
  const content = (part: PartName): unknown => (parts[part].statement === 'given' ? raw[part] : undefined);
  const resources = normalizeResources(content('resources'), pointer('resources'));
  const states = normalizeStates(content('states'), pointer('states'), resources);
  const authentication = normalizeAuthentication(content('authentication'), pointer('authentication'));
  const byMatch = rulesByMatch(authentication);
  const endpoints = normalizeEndpoints(content('endpoints'), pointer('endpoints'), resources, states).map((e) =>
    defined({ ...e, auth: endpointAuth(authentication, parts.authentication.statement, e, byMatch) }),
  );
  return defined({
    formatVersion: str(raw.svcspec),
    title: str(raw.title),
    source,
    parts,
    purpose: normalizePurpose(content('purpose'), pointer('purpose')),
    resources,
    states,
    endpoints,
    authentication,
    events: normalizeEvents(content('events'), pointer('events')),
    errors: normalizeErrors(content('errors'), pointer('errors')),
    limits: normalizeLimits(content('limits'), pointer('limits')),
    versioning: normalizeVersioning(content('versioning'), pointer('versioning')),
  });
}

