/** Rules of part 5, authentication: a row per finding, and near misses that must stay silent. */
import { table, whole } from './table.ts';

const auth = (value: Record<string, unknown>) => ({ authentication: value });
const A = '/authentication';

table('auth-no-schemes', [
  { name: 'authentication without a scheme', patch: auth({ schemes: undefined }), expect: [`auth-no-schemes ${A}`] },
]);

table('auth-scope-undeclared', [
  { name: 'a required scope that is not declared', patch: auth({ require: { 'project.create': ['projects:wrte'] } }), expect: [`auth-scope-undeclared ${A}/require/project.create/0`], messages: [/'project.create' needs scope 'projects:wrte', which is not declared.*Did you mean 'projects:write'\?/] },
  { name: 'a default scope that is not declared', patch: auth({ default: { scopes: ['reed'] } }), expect: [`auth-scope-undeclared ${A}/default/scopes/0`, `auth-scope-unused ${A}/scopes/read`], messages: [/The default needs scope 'reed'/] },
]);

table('auth-scope-unused', [
  { name: 'a scope no endpoint needs', patch: auth({ scopes: { admin: 'Everything.' } }), expect: [`auth-scope-unused ${A}/scopes/admin`] },
]);

table('auth-rule-unknown-endpoint', [
  { name: 'a public entry naming no endpoint', patch: auth({ public: ['project.read', 'project.lst'] }), expect: [`auth-rule-unknown-endpoint ${A}/public/1`], messages: [/'project.lst' in `public` is not an endpoint id\. Did you mean 'project.list'\?/] },
  { name: 'a wildcard over a resource without endpoints', patch: auth({ require: { 'tsk.*': ['tasks'] } }), expect: [`auth-rule-unknown-endpoint ${A}/require/tsk.*`], messages: [/names resource 'tsk', which has no endpoints\. Did you mean 'task'\?/] },
  { name: 'a require key naming no endpoint', patch: auth({ require: { 'task.delete': ['tasks'] } }), expect: [`auth-rule-unknown-endpoint ${A}/require/task.delete`] },
  { name: 'not checked while endpoints are none', patch: { endpoints: whole({ none: 'Events only.' }) }, expect: [] },
]);

table('auth-public-and-required', [
  { name: 'an endpoint both public and required', patch: auth({ require: { 'project.read': ['read'] } }), expect: [`auth-public-and-required ${A}/require/project.read`] },
]);

table('auth-jwt-keys-missing', [
  { name: 'JWT settings without keys', patch: auth({ schemes: { token: { jwt: { jwksUrl: undefined } } } }), expect: [`auth-jwt-keys-missing ${A}/schemes/token/jwt`] },
  { name: 'JWTs without settings', patch: auth({ schemes: { token: whole({ type: 'bearer', tokens: 'jwt' }) } }), expect: [`auth-jwt-keys-missing ${A}/schemes/token/tokens`] },
  { name: 'keys from a file', patch: auth({ schemes: { token: { jwt: { jwksUrl: undefined, jwksFile: 'keys.json' } } } }), expect: [] },
]);

table('auth-jwt-settings-unused', [
  { name: 'JWT settings on opaque tokens', patch: auth({ schemes: { token: { tokens: 'opaque' } } }), expect: [`auth-jwt-settings-unused ${A}/schemes/token/jwt`] },
]);

table('auth-owned-without-authentication', [
  { name: 'owned records while authentication is none', patch: { authentication: whole({ none: 'Open data.' }) }, expect: ['auth-owned-without-authentication /resources/task/owned'], messages: [/authentication is stated as none: there is no principal/] },
  { name: 'owned records while authentication is a gap', patch: { authentication: undefined }, expect: ['auth-owned-without-authentication /resources/task/owned'], messages: [/authentication is not given/] },
]);

table('auth-owned-endpoint-public', [
  { name: 'a public endpoint of an owned resource', patch: auth({ public: ['project.read', 'project.list', 'task.read'] }), expect: [`auth-owned-endpoint-public ${A}/public/2`] },
]);

table('auth-prefix-ambiguous', [
  { name: 'a bearer token under the word Basic beside a basic scheme', patch: auth({ schemes: { login: whole({ type: 'basic' }), staff: whole({ type: 'bearer', tokens: 'opaque', prefix: 'basic' }) } }), expect: [`auth-prefix-ambiguous ${A}/schemes/staff/prefix`], messages: [/reads `Authorization: basic …`, the word of the basic scheme 'login'/] },
  { name: 'near miss: the word Token beside a basic scheme', patch: auth({ schemes: { login: whole({ type: 'basic' }), staff: whole({ type: 'bearer', tokens: 'opaque', prefix: 'Token' }) } }), expect: [] },
]);
