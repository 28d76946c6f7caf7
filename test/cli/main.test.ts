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
