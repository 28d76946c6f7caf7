/**
 * Every check rule, one file each, listed by the part they concern (in the nine-part order).
 * Add a rule: write `<code>.rule.ts`, list it here, add its rows to the table test of its part
 * (test/check/rules-<part>.test.ts).
 */
import type { Rule } from '../rule.ts';
import actionBehaviour from './action-behaviour-prose.rule.ts';
import actionWithout501 from './action-without-501.rule.ts';
import conditionalWithout412 from './conditional-without-412.rule.ts';
import paginationArrayWithoutLinks from './pagination-array-without-links.rule.ts';
import bulkMaxMissing from './bulk-max-missing.rule.ts';
import expandNotRef from './expand-not-ref.rule.ts';
import authJwtKeysMissing from './auth-jwt-keys-missing.rule.ts';
import authPrefixAmbiguous from './auth-prefix-ambiguous.rule.ts';
import authJwtSettingsUnused from './auth-jwt-settings-unused.rule.ts';
import authNoSchemes from './auth-no-schemes.rule.ts';
import authOwnedEndpointPublic from './auth-owned-endpoint-public.rule.ts';
import authOwnedWithoutAuthentication from './auth-owned-without-authentication.rule.ts';
import authPublicAndRequired from './auth-public-and-required.rule.ts';
import authRuleUnknownEndpoint from './auth-rule-unknown-endpoint.rule.ts';
import authScopeUndeclared from './auth-scope-undeclared.rule.ts';
import authScopeUnused from './auth-scope-unused.rule.ts';
import authWithout401 from './auth-without-401.rule.ts';
import bodyLimitWithout413 from './body-limit-without-413.rule.ts';
import endpointDuplicateRoute from './endpoint-duplicate-route.rule.ts';
import endpointOperationIdDuplicate from './endpoint-operation-id-duplicate.rule.ts';
import endpointPageNotList from './endpoint-page-not-list.rule.ts';
import endpointErrorStatusUndeclared from './endpoint-error-status-undeclared.rule.ts';
import endpointErrorUndeclared from './endpoint-error-undeclared.rule.ts';
import endpointGetChangesState from './endpoint-get-changes-state.rule.ts';
import endpointGetWithBody from './endpoint-get-with-body.rule.ts';
import endpointNoSuccessResponse from './endpoint-no-success-response.rule.ts';
import endpointPathMissingId from './endpoint-path-missing-id.rule.ts';
import endpointParamNotInPath from './endpoint-param-not-in-path.rule.ts';
import endpointPathParamRepeated from './endpoint-path-param-repeated.rule.ts';
import endpointPathParamUnbound from './endpoint-path-param-unbound.rule.ts';
import endpointRouteAmbiguous from './endpoint-route-ambiguous.rule.ts';
import endpointRouteShadowed from './endpoint-route-shadowed.rule.ts';
import endpointSingletonInvalid from './endpoint-singleton-invalid.rule.ts';
import endpointReadNotGet from './endpoint-read-not-get.rule.ts';
import endpointRequestReadonlyField from './endpoint-request-readonly-field.rule.ts';
import endpointRequestUnknownField from './endpoint-request-unknown-field.rule.ts';
import endpointTransitionMissing from './endpoint-transition-missing.rule.ts';
import endpointUnknownOperation from './endpoint-unknown-operation.rule.ts';
import endpointUnknownResource from './endpoint-unknown-resource.rule.ts';
import errorCatalogMissingValidation from './error-catalog-missing-validation.rule.ts';
import errorShapeMemberDuplicate from './error-shape-member-duplicate.rule.ts';
import eventNoDelivery from './event-no-delivery.rule.ts';
import eventPathCollidesEndpoint from './event-path-collides-endpoint.rule.ts';
import eventPayloadUnknownField from './event-payload-unknown-field.rule.ts';
import eventPayloadWriteonlyField from './event-payload-writeonly-field.rule.ts';
import eventRetryDelayInverted from './event-retry-delay-inverted.rule.ts';
import eventRetryWithoutWebhooks from './event-retry-without-webhooks.rule.ts';
import eventTriggerInvalid from './event-trigger-invalid.rule.ts';
import eventTriggerNoEndpoint from './event-trigger-no-endpoint.rule.ts';
import eventTriggerUnknownResource from './event-trigger-unknown-resource.rule.ts';
import eventTriggerUnknownTransition from './event-trigger-unknown-transition.rule.ts';
import eventWebhookPathMissing from './event-webhook-path-missing.rule.ts';
import fieldArrayWithoutItems from './field-array-without-items.rule.ts';
import fieldConstraintMismatch from './field-constraint-mismatch.rule.ts';
import fieldDefaultInvalid from './field-default-invalid.rule.ts';
import fieldEnumDuplicate from './field-enum-duplicate.rule.ts';
import fieldEnumTypeMismatch from './field-enum-type-mismatch.rule.ts';
import fieldFormatUnknown from './field-format-unknown.rule.ts';
import fieldPatternInvalid from './field-pattern-invalid.rule.ts';
import fieldRangeInverted from './field-range-inverted.rule.ts';
import fieldReadonlyWriteonly from './field-readonly-writeonly.rule.ts';
import fieldRefMissingResource from './field-ref-missing-resource.rule.ts';
import fieldRefUnknownResource from './field-ref-unknown-resource.rule.ts';
import fieldRequiredReadonly from './field-required-readonly.rule.ts';
import fieldRequiredWithDefault from './field-required-with-default.rule.ts';
import listQueryFieldUnknown from './list-query-field-unknown.rule.ts';
import listWithoutPagination from './list-without-pagination.rule.ts';
import paginationDefaultAboveMax from './pagination-default-above-max.rule.ts';
import paginationOffsetMemberStyle from './pagination-offset-member-style.rule.ts';
import paginationParamsConflict from './pagination-params-conflict.rule.ts';
import paginationWithoutList from './pagination-without-list.rule.ts';
import rateLimitWithout429 from './rate-limit-without-429.rule.ts';
import rateOverrideUnknownEndpoint from './rate-override-unknown-endpoint.rule.ts';
import resourceIdClientReadonly from './resource-id-client-readonly.rule.ts';
import resourceIdFieldUnknown from './resource-id-field-unknown.rule.ts';
import resourceIdMissing from './resource-id-missing.rule.ts';
import resourceOwnershipInvalid from './resource-ownership-invalid.rule.ts';
import resourceIdNotReadonly from './resource-id-not-readonly.rule.ts';
import resourceIdTypeMismatch from './resource-id-type-mismatch.rule.ts';
import resourceNameCaseDuplicate from './resource-name-case-duplicate.rule.ts';
import resourcePluralDuplicate from './resource-plural-duplicate.rule.ts';
import resourceWithoutFields from './resource-without-fields.rule.ts';
import sinceAfterUntil from './since-after-until.rule.ts';
import stateFieldMissing from './state-field-missing.rule.ts';
import stateFieldNotEnum from './state-field-not-enum.rule.ts';
import stateFieldUnknown from './state-field-unknown.rule.ts';
import stateFieldWritable from './state-field-writable.rule.ts';
import stateInitialMissing from './state-initial-missing.rule.ts';
import stateInitialUnknown from './state-initial-unknown.rule.ts';
import stateListEmpty from './state-list-empty.rule.ts';
import stateListMismatch from './state-list-mismatch.rule.ts';
import stateNoTransitions from './state-no-transitions.rule.ts';
import stateResourceUnknown from './state-resource-unknown.rule.ts';
import stateUnreachable from './state-unreachable.rule.ts';
import timeoutWithoutError from './timeout-without-error.rule.ts';
import transitionRequiresUnknownField from './transition-requires-unknown-field.rule.ts';
import transitionUnknownState from './transition-unknown-state.rule.ts';
import transitionWithout409 from './transition-without-409.rule.ts';
import versionDefaultMissing from './version-default-missing.rule.ts';
import versionDefaultRetired from './version-default-retired.rule.ts';
import versionDefaultUnknown from './version-default-unknown.rule.ts';
import versionDeprecatedWithoutDate from './version-deprecated-without-date.rule.ts';
import versionDeprecatedWithoutSunset from './version-deprecated-without-sunset.rule.ts';
import versionEndsBeforeRelease from './version-ends-before-release.rule.ts';
import versionNoCurrent from './version-no-current.rule.ts';
import versionReleaseOrder from './version-release-order.rule.ts';
import versionRetiredWithout410 from './version-retired-without-410.rule.ts';
import versionSelectMissing from './version-select-missing.rule.ts';
import versionSunsetBeforeDeprecation from './version-sunset-before-deprecation.rule.ts';
import versionUnknown from './version-unknown.rule.ts';
// Domain rules (#14): uniqueness, rules, managed fields, guards, counts, effects, ref deletion, bound codes.
import expressionInvalid from './expression-type-error.rule.ts';
import domainErrorUndeclared from './domain-error-undeclared.rule.ts';
import uniqueFieldUnknown from './unique-field-unknown.rule.ts';
import ruleFieldUnknown from './rule-field-unknown.rule.ts';
import countUnknown from './count-field-unknown.rule.ts';
import effectTargetUnknown from './effect-field-unknown.rule.ts';
import effectSetsStateField from './effect-sets-state-field.rule.ts';
import guardEachNotArray from './guard-each-not-array.rule.ts';
import refNullifyNotNullable from './ref-nullify-not-nullable.rule.ts';
import managedSequencePattern from './managed-sequence-pattern-mismatch.rule.ts';
import managedFieldWritable from './managed-field-writable.rule.ts';
import fieldReadonlyUnset from './field-readonly-unset.rule.ts';
import refOnDeleteSilent from './ref-on-delete-silent.rule.ts';
import errorCodeUnbound from './error-code-unbound.rule.ts';

export const RULES: readonly Rule[] = [
  // 2. resources
  fieldArrayWithoutItems,
  fieldConstraintMismatch,
  fieldDefaultInvalid,
  fieldEnumDuplicate,
  fieldEnumTypeMismatch,
  fieldFormatUnknown,
  fieldPatternInvalid,
  fieldRangeInverted,
  fieldReadonlyWriteonly,
  fieldRefMissingResource,
  fieldRefUnknownResource,
  fieldRequiredReadonly,
  fieldRequiredWithDefault,
  resourceIdClientReadonly,
  resourceIdFieldUnknown,
  resourceIdMissing,
  resourceOwnershipInvalid,
  resourceIdNotReadonly,
  resourceIdTypeMismatch,
  resourceNameCaseDuplicate,
  resourcePluralDuplicate,
  resourceWithoutFields,
  // 2. resources: domain rules (#14); transitions' and actions' guards and effects report in their own part
  expressionInvalid,
  domainErrorUndeclared,
  uniqueFieldUnknown,
  ruleFieldUnknown,
  countUnknown,
  effectTargetUnknown,
  effectSetsStateField,
  guardEachNotArray,
  refNullifyNotNullable,
  managedSequencePattern,
  managedFieldWritable,
  fieldReadonlyUnset,
  refOnDeleteSilent,
  // 3. states
  stateFieldMissing,
  stateFieldNotEnum,
  stateFieldUnknown,
  stateFieldWritable,
  stateInitialMissing,
  stateInitialUnknown,
  stateListEmpty,
  stateListMismatch,
  stateNoTransitions,
  stateResourceUnknown,
  stateUnreachable,
  transitionRequiresUnknownField,
  transitionUnknownState,
  // 4. endpoints
  actionBehaviour,
  bulkMaxMissing,
  expandNotRef,
  endpointDuplicateRoute,
  endpointOperationIdDuplicate,
  endpointPageNotList,
  endpointErrorStatusUndeclared,
  endpointErrorUndeclared,
  endpointGetChangesState,
  endpointGetWithBody,
  endpointNoSuccessResponse,
  endpointPathMissingId,
  endpointParamNotInPath,
  endpointPathParamRepeated,
  endpointPathParamUnbound,
  endpointRouteAmbiguous,
  endpointRouteShadowed,
  endpointSingletonInvalid,
  endpointReadNotGet,
  endpointRequestReadonlyField,
  endpointRequestUnknownField,
  endpointTransitionMissing,
  endpointUnknownOperation,
  endpointUnknownResource,
  // 5. authentication
  authJwtKeysMissing,
  authPrefixAmbiguous,
  authJwtSettingsUnused,
  authNoSchemes,
  authOwnedEndpointPublic,
  authOwnedWithoutAuthentication,
  authPublicAndRequired,
  authRuleUnknownEndpoint,
  authScopeUndeclared,
  authScopeUnused,
  // 6. events
  eventNoDelivery,
  eventPathCollidesEndpoint,
  eventPayloadUnknownField,
  eventPayloadWriteonlyField,
  eventRetryDelayInverted,
  eventRetryWithoutWebhooks,
  eventTriggerInvalid,
  eventTriggerNoEndpoint,
  eventTriggerUnknownResource,
  eventTriggerUnknownTransition,
  eventWebhookPathMissing,
  // 7. errors
  authWithout401,
  bodyLimitWithout413,
  conditionalWithout412,
  actionWithout501,
  errorCatalogMissingValidation,
  errorShapeMemberDuplicate,
  errorCodeUnbound,
  rateLimitWithout429,
  timeoutWithoutError,
  transitionWithout409,
  versionRetiredWithout410,
  // 8. limits
  listQueryFieldUnknown,
  listWithoutPagination,
  paginationArrayWithoutLinks,
  paginationDefaultAboveMax,
  paginationOffsetMemberStyle,
  paginationParamsConflict,
  paginationWithoutList,
  rateOverrideUnknownEndpoint,
  // 9. versioning
  sinceAfterUntil,
  versionDefaultMissing,
  versionDefaultRetired,
  versionDefaultUnknown,
  versionDeprecatedWithoutDate,
  versionDeprecatedWithoutSunset,
  versionEndsBeforeRelease,
  versionNoCurrent,
  versionReleaseOrder,
  versionSelectMissing,
  versionSunsetBeforeDeprecation,
  versionUnknown,
];
