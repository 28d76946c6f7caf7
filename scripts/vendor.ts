/**
 * Run at pack time (prepack): copies Scalar's standalone browser bundle, the one file of
 * @scalar/api-reference the service serves at /docs/scalar.js, into vendor/scalar/ with its
 * licence beside it. @scalar/api-reference is a dev dependency: installing the whole Vue
 * application (about 200 MB of packages) for one 3.5 MB file is what a user should not pay.
 * In a checkout, src/serve/docs.ts reads the bundle from the dev dependency itself.
 */
import { copyFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = new URL('..', import.meta.url);
const target = new URL('vendor/scalar/', root);
const bundle = fileURLToPath(import.meta.resolve('@scalar/api-reference/browser/standalone.js'));
const manifest = JSON.parse(await readFile(new URL('node_modules/@scalar/api-reference/package.json', root), 'utf8')) as { version: string; license: string };

await mkdir(target, { recursive: true });
// Copied beside and renamed over: a service running from this checkout reads a whole file, old or new.
await copyFile(bundle, new URL(`standalone.js.${process.pid}`, target));
await rename(new URL(`standalone.js.${process.pid}`, target), new URL('standalone.js', target));
// The package carries no LICENSE file; this is the text of github.com/scalar/scalar/blob/main/LICENSE.
await writeFile(new URL('LICENSE', target), `@scalar/api-reference ${manifest.version} (${manifest.license}), https://github.com/scalar/scalar
dist/browser/standalone.js, copied unchanged.

MIT License

Copyright (c) 2023-present Scalar

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`);
process.stdout.write(`vendored @scalar/api-reference ${manifest.version} standalone.js into vendor/scalar/\n`);
