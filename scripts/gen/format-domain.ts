/** The hand-written section of docs/format.md on domain rules (#14), after part 2's tables. */
import { anchor } from './markdown.ts';

export const DOMAIN_RULES = `${anchor('domain-rules')}
### Domain rules

A spec says when its domain errors happen, and what the service sets itself:

| What | Where | Example |
|---|---|---|
| uniqueness | \`resources.<r>.unique\` | \`- {fields: [email], ignoreCase: true, error: email-taken}\` |
| a rule over the record | \`resources.<r>.rules\` | \`- {rule: self.end > self.start, error: validation-failed, field: end}\` |
| a field the service sets | \`fields.<f>.managed\` | \`created-at\`, \`updated-by\`, \`{sequence: "LIB-{n:8}"}\`, \`{expr: self.copies, on: create}\` |
| guards, counts, effects of a write | \`resources.<r>.onCreate\`, \`.onUpdate\`, \`.onDelete\`, a transition, a record action | \`guards: [{rule: count.open < refs.member.maxLoans, error: loan-limit-reached}]\` |
| what deleting a referenced record does | \`fields.<ref>.onDelete\` | \`{refuse: book-has-loans}\`, \`cascade\`, \`nullify\` |
| who raises a code | the catalog entry | \`for: <situation>\`, or \`raisedBy: implementation\` |

**Expressions** are CEL (https://cel.dev), the language of Kubernetes validation rules and
protovalidate, checked by \`svcspec check\` in the environment \`serve\` evaluates them in
(src/spec/domain/cel.ts), with findings at the line and column inside the expression. The
variables:

| Variable | What it is | Seen by |
|---|---|---|
| \`self\` | the record: as it would be stored (a rule, a managed value); as the write would leave it, before effects (a guard, a count condition, an effect); the record being deleted (\`onDelete\`) | all |
| \`now\` | the time of the request, a timestamp | all |
| \`old\` | the record before the write (empty on a create) | guards, counts, effects |
| \`request\` | the request body, typed by the fields it may carry (an action's own fields, else the resource's) | guards, counts, effects |
| \`principal\` | \`{id, scopes}\` of the caller (empty when anonymous) | guards, counts, effects |
| \`refs\` | the records the ref fields of \`self\` point to, by field: \`refs.book.available\` | guards, counts, effects |
| \`count\` | the write's declared counts, by name: \`count.open\` | guards, effects |
| \`item\` | the array item a guard with \`each: <array field>\` is checked on | that guard |
| \`itemRefs\` | the records the item's ref members point to, by member: \`itemRefs.product.onSale\` | that guard |

Types: \`integer\` is int, \`number\` double, \`boolean\` bool, \`string\` string, a \`date-time\`
string a timestamp (so \`self.end > self.start\` compares instants), a \`date\` a string (ISO dates
order as text), a ref the type of the id it holds (int for sequence ids), an object a map of its
fields, an array a list.

**Null and absent are alike.** A member that is null or absent is left out of \`self\`, \`old\`,
\`request\` and \`refs\`: \`has(self.reason)\` is false for both. Reading it (\`self.reason\`) is an
error of the expression, not a value.

**An expression that errs holds.** A rule or guard that errs (it read an absent member, divided
by zero) does not refuse the write; an effect's \`set\` that errs changes nothing; a managed
value that errs leaves the field as it was; a count condition that errs counts records whose
field is null. So \`self.available <= self.copies\` says nothing about a record without
\`available\`: write \`has(self.x)\` to require a member. It keeps a rule from refusing what it
does not speak of.

**Members named as the body names them.** A field whose name CEL cannot write after a dot
(\`@type\`, \`$kind\`; \`_links\` it can) is read by index: \`self["@type"] == "Place"\`.
\`has()\` takes only a dotted name, so such a field's presence is stated with \`required\`, not
with a rule.

**Updates** (\`onUpdate\`) are a client's update, replace or bulk update of a record; a
transition, an action or an effect on a related record states its own guards and is not an
update. \`old\` is the record before, \`self\` after the change: \`old.status == "draft"\` keeps
an order from changing after checkout (\`order-not-editable\`), \`old.status != "closed"\` a
ticket (\`ticket-closed\`).

**Guards on each item** (\`each: lines\`) are checked on every item of an array field whose
items are objects, in order; the first item for which the guard is false refuses the write
with its error, pointing at that item (\`/lines/1\`, detail \`Item 1 of lines: …\`). The item
is \`item\`; the records its ref members point to, read in the write's transaction like
\`refs\`, are \`itemRefs\`: \`{each: lines, rule: item.quantity <= itemRefs.product.stock,
error: out-of-stock}\`. \`check\` refuses an \`each\` that names no array of objects
(\`guard-each-not-array\`) and type-checks the rule with \`item\` and \`itemRefs\`.

**One write, one transaction, in this order**: the records \`refs\` names are read; then the
counts; the guards, in order (the first that is false refuses with its error and message);
for a delete, what it does to the records referring to it (\`refuse\` while any exists,
\`cascade\` deletes them and what refers to them in turn, \`nullify\` sets the ref to null); the
effects, in order; the managed fields; and last the rules of every record written (the record
and each related record an effect changed; the first false one refuses). Any refusal leaves
nothing written. The store runs all of it inside the write's transaction, so two concurrent
requests cannot both pass a guard that only one may (16 concurrent approvals of the last copy:
one succeeds).

**Effects do not cascade.** An effect on a related record (\`{ref: book, increment:
{available: -1}}\`) changes that record's fields, sets its managed fields (\`updatedAt\`) and checks
its rules; it runs none of that record's guards or effects, and fires its \`updated\` event. So
effects never form a cycle. An effect may not write a **state field**, of the record or of a
related one (\`effect-sets-state-field\`, an error): a state changes only by a transition, with
its \`from\` states, guards and events. It may change a related record's field that clients also
write (\`available\` is usually read-only; \`copies\` is not); \`check\` notes it
(\`effect-changes-client-field\`), since a client's update can then overwrite what effects keep.

**Uniqueness** is a unique index of the store, never a read before the write. A record with any
of the fields null or absent conflicts with none (SQL's reading: NULLs are distinct), so an
optional field can be unique among the records that have it. \`ignoreCase\` compares text
without case; \`where\` limits the constraint to records whose fields hold the listed literal
values (one open loan per member and book).

**Managed fields** are read-only (\`managed-field-writable\` otherwise). A sequence's first
value, formatted, must match the field's \`pattern\` (\`managed-sequence-pattern-mismatch\`). A
read-only field with no source (no \`managed\`, no \`default\`, no effect sets it, not the id, not
the state) stays absent: svcspec invents no value, and \`check\` says so
(\`field-readonly-unset\`).

**References**: a ref to a record that can be deleted and no \`onDelete\` is noted
(\`ref-on-delete-silent\`): the spec is silent, and the reference leaves the ref naming nothing.
\`nullify\` needs a nullable, optional ref. A ref to a record the caller may not see is answered
exactly as a ref to a record that does not exist.

**Every catalog code is bound** to what raises it: a runtime situation (by its name or
\`for:\`, docs/http-errors.md), the \`error\` of a \`unique\`, a rule or a guard, or an \`onDelete:
{refuse: <code>}\`. A code raised by the implementation alone, for reasons stated in prose (an
action's behaviour, a check against a value the spec does not compute), is marked
\`raisedBy: implementation\`. Any other code gets \`error-code-unbound\`: the reference can never
produce it and the tester can never provoke it. A refusal whose code is missing from the
catalog is answered as the situation \`rule-refused\` (409), and \`check\` reports the code
(\`domain-error-undeclared\`).

${anchor('domain-rules-in-openapi')}
#### Domain rules in OpenAPI

\`export --openapi\` carries the rules in the format's own shapes, so an importer reads them back
as written, and says each in words in the descriptions:

| Extension | On | Value |
|---|---|---|
| \`x-svcspec-unique\` | a record's schema | \`[{name, fields, where?, ignoreCase?, error}]\` (\`where\`: field to a literal or a list of literals) |
| \`x-svcspec-rules\` | a record's schema | \`[{rule, error, message?, field?}]\` |
| \`x-svcspec-managed\` | a member of a record's schema | \`created-at\` \\| \`updated-at\` \\| \`created-by\` \\| \`updated-by\` \\| \`{sequence}\` \\| \`{expr, on}\` |
| \`x-svcspec-on-delete\` | a ref member | \`cascade\` \\| \`nullify\` \\| \`{refuse: <code>}\` |
| \`x-svcspec-counts\` | an operation (create, update, delete, transition, action) | \`{<name>: {resource, where?}}\`; in \`where\` a string is a CEL expression and a list holds literals |
| \`x-svcspec-guards\` | an operation | \`[{each?, rule, error, message?}]\` |
| \`x-svcspec-effects\` | an operation | \`[{ref?, set?: {<field>: <CEL>}, increment?: {<field>: <number>}}]\` |

A create's operation carries the resource's \`onCreate\`, an update's and a replace's its
\`onUpdate\`, a delete's its \`onDelete\` (bulk ones too), a transition's and an action's their own.`;
