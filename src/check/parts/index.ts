/** What each part lacks to be complete, one file per part. */
import type { Spec } from '../../spec/model.ts';
import type { PartName } from '../../spec/parts.ts';
import { missingAuthentication } from './authentication.ts';
import { missingEndpoints } from './endpoints.ts';
import { missingErrors } from './errors.ts';
import { missingEvents } from './events.ts';
import { missingLimits } from './limits.ts';
import { missingPurpose } from './purpose.ts';
import { missingResources } from './resources.ts';
import { missingStates } from './states.ts';
import { missingVersioning } from './versioning.ts';

export const MISSING: Readonly<Record<PartName, (spec: Spec) => string[]>> = {
  purpose: missingPurpose,
  resources: missingResources,
  states: missingStates,
  endpoints: missingEndpoints,
  authentication: missingAuthentication,
  events: missingEvents,
  errors: missingErrors,
  limits: missingLimits,
  versioning: missingVersioning,
};
