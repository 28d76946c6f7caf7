/**
 * What `svcspec init` writes: all nine parts present and empty, each a gap, so that
 * `check` guides the author part by part. examples/empty.yaml is this text (a test keeps them equal).
 */
export const NEW_SPEC = `# A service interface specification in nine parts. Every empty part is a gap:
# run 'svcspec check' to see what each part still needs. A part that does not
# apply is stated, not left empty:  events: { none: "This service emits no events." }
# The format is documented in docs/format.md.
svcspec: 1

# 1. What the service does: name, summary, and its users with the tasks they perform.
purpose: {}

# 2. Resources keyed by singular name: plural, id, and fields with types, formats and constraints.
resources: {}

# 3. State machines keyed by resource: the state field, the initial state and named transitions.
states: {}

# 4. Endpoints keyed by resource: a list of operations ([create, read, list]) or each one written out.
endpoints: {}

# 5. Authentication: schemes, how credentials are obtained, scopes and what each endpoint needs.
authentication: {}

# 6. Events: the catalog of events and how they are delivered (webhooks, stream, retries).
events: {}

# 7. Errors: the error body shape and the catalog of error codes with their statuses.
errors: {}

# 8. Limits: rate limits, body and field sizes, time-outs and pagination.
limits: {}

# 9. Versioning: how versions are named, selected and retired.
versioning: {}
`;
