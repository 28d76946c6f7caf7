/**
 * The progress of `svcspec test` on stderr: on a terminal one line rewritten in place with the
 * part under way, its counts and the run's, and an estimate of the time left once a part has
 * ended; elsewhere one plain line per part.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Progress } from '../../src/cli/commands/test-progress.ts';

function capture(body: () => void): string {
  const write = process.stderr.write;
  let out = '';
  process.stderr.write = ((chunk: string) => ((out += chunk), true)) as typeof process.stderr.write;
  try {
    body();
  } finally {
    process.stderr.write = write;
  }
  return out;
}

test('progress: a terminal gets one line per update with the part k of n, counts and an estimate; a log gets a plain line per part', () => {
  const tty = capture(() => {
    const p = new Progress(true);
    p.part({ part: 'resources', index: 1, total: 9, done: false });
    p.result({ part: 'resources', id: 'a', title: 'a', outcome: 'pass' });
    p.result({ part: 'resources', id: 'b', title: 'b', outcome: 'fail' });
    p.part({ part: 'resources', index: 1, total: 9, done: true });
    p.part({ part: 'states', index: 2, total: 9, done: false });
    p.line('svcspec: rate limited at http://x/y; waiting 3 s');
    p.end();
  });
  assert.match(tty, /\r\x1b\[K\[2\/9\] resources: 1 ✔ 1 ✖ 0 - \| all: 1 ✔ 1 ✖ 0 - \| \d+ s/);
  assert.match(tty, /\[3\/9\] states: 0 ✔ 0 ✖ 0 - \| all: 1 ✔ 1 ✖ 0 - \| \d+ s, ~\d+ s left/);
  assert.match(tty, /\r\x1b\[Ksvcspec: rate limited at http:\/\/x\/y; waiting 3 s\n/);
  assert.ok(tty.endsWith('\r\x1b[K'), 'the status line is cleared at the end');
  const log = capture(() => {
    const p = new Progress(false);
    p.part({ part: 'resources', index: 1, total: 9, done: false });
    p.result({ part: 'resources', id: 'a', title: 'a', outcome: 'pass' });
    p.result({ part: 'resources', id: 'c', title: 'c', outcome: 'skip' });
    p.part({ part: 'resources', index: 1, total: 9, done: true });
    p.end();
  });
  assert.match(log, /^svcspec: 2\/9 resources: 1 passed, 0 failed, 1 not checked, 0 not applicable or not asked \([\d.]+ s\)\n$/);
  assert.ok(!log.includes('\x1b'), 'no control characters in a log');
});
