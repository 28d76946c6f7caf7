import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { FORMAT_SCHEMA } from './src/spec/format-schema.ts';

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(FORMAT_SCHEMA as any);
const PARTS = ['purpose','resources','states','endpoints','authentication','events','errors','limits','versioning'];
const STD = ['create','read','update','replace','delete','list'];
const files = process.argv.slice(2);
let bad = 0;
for (const f of files) {
  const doc: any = parse(readFileSync(f, 'utf8'));
  const problems: string[] = [];
  const p = (m: string) => problems.push(m);
  if (!validate(doc)) for (const e of validate.errors!) p(`schema ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  const keys = Object.keys(doc).filter(k => k !== 'svcspec' && k !== 'title');
  if (JSON.stringify(keys) !== JSON.stringify(PARTS)) p(`part order ${keys}`);
  if (Object.keys(doc)[0] !== 'svcspec') p('svcspec not first');
  const res = doc.resources ?? {};
  const isEmpty = Object.keys(res).length === 0;
  const versions = Object.keys(doc.versioning?.versions ?? {});
  const errs = doc.errors?.catalog ?? {};
  const scopes = Object.keys(doc.authentication?.scopes ?? {});
  const checkVer = (v: any, where: string) => { if (v !== undefined && !versions.includes(String(v))) p(`${where}: unknown version ${v}`); };
  // resources
  const fieldOf = (r: string) => res[r]?.fields ?? {};
  const walk = (fields: any, where: string, top: boolean) => {
    for (const [n, fd] of Object.entries<any>(fields ?? {})) {
      if (typeof fd !== 'object') continue;
      const shape = (s: any, w: string) => {
        if (s.type === 'ref' && !res[s.resource]) p(`${w}: ref to unknown resource ${s.resource}`);
        if (s.type === 'ref' && !s.resource) p(`${w}: ref without resource`);
        if (s.items) shape(s.items, w + '[]');
        if (s.properties) walk(s.properties, w + '.', false);
        if (s.default !== undefined && s.enum && !s.enum.includes(s.default)) p(`${w}: default not in enum`);
        if (s.default !== undefined && s.pattern && !new RegExp(s.pattern).test(s.default)) p(`${w}: default fails pattern`);
        if (s.default !== undefined && typeof s.default === 'number' && ((s.minimum !== undefined && s.default < s.minimum) || (s.maximum !== undefined && s.default > s.maximum))) p(`${w}: default out of range`);
      };
      shape(fd, where + n);
      checkVer(fd.since, where + n + '.since'); checkVer(fd.until, where + n + '.until');
      if (fd.since !== undefined && fd.until !== undefined && Number(fd.since) > Number(fd.until)) p(`${where}${n}: since > until`);
      if (fd.readOnly && fd.required) p(`${where}${n}: readOnly and required`);
      if (fd.readOnly && fd.writeOnly) p(`${where}${n}: readOnly and writeOnly`);
      if (fd.required && fd.default !== undefined) p(`${where}${n}: required with default`);
    }
  };
  for (const [rn, r] of Object.entries<any>(res)) {
    walk(r.fields, `${rn}.`, true);
    if (r.id && !r.fields?.[r.id.field]) p(`${rn}: id field missing`);
    if (r.id && !r.fields?.[r.id.field]?.readOnly && r.id.assigned !== 'client') p(`${rn}: id field not readOnly`);
    if (r.id?.assigned === 'uuid' && r.fields?.[r.id.field]?.format !== 'uuid') p(`${rn}: uuid id without format uuid`);
    if (r.id?.assigned === 'sequence' && r.fields?.[r.id.field]?.type !== 'integer') p(`${rn}: sequence id not integer`);
  }
  const plurals = Object.values<any>(res).map(r => r.plural);
  if (new Set(plurals).size !== plurals.length) p('duplicate plurals');
  // states
  const transitions: Record<string, Set<string>> = {};
  for (const [rn, sm] of Object.entries<any>(doc.states ?? {})) {
    if (!res[rn]) { p(`states.${rn}: unknown resource`); continue; }
    const fd = fieldOf(rn)[sm.field];
    if (!fd) { p(`states.${rn}: no field ${sm.field}`); continue; }
    if (!fd.readOnly) p(`states.${rn}: state field not readOnly`);
    const st: string[] = sm.states ?? fd.enum;
    if (sm.states && JSON.stringify(sm.states) !== JSON.stringify(fd.enum)) p(`states.${rn}: states differ from enum`);
    if (!st.includes(sm.initial)) p(`states.${rn}: initial ${sm.initial} not a state`);
    transitions[rn] = new Set(Object.keys(sm.transitions ?? {}));
    const edges: [string[], string][] = [];
    for (const [tn, t] of Object.entries<any>(sm.transitions ?? {})) {
      if (STD.includes(tn)) p(`transition ${rn}.${tn} shadows standard op`);
      const from = [t.from].flat();
      for (const s of [...from, t.to]) if (!st.includes(s)) p(`transition ${rn}.${tn}: unknown state ${s}`);
      for (const q of t.requires ?? []) { const f2 = fieldOf(rn)[q]; if (!f2) p(`transition ${rn}.${tn}: requires unknown field ${q}`); else if (f2.readOnly) p(`transition ${rn}.${tn}: requires readOnly field ${q}`); }
      edges.push([from, t.to]);
    }
    const seen = new Set([sm.initial]); let grew = true;
    while (grew) { grew = false; for (const [fr, to] of edges) if (fr.some(s => seen.has(s)) && !seen.has(to)) { seen.add(to); grew = true; } }
    for (const s of st) if (!seen.has(s)) p(`states.${rn}: ${s} unreachable`);
  }
  // endpoints
  const endpointIds = new Set<string>();
  const methodPath = new Map<string, string>();
  for (const [rn, ep] of Object.entries<any>(doc.endpoints ?? {})) {
    if (!res[rn]) { p(`endpoints.${rn}: unknown resource`); continue; }
    const ops: [string, any][] = Array.isArray(ep) ? ep.map((o: string) => [o, null]) : Object.entries(ep);
    for (const [op, e] of ops) {
      if (!STD.includes(op) && !transitions[rn]?.has(op)) p(`endpoint ${rn}.${op}: neither standard op nor transition`);
      endpointIds.add(`${rn}.${op}`);
      const pl = res[rn].plural;
      const conv: Record<string, [string, string]> = { create: ['POST', `/${pl}`], list: ['GET', `/${pl}`], read: ['GET', `/${pl}/{id}`], update: ['PATCH', `/${pl}/{id}`], replace: ['PUT', `/${pl}/{id}`], delete: ['DELETE', `/${pl}/{id}`] };
      const [m, pa] = [e?.method ?? (conv[op]?.[0] ?? 'POST'), e?.path ?? (conv[op]?.[1] ?? `/${pl}/{id}/${op}`)];
      const key = `${m} ${pa}`; if (methodPath.has(key)) p(`duplicate route ${key}`); methodPath.set(key, `${rn}.${op}`);
      for (const c of e?.errors ?? []) if (!errs[c]) p(`endpoint ${rn}.${op}: error ${c} not in catalog`);
      if (Array.isArray(e?.request)) for (const q of e.request) { const f2 = fieldOf(rn)[q]; if (!f2) p(`endpoint ${rn}.${op}: request field ${q} unknown`); else if (f2.readOnly) p(`endpoint ${rn}.${op}: request field ${q} readOnly`); }
      if (e?.responses && e?.errors) {
        const st = new Set(Object.keys(e.responses).map(Number));
        for (const c of e.errors) if (errs[c] && !st.has(errs[c].status)) p(`endpoint ${rn}.${op}: error ${c} (${errs[c].status}) has no listed response`);
      }
      if (transitions[rn]?.has(op) && Array.isArray(e?.request)) {
        const req = doc.states[rn].transitions[op].requires ?? [];
        for (const q of req) if (!e.request.includes(q)) p(`endpoint ${rn}.${op}: request lacks required ${q}`);
      }
    }
  }
  for (const [rn, ts] of Object.entries(transitions)) for (const t of ts) if (!endpointIds.has(`${rn}.${t}`)) p(`transition ${rn}.${t} has no endpoint`);
  const idOk = (id: string) => { const [r, o] = id.split('.'); return o === '*' ? !!res[r] : endpointIds.has(id); };
  // auth
  const auth = doc.authentication ?? {};
  const usedScopes = [...(auth.default?.scopes ?? []), ...Object.values<string[]>(auth.require ?? {}).flat()];
  for (const s of usedScopes) if (!scopes.includes(s)) p(`scope ${s} not declared`);
  for (const s of scopes) if (!usedScopes.includes(s)) p(`scope ${s} declared but unused`);
  for (const id of [...(auth.public ?? []), ...Object.keys(auth.require ?? {})]) if (!idOk(id)) p(`auth: unknown endpoint ${id}`);
  for (const id of auth.public ?? []) if (auth.require?.[id]) p(`auth: ${id} both public and required`);
  // events
  for (const [en, ev] of Object.entries<any>(doc.events?.catalog ?? {})) {
    const [r, a] = String(ev.on).split('.');
    if (!res[r]) p(`event ${en}: unknown resource ${r}`);
    else if (!['created','updated','deleted'].includes(a) && !transitions[r]?.has(a)) p(`event ${en}: unknown trigger ${a}`);
    if (Array.isArray(ev.payload)) for (const q of ev.payload) { const f2 = fieldOf(r)[q]; if (!f2) p(`event ${en}: payload field ${q} unknown`); else if (f2.writeOnly) p(`event ${en}: payload writeOnly ${q}`); }
    checkVer(ev.since, `event ${en}.since`); checkVer(ev.until, `event ${en}.until`);
  }
  // versions
  for (const [vn, v] of Object.entries<any>(doc.versioning?.versions ?? {})) {
    if (v.deprecated && v.sunset && !(v.sunset > v.deprecated)) p(`version ${vn}: sunset not after deprecated`);
    if (v.status === 'deprecated' && !v.deprecated) p(`version ${vn}: deprecated without date`);
  }
  if (doc.versioning?.default !== undefined) checkVer(doc.versioning.default, 'versioning.default');
  // limits
  const lim = doc.limits ?? {};
  if (lim.pagination && lim.pagination.defaultSize > lim.pagination.maxSize) p('defaultSize > maxSize');
  const statuses = new Set(Object.values<any>(errs).map(e => e.status));
  if (lim.rate && !statuses.has(429)) p('rate limit without 429 error');
  if (lim.timeouts && !statuses.has(lim.timeouts.status)) p(`no error with timeout status ${lim.timeouts.status}`);
  for (const id of Object.keys(lim.rate?.overrides ?? {})) if (!idOk(id)) p(`rate override: unknown endpoint ${id}`);
  if (!isEmpty) {
    for (const st of [400,401,403,404,405,409,410,412,413,415,422,429,500]) if (!statuses.has(st)) p(`no error with status ${st}`);
    for (const c of Object.keys(errs)) if (!errs[c].when) p(`error ${c} without when`);
  }
  console.log(`${f}: ${problems.length ? problems.length + ' problem(s)' : 'OK'}`);
  for (const m of problems) console.log('  ' + m);
  bad += problems.length;
}
process.exit(bad ? 1 : 0);
