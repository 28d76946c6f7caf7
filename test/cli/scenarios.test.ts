/**
 * CLI golden scenarios (Spectral's habit): each `*.scenario` file holds a command, files
 * it needs, and the exact exit status and output expected. The CLI runs as a real child
 * process. `UPDATE_GOLDEN=1 npm test` rewrites the expected output after a deliberate change.
 *
 * Sections: ====test==== (title), ====asset:NAME==== (a file written to a temp dir),
 * ====command==== (arguments after `svcspec`; {asset:NAME}, {examples}, {seed}, {tmp}
 * are replaced), ====cwd==== (optional: `{tmp}` runs it in the temp dir; default the checkout),
 * ====status====, ====stdout====, ====stderr==== (optional).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const dir = join(root, 'test/cli/scenarios');
const seed = resolve(root, '../shared/seeds/000_a7ef063def403b81.txt');

function sections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = text.split(/^====([a-z]+(?::[\w.-]+)?)====\n/m);
  for (let i = 1; i < parts.length; i += 2) out.set(parts[i], parts[i + 1]);
  return out;
}

for (const name of readdirSync(dir).filter((f) => f.endsWith('.scenario')).sort()) {
  const file = join(dir, name);
  const s = sections(readFileSync(file, 'utf8'));
  const title = (s.get('test') ?? name).trim();
  const needsSeed = (s.get('command') ?? '').includes('{seed}');
  test(`cli: ${title}`, { skip: needsSeed && !existsQuiet(seed) ? `founding document not found at ${seed}` : false }, (t) => {
    const tmp = mkdtempSync(join(tmpdir(), 'svcspec-cli-'));
    t.after(() => rmSync(tmp, { recursive: true, force: true }));
    for (const [key, content] of s) if (key.startsWith('asset:')) writeFileSync(join(tmp, key.slice(6)), content);
    const fill = (t: string) => t
      .replace(/\{asset:([\w.-]+)\}/g, (_, a: string) => join(tmp, a))
      .replace(/\{examples\}/g, 'examples')
      .replace(/\{seed\}/g, seed)
      .replace(/\{tmp\}/g, tmp);
    const args = fill((s.get('command') ?? '').trim()).split(/\s+/).filter(Boolean);
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
    delete env.FORCE_COLOR;
    const cwd = s.has('cwd') ? fill(s.get('cwd')!.trim()) : root;
    const r = spawnSync(process.execPath, [join(root, 'bin/svcspec.js'), ...args], { cwd, encoding: 'utf8', env });
    const normalize = (t: string) => t.split(tmp).join('{tmp}').split(seed).join('{seed}');
    const stdout = normalize(r.stdout);
    const stderr = normalize(r.stderr);
    if (process.env.UPDATE_GOLDEN) {
      let text = readFileSync(file, 'utf8');
      text = text.replace(/====status====\n[\s\S]*?(?=^====|$(?![\s\S]))/m, `====status====\n${r.status}\n`);
      text = text.replace(/====stdout====\n[\s\S]*?(?=^====|$(?![\s\S]))/m, `====stdout====\n${stdout}`);
      if (s.has('stderr')) text = text.replace(/====stderr====\n[\s\S]*?(?=^====|$(?![\s\S]))/m, `====stderr====\n${stderr}`);
      writeFileSync(file, text);
      return;
    }
    assert.ok(!/\n\s+at .+:\d+:\d+\)?\n/.test(r.stderr), `no stack trace may reach the user:\n${r.stderr}`);
    assert.equal(stdout, s.get('stdout') ?? '', 'stdout');
    if (s.has('stderr')) assert.equal(stderr, s.get('stderr'), 'stderr');
    assert.equal(r.status, Number((s.get('status') ?? '0').trim()), `exit status (stderr: ${r.stderr})`);
  });
}

function existsQuiet(path: string): boolean {
  try {
    readFileSync(path);
    return true;
  } catch {
    return false;
  }
}
