/**
 * The exports of a spec to other formats: OpenAPI 3.1 (the endpoints and everything they
 * answer) and AsyncAPI 3.0 (the events). Each returns the document and, as findings, what
 * the target format cannot express (./codes.ts). Both describe one version of the API.
 */
export { toOpenApi, BASE_URL_DEFAULT, type ExportOptions } from './openapi/index.ts';
export { toAsyncApi } from './asyncapi.ts';
export { EXPORT_CODES, type ExportResult } from './codes.ts';
export { liveVersions, versionRefusal } from './version.ts';
