/**
 * The long-running commands as real child processes: serve on an address that is taken,
 * and --watch for check, doc and serve, editing a real file.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { BIN, cli, specInTempDir } from '../support/child-server.ts';

const NOTES = readFileSync(new URL('../serve/fixtures/notes.yaml', import.meta.url), 'utf8');

test('serve: a port already in use is the user\'s mistake, said plainly, exit 2', async (t) => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  t.after(() => blocker.close());
  const port = (blocker.address() as { port: number }).port;
  const { spec } = specInTempDir(t, NOTES, 'notes.yaml');
  const r = cli(['serve', spec, '--port', String(port), '--db', ':memory:']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use .*--port 0 picks a free one`));
  assert.doesNotMatch(r.stderr, /internal error|bug in svcspec|EADDRINUSE/);
  const badHost = cli(['serve', spec, '--port', '0', '--host', '192.0.2.1', '--db', ':memory:']);
  assert.equal(badHost.status, 2, badHost.stderr);
  assert.match(badHost.stderr, /cannot listen on 192\.0\.2\.1: it is not an address of this machine/);
});

/** A child whose stderr is collected, with a wait for a pattern in it. */
function watched(args: readonly string[], cwd: string, children: ChildProcess[]): { child: ChildProcess; until(pattern: RegExp, after?: number): Promise<string>; err(): string; out(): string } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  let out = '';
  child.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
  child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  const until = async (pattern: RegExp, after = 0) => {
    // Up to 30 s: the machine running the tests may be busy.
    for (let i = 0; i < 600; i++) {
      const m = pattern.exec(err.slice(after));
      if (m) return m[0];
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`waited in vain for ${pattern}:\n${err}`);
  };
  return { child, until, err: () => err, out: () => out };
}

async function stop(child: ChildProcess): Promise<number | null> {
  child.kill('SIGTERM');
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

test('check --watch: checks again on every save, an editor\'s rename-over-the-file included', async (t) => {
  const { dir, spec, children } = specInTempDir(t, NOTES, 'svcspec.yaml');
  const w = watched(['check', '--watch', '--allow-gaps'], dir, children);
  await w.until(/watching svcspec\.yaml/);
  assert.match(w.err(), /checked svcspec\.yaml: passes/);
  let mark = w.err().length;
  writeFileSync(spec, NOTES.replace('type: integer, minimum: 0', 'type: intger, minimum: 0'));
  await w.until(/checked svcspec\.yaml: fails/, mark);
  assert.match(w.out(), /'intger' is not\. Did you mean 'integer'\?/);
  // vim and many IDEs write a new file and rename it over the old one.
  mark = w.err().length;
  writeFileSync(join(dir, 'svcspec.yaml.tmp'), NOTES);
  renameSync(join(dir, 'svcspec.yaml.tmp'), spec);
  await w.until(/checked svcspec\.yaml: passes/, mark);
  assert.equal(await stop(w.child), 0);
});

test('doc --watch: the document is written again after a change', async (t) => {
  const { dir, spec, children } = specInTempDir(t, NOTES, 'notes.yaml');
  const w = watched(['doc', 'notes.yaml', '--watch', '-o', 'notes.html'], dir, children);
  await w.until(/watching notes\.yaml/);
  assert.match(readFileSync(join(dir, 'notes.html'), 'utf8'), /Keeps short notes\./);
  const mark = w.err().length;
  writeFileSync(spec, NOTES.replace('Keeps short notes.', 'Keeps longer notes.'));
  await w.until(/wrote notes\.html/, mark);
  assert.match(readFileSync(join(dir, 'notes.html'), 'utf8'), /Keeps longer notes\./);
  assert.equal(await stop(w.child), 0);
});

test('serve --watch: a change reloads the spec and keeps the data; a broken spec is refused and the last good one served on', async (t) => {
  const { dir, spec, children } = specInTempDir(t, NOTES, 'notes.yaml');
  const w = watched(['serve', 'notes.yaml', '--port', '0', '--quiet', '--watch'], dir, children);
  const url = (/http:\/\/127\.0\.0\.1:\d+/.exec(await w.until(/serving Notes at http:\/\/127\.0\.0\.1:\d+/)) as RegExpExecArray)[0];
  await w.until(/watching notes\.yaml/);
  const created = await fetch(`${url}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'kept', n: 1 }) });
  assert.equal(created.status, 201);

  // A new field appears; the note written before the reload is still there.
  let mark = w.err().length;
  writeFileSync(spec, NOTES.replace('n: { type: integer, minimum: 0 }', 'n: { type: integer, minimum: 0 }\n      colour: { type: string, enum: [red, blue] }'));
  await w.until(/reloaded; the data is kept/, mark);
  const list = (await (await fetch(`${url}/notes`)).json()) as { items: { text: string }[] };
  assert.deepEqual(list.items.map((n) => n.text), ['kept']);
  const refused = await fetch(`${url}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'x', colour: 'green' }) });
  assert.equal(refused.status, 422, 'the reloaded spec is enforced');

  // A broken spec: refused, with its findings; the last good one goes on serving.
  mark = w.err().length;
  writeFileSync(spec, NOTES.replace('type: integer, minimum: 0', 'type: intger, minimum: 0'));
  await w.until(/the changed spec is refused; still serving the last good one/, mark);
  assert.match(w.err().slice(mark), /notes\.yaml:\d+:\d+: error: .*'intger' is not/);
  const still = await fetch(`${url}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'y', colour: 'blue' }) });
  assert.equal(still.status, 201, 'the last good spec (with colour) still serves');
  assert.equal(await stop(w.child), 0);
});

test('serve --watch refuses --db :memory:, which would lose the data at every reload', async (t) => {
  const { spec } = specInTempDir(t, NOTES, 'notes.yaml');
  const r = cli(['serve', spec, '--watch', '--db', ':memory:']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--db :memory: would lose it/);
});

test('serve --watch --handlers: a change that leaves a handler without its action is refused, and the last good spec served on', async (t) => {
  const text = NOTES.replace('  note: [create, read, update, delete, list]\n', '  note:\n    create: {}\n    read: {}\n    list: {}\n    shout: { operation: action, response: { fields: { text: { type: string, required: true } } }, behaviour: Answers the note in capitals. }\n')
    .replace('    internal: { status: 500, title: Internal error }\n', '    internal: { status: 500, title: Internal error }\n    not-implemented: { status: 501, title: Not implemented }\n');
  assert.notEqual(text, NOTES);
  const { dir, spec, children } = specInTempDir(t, text, 'notes.yaml');
  writeFileSync(join(dir, 'handlers.mjs'), "export default { 'note.shout': async ({ record }) => ({ text: String(record.text).toUpperCase() }) };\n");
  const w = watched(['serve', 'notes.yaml', '--port', '0', '--quiet', '--watch', '--handlers', './handlers.mjs'], dir, children);
  const url = (/http:\/\/127\.0\.0\.1:\d+/.exec(await w.until(/serving Notes at http:\/\/127\.0\.0\.1:\d+/)) as RegExpExecArray)[0];
  await w.until(/watching notes\.yaml/);
  const id = ((await (await fetch(`${url}/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi' }) })).json()) as { id: string }).id;
  const shout = async () => fetch(`${url}/notes/${id}/shout`, { method: 'POST' });
  assert.equal((await shout()).status, 200);
  // The action renamed: its handler would name no action, so the new spec could not start.
  const mark = w.err().length;
  writeFileSync(spec, text.replace('    shout:', '    yell:'));
  await w.until(/the changed spec is refused; still serving the last good one/, mark);
  assert.match(w.err().slice(mark), /a handler is given for 'note\.shout', which is not an action of the spec/);
  const still = await shout();
  assert.equal(still.status, 200, 'the last good spec, and its handler, still serve');
  assert.deepEqual(await still.json(), { text: 'HI' });
  assert.equal(await stop(w.child), 0);
});
