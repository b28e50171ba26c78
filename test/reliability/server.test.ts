import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { books, serve, standardLedger, type Served } from '../support/helpers.js';
import { keyFor } from '../support/keys.js';

/** Sends raw bytes and collects what comes back until the server closes the connection. */
function raw(
  url: string,
  parts: { text: string; afterMs: number }[],
  giveUpMs: number,
): Promise<{ reply: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    let reply = '';
    const timers = parts.map((p) =>
      setTimeout(() => socket.writable && socket.write(p.text), p.afterMs),
    );
    const done = () => {
      timers.forEach(clearTimeout);
      clearTimeout(guard);
      resolve({ reply, closedAfterMs: Date.now() - started });
    };
    const guard = setTimeout(() => {
      socket.destroy();
      done();
    }, giveUpMs);
    socket.on('data', (c) => (reply += c.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', done);
  });
}

describe('books serve under hostile clients', () => {
  let S: Served;
  let key: string;
  beforeAll(async () => {
    const L = await standardLedger();
    key = await keyFor((args) => books([...args, '--ledger', L.ledger]));
    S = await serve(L.ledger, ['--request-timeout', '2']);
  });
  afterAll(async () => S?.stop());

  const get = (path: string, bearer = key) =>
    fetch(S.url + path, { headers: { Authorization: `Bearer ${bearer}` } });

  it('answers headers over 16 KiB with 431 and goes on serving', async () => {
    const r = await fetch(S.url + '/v1/gl-accounts', {
      headers: { Authorization: `Bearer ${key}`, 'X-Padding': 'a'.repeat(20_000) },
    });
    expect(r.status).toBe(431);
    expect((await get('/v1/gl-accounts')).status).toBe(200);
  });

  it('disconnects a client that sends its headers or its body too slowly (408), serving others meanwhile', async () => {
    const body = JSON.stringify({ entry_date: '2025-03-02', lines: [] });
    const head =
      `POST /v1/journal-entries HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nX-Idempotency-Key: slow\r\nContent-Length: ${body.length}\r\n\r\n`;
    // One stops half-way through its headers; the other sends its headers, then a byte of body a second.
    const slowHeaders = raw(S.url, [{ text: head.slice(0, 40), afterMs: 0 }], 15_000);
    const slowBody = raw(
      S.url,
      [
        { text: head, afterMs: 0 },
        ...[...body].slice(0, 8).map((c, i) => ({ text: c, afterMs: 500 + i * 1000 })),
      ],
      15_000,
    );
    const t = Date.now();
    for (let i = 0; i < 5; i++) expect((await get('/v1/gl-accounts')).status).toBe(200);
    expect(Date.now() - t).toBeLessThan(1_500);
    for (const slow of [await slowHeaders, await slowBody]) {
      expect(slow.reply).toMatch(/^HTTP\/1\.1 408/);
      expect(slow.closedAfterMs).toBeLessThan(5_000);
    }
    expect(S.log()).not.toMatch(/POST \/v1\/journal-entries 201/);
  });

  it('keeps answering good keys quickly through a flood of bad ones', async () => {
    const timeGood = async (n: number) => {
      const ms: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        expect((await get('/v1/gl-accounts')).status).toBe(200);
        ms.push(performance.now() - t);
      }
      return ms.sort((a, b) => a - b)[Math.floor(n / 2)]!;
    };
    const quiet = await timeGood(20);
    let flooding = true;
    const statuses = new Map<number, number>();
    const flooder = async (w: number) => {
      for (let i = 0; flooding; i++) {
        const bad =
          i % 3 === 0
            ? 'nonsense'
            : i % 3 === 1
              ? `bk.AAAAAAAAAAAA.guess${w}x${i}`
              : `${key.slice(0, -4)}abcd`;
        const r = await get('/v1/gl-accounts', bad);
        await r.arrayBuffer();
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      }
    };
    const flood = Promise.all(Array.from({ length: 32 }, (_, w) => flooder(w)));
    // Measure once the flood is under way: a round of refusals from every flooder.
    while ((statuses.get(401) ?? 0) < 64) await new Promise((r) => setImmediate(r));
    const busy = await timeGood(20);
    flooding = false;
    await flood;
    const refused = statuses.get(401) ?? 0;
    expect([...statuses.keys()]).toEqual([401]);
    expect(refused).toBeGreaterThan(200);
    // Each bad key costs a hash and one indexed look-up: a good request waits behind at most a round
    // of them, never behind anything that grows with the flood.
    expect(busy).toBeLessThan(Math.max(20 * quiet, 100));
    console.info(
      `good requests: median ${quiet.toFixed(1)} ms alone, ${busy.toFixed(1)} ms during ${refused} refused bad keys`,
    );
  });

  it.each([
    [
      'a reversal of a malformed id',
      'POST',
      '/v1/journal-entries/%E0%A4%A/reverse',
      { 'Content-Type': 'application/json', 'X-Idempotency-Key': 'r1' },
      '{}',
      404,
    ],
    [
      'a body that is not UTF-8',
      'POST',
      '/v1/journal-entries',
      { 'Content-Type': 'application/json', 'X-Idempotency-Key': 'r2' },
      Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
      400,
    ],
    [
      'a body that is a JSON string',
      'POST',
      '/v1/journal-entries',
      { 'Content-Type': 'application/json', 'X-Idempotency-Key': 'r3' },
      '"entry"',
      400,
    ],
    [
      'a body nested 100,000 deep',
      'POST',
      '/v1/journal-entries',
      { 'Content-Type': 'application/json', 'X-Idempotency-Key': 'r4' },
      '['.repeat(100_000) + ']'.repeat(100_000),
      400,
    ],
    [
      'a number with 400 digits',
      'POST',
      '/v1/journal-entries',
      { 'Content-Type': 'application/json', 'X-Idempotency-Key': 'r5' },
      `{"entry_date":"2025-03-02","lines":[{"gl_account_id":"rent","line_type":"debit",` +
        `"amount_atoms":${'9'.repeat(400)}},{"gl_account_id":"checking","line_type":"credit","amount_atoms":1}]}`,
      400,
    ],
    [
      'prototype keys',
      'POST',
      '/v1/journal-entries',
      { 'Content-Type': 'application/json', 'X-Idempotency-Key': 'r6' },
      '{"__proto__":{"admin":true},"constructor":{"prototype":{}}}',
      400,
    ],
    ['a path of 8 KiB', 'GET', '/v1/' + 'a'.repeat(8192), {}, undefined, 404],
    ['a DELETE', 'DELETE', '/v1/journal-entries', {}, undefined, 405],
    [
      'a report with a parameter twice',
      'GET',
      '/v1/reports/balance-sheet?start_date=2025-01-01&start_date=2024-01-01&end_date=2025-02-01',
      {},
      undefined,
      400,
    ],
    [
      'a report with an absurd period type',
      'GET',
      '/v1/reports/balance-sheet?start_date=2025-01-01&end_date=2025-02-01&period_type=%00%27',
      {},
      undefined,
      400,
    ],
  ] as const)(
    'refuses %s with a 4xx problem, never a stack trace',
    async (_n, method, path, headers, body, status) => {
      const h = new Headers({ Authorization: `Bearer ${key}` });
      for (const [k, v] of Object.entries(headers)) for (const one of [v].flat()) h.append(k, one);
      const r = await fetch(S.url + path, {
        method,
        headers: h,
        ...(body !== undefined ? { body } : {}),
      });
      expect(r.status).toBe(status);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      const text = await r.text();
      expect(text).not.toMatch(/\bat .+:\d+:\d+|node:internal|\.js:\d+/);
      expect(JSON.parse(text)).toMatchObject({ status });
    },
  );

  it('refuses two idempotency keys for one request (two header lines) as CAPI34, posting nothing', async () => {
    // fetch would join the two into one line; only raw bytes carry two header lines.
    const body = JSON.stringify({
      entry_date: '2025-03-02',
      lines: [
        { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 5 },
        { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 5 },
      ],
    });
    const request =
      `POST /v1/journal-entries HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n` +
      `Content-Type: application/json\r\nX-Idempotency-Key: r7\r\nX-Idempotency-Key: r8\r\n` +
      `Content-Length: ${body.length}\r\n\r\n${body}`;
    const { reply } = await raw(S.url, [{ text: request, afterMs: 0 }], 5000);
    expect(reply).toMatch(/^HTTP\/1.1 400 /);
    const problem = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4));
    expect(problem).toMatchObject({
      code: 'CAPI34',
      errors: [{ path: 'X-Idempotency-Key', message: 'X-Idempotency-Key is given more than once' }],
    });
  });
});
