/** The CLI entry point: `svcspec --help` lists the commands without importing them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMANDS } from '../../src/cli/main.ts';

test("each command's description in the entry point's list is its module's own", async () => {
  for (const [name, command] of Object.entries(COMMANDS)) {
    const def = await command.load();
    const meta = typeof def.meta === 'function' ? await def.meta() : await def.meta;
    assert.equal(meta?.name, name);
    assert.equal(command.description, meta?.description, `src/cli/main.ts lists '${name}' with a description other than its module's meta`);
  }
});

test('help into a pipe ends no line with padding spaces (citty pads its tables to the widest row)', async () => {
  const { spawnSync } = await import('node:child_process');
  const bin = new URL('../../bin/svcspec.js', import.meta.url).pathname;
  for (const args of [['--help'], ['credentials', '--help'], ['test', '--help']]) {
    const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /USAGE/);
    const padded = r.stdout.split('\n').filter((l) => /[ \t]$/.test(l));
    assert.deepEqual(padded, [], `svcspec ${args.join(' ')}`);
  }
});
