/**
 * A record of every exchange of a run, for later inspection (`svcspec test --record FILE`):
 * NDJSON, one exchange a line as the tester's Exchange, or HAR 1.2 when the file ends in
 * `.har` (http://www.softwareishard.com/blog/har-12-spec/), which browsers' developer tools
 * and HTTP tools open. Redacted as the report is, unless told otherwise.
 */
import type { Exchange } from '../http.ts';

export function recordNdjson(exchanges: readonly Exchange[]): string {
  return exchanges.map((e) => `${JSON.stringify(e)}\n`).join('');
}

const pairs = (h: Readonly<Record<string, string>>) => Object.entries(h).map(([name, value]) => ({ name, value }));

export function recordHar(exchanges: readonly Exchange[], creator: { name: string; version: string }): string {
  const entries = exchanges.map((e) => {
    const url = new URL(e.request.url);
    const requestType = Object.entries(e.request.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
    const responseType = e.response.headers['content-type'] ?? '';
    return {
      startedDateTime: new Date(e.at ?? 0).toISOString(),
      time: Math.round(e.ms),
      request: {
        method: e.request.method,
        url: e.request.url,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: pairs(e.request.headers),
        queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
        headersSize: -1,
        bodySize: e.request.body === undefined ? 0 : Buffer.byteLength(e.request.body),
        ...(e.request.body !== undefined ? { postData: { mimeType: requestType ?? '', text: e.request.body } } : {}),
      },
      response: {
        status: e.response.status,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: pairs(e.response.headers),
        content: { size: Buffer.byteLength(e.response.text), mimeType: responseType, text: e.response.text },
        redirectURL: e.response.headers.location ?? '',
        headersSize: -1,
        bodySize: Buffer.byteLength(e.response.text),
      },
      cache: {},
      timings: { send: 0, wait: Math.round(e.ms), receive: 0 },
    };
  });
  return `${JSON.stringify({ log: { version: '1.2', creator, entries } }, null, 2)}\n`;
}
