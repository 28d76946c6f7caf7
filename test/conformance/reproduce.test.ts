/**
 * The reproduce line of a failure (src/conformance/report/redact.ts curlOf): run by sh, it
 * sends the request's bytes again; a long body is not written out (the size limit's check
 * sends 100 KiB), its runs of one character made by the line itself.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import type { Exchange } from '../../src/conformance/http.ts';
import { curlOf } from '../../src/conformance/report/redact.ts';

const exchange = (body: string): Exchange => ({ request: { method: 'POST', url: 'http://127.0.0.1:9/notes', headers: { 'content-type': 'application/json' }, body }, response: { status: 413, headers: {}, text: '', json: undefined }, ms: 1, at: 0 }) as unknown as Exchange;

/** The bytes curl would send, as sh runs the line: its `curl` replaced by a stand-in that writes what it was given. */
function sent(line: string): string {
  const standIn = 'curl() { for a; do prev=$b; b=$a; done; if [ "$b" = "@-" ]; then cat; else printf %s "$b"; fi; }';
  return execFileSync('/bin/sh', ['-c', `${standIn}\n${line}`], { encoding: 'utf8', maxBuffer: 1 << 24, env: { ...process.env, PATH: `${process.execPath.replace(/\/[^/]+$/, '')}:${process.env.PATH}` } });
}

test("a short body is written out, quoted for sh; a 100 KiB one is made by the line, the same bytes, on a line a terminal can show", () => {
  const short = '{"text":"it\'s $HOME `x`"}';
  assert.equal(sent(curlOf(exchange(short))), short);
  const long = JSON.stringify({ text: 'x'.repeat(102_400), quote: "it's", n: 1 });
  const line = curlOf(exchange(long));
  assert.ok(line.length < 400, `${line.length} characters`);
  assert.equal(sent(line), long);
  // Trailing line breaks kept (a command substitution would drop them).
  const trailing = `${'a'.repeat(10)}${'\n'.repeat(3000)}`;
  assert.equal(sent(curlOf(exchange(trailing))), trailing);
});

test('a long body with no long runs is cut, and the line says so', () => {
  const long = JSON.stringify({ items: Array.from({ length: 400 }, (_, i) => `item-${i}`) });
  const line = curlOf(exchange(long));
  assert.ok(line.length < 600, `${line.length} characters`);
  assert.match(line, new RegExp(`the body of ${long.length} characters is cut here`));
});
