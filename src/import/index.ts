/** Importing other descriptions of a service into a nine-part spec: OpenAPI 3.0 and 3.1 (./openapi). */
export { IMPORT_CODES } from './codes.ts';
export { importOpenApi, type ImportOptions, type ImportResult } from './openapi/index.ts';
