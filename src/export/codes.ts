/**
 * What the exporters (OpenAPI 3.1, AsyncAPI 3.0) report: everything of the spec the target
 * format cannot express, and the choices an export had to make. Part of the one catalog
 * (src/check/catalog.ts), so docs/diagnostics.md lists them. All are warnings: the export
 * is written, and what it leaves out or only describes in prose is said, never dropped.
 */
import { defineDiagnostic, diagnostic, type Diagnostic, type DiagnosticDef } from '../spec/diagnostics.ts';
import type { Spec } from '../spec/model.ts';

export const EXPORT_CODES = {
  partGap: defineDiagnostic({
    code: 'export-part-gap', severity: 'warning',
    message: 'Part {number}, {title}, is {statement}; the {format} document has nothing of it.',
    description: 'The part the export is made of is a gap (or stated as none), so the exported document is minimal but valid. Write the part to export it.',
  }),
  errorsDefault: defineDiagnostic({
    code: 'export-errors-default', severity: 'warning', part: 'errors',
    message: 'Part 7, Errors, is {statement}; the error responses are written as svcspec serve answers them by default ({shape}, its default statuses), a default of the runtime rather than a statement of the spec.',
    description: 'Where the spec states no error shape or catalog, serve answers errors with its documented defaults, and the export writes those, so a client generated from the document matches the reference service. The tester holds no other implementation to them (it checks the status class only). State part 7 to export the service\'s own errors.',
  }),
  versionChosen: defineDiagnostic({
    code: 'export-version-chosen', severity: 'warning', part: 'versioning',
    message: "The spec names no default version; the export describes version '{version}', the newest one served. Choose another with --api-version ({versions}).",
    description: 'A document describes one version of the API. With several versions and no `versioning.default`, the export takes the newest version that is not retired and says so.',
  }),
  versionNoneLive: defineDiagnostic({
    code: 'export-version-none-live', severity: 'warning', part: 'versioning',
    message: 'Every version is retired; the export describes the fields of all versions, and every request would be answered 410.',
    description: 'There is no version being served to describe.',
  }),
  versionOthers: defineDiagnostic({
    code: 'export-version-others', severity: 'warning', part: 'versioning',
    message: "The document describes version '{version}' only; export {others} with --api-version.",
    description: 'OpenAPI and AsyncAPI documents have one `info.version`. Each live version of the spec is exported as a document of its own.',
  }),
  versionField: defineDiagnostic({
    code: 'export-version-field', severity: 'warning', part: 'resources',
    message: "The field '{field}' of {resource} is not in version '{version}' ({span}); it is left out of this document.",
    description: 'A field with `since`/`until` exists only in some versions; the document of another version does not show it. Export its versions to see it.',
  }),
  versionEvent: defineDiagnostic({
    code: 'export-version-event', severity: 'warning', part: 'events',
    message: "The event '{event}' is not emitted in version '{version}' ({span}); it is left out of this document.",
    description: 'An event with `since`/`until` exists only in some versions; the document of another version does not show it.',
  }),
  purposeUsers: defineDiagnostic({
    code: 'export-purpose-users', severity: 'warning', part: 'purpose',
    message: 'The users of the service and their tasks have no place in {format}; they are written as prose in info.description.',
    description: 'Neither OpenAPI nor AsyncAPI has a field for who uses a service and what for. The export keeps them in the description.',
  }),
  authObtain: defineDiagnostic({
    code: 'export-auth-obtain', severity: 'warning', part: 'authentication',
    message: 'How clients obtain credentials has no field in OpenAPI; it is written as prose in each security scheme\'s description.',
    description: 'OpenAPI security schemes say how credentials are sent, not how a client gets them.',
  }),
  authSchemeDetails: defineDiagnostic({
    code: 'export-auth-scheme-details', severity: 'warning', part: 'authentication',
    message: "The scheme '{scheme}' states {what}, for which OpenAPI has no field; written as prose in its description.",
    description: 'JWT verification settings (issuer, audience, algorithms, keys, scopes claim) and an OAuth 2.0 token lifetime are not expressible in an OpenAPI security scheme.',
  }),
  ownership: defineDiagnostic({
    code: 'export-ownership', severity: 'warning', part: 'resources',
    message: "Records of {resource} belong to the principal that created them (owned); OpenAPI cannot express object-level authorization. Said in the tag's and operations' descriptions.",
    description: 'OpenAPI describes who may call an operation, not whose records a caller sees.',
  }),
  timeouts: defineDiagnostic({
    code: 'export-limits-timeouts', severity: 'warning', part: 'limits',
    message: 'The request time-out ({duration}, answered {status}) has no field in OpenAPI; its error response is listed and the duration is in info.description.',
    description: 'OpenAPI has no keyword for how long a request may run.',
  }),
  bodySize: defineDiagnostic({
    code: 'export-limits-body', severity: 'warning', part: 'limits',
    message: 'The request body limit ({size}) has no field in OpenAPI; its 413 response is listed and the size is in info.description.',
    description: 'OpenAPI has no keyword for the largest request body.',
  }),
  eventsElsewhere: defineDiagnostic({
    code: 'export-events-elsewhere', severity: 'warning', part: 'events',
    message: 'The events part ({what}) is not in the OpenAPI document; export it with --asyncapi.',
    description: 'Events, their delivery by webhooks and the event stream are described by the AsyncAPI export.',
  }),
  eventsRetry: defineDiagnostic({
    code: 'export-events-retry', severity: 'warning', part: 'events',
    message: 'The webhook retry policy ({policy}) has no field in AsyncAPI; it is in the webhook channel\'s description and its x-svcspec-retry extension.',
    description: 'AsyncAPI 3.0 describes messages and channels, not how a failed delivery is retried.',
  }),
  eventsTiming: defineDiagnostic({
    code: 'export-events-timing', severity: 'warning', part: 'events',
    message: 'The {what} ({duration}) has no field in AsyncAPI; it is in the {channel} channel\'s description.',
    description: 'AsyncAPI 3.0 has no field for a delivery time-out or a stream heartbeat.',
  }),
  eventsSubscriptions: defineDiagnostic({
    code: 'export-events-subscriptions', severity: 'warning', part: 'events',
    message: 'Subscriptions are managed through the API at {path}, whose endpoints the spec does not describe; the AsyncAPI document names the path in the webhook channel\'s description.',
    description: 'The format says that clients subscribe through the API, but not the shape of the subscription endpoints, so neither export can describe them as operations.',
  }),
} as const;

/** A finding of an export, placed at the spec's node it concerns. */
export function finding(spec: Spec, def: DiagnosticDef, params: Readonly<Record<string, unknown>>, pointer: string): Diagnostic {
  return diagnostic(def, params, { pointer, location: spec.source.locate(pointer) });
}

/** What an exporter returns: the document, and what it could not express. */
export interface ExportResult {
  readonly document: Record<string, unknown>;
  readonly findings: readonly Diagnostic[];
}
