/** The human-readable content of each part, one builder per part, in the nine-part order. */
import type { Spec } from '../../spec/model.ts';
import type { PartName } from '../../spec/parts.ts';
import type { Block } from '../blocks.ts';
import { authenticationBlocks } from './authentication.ts';
import { endpointsBlocks } from './endpoints.ts';
import { errorsBlocks } from './errors.ts';
import { eventsBlocks } from './events.ts';
import { limitsBlocks } from './limits.ts';
import { purposeBlocks } from './purpose.ts';
import { resourcesBlocks } from './resources.ts';
import { statesBlocks } from './states.ts';
import { versioningBlocks } from './versioning.ts';

export const PART_BLOCKS: Readonly<Record<PartName, (spec: Spec) => Block[]>> = {
  purpose: purposeBlocks,
  resources: resourcesBlocks,
  states: statesBlocks,
  endpoints: endpointsBlocks,
  authentication: authenticationBlocks,
  events: eventsBlocks,
  errors: errorsBlocks,
  limits: limitsBlocks,
  versioning: versioningBlocks,
};
