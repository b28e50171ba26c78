import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES as FILES } from '../support/helpers.js';
import { FIXTURES, fromTemplate, type FixtureLedger, type Served } from '../support/fixtures.js';

/** One case of fixtures/bad/cases.json: a command line or an HTTP request, and how it must be refused. */
interface Case {
  id: string;
  what: string;
  /** CLI arguments; `{file}` is the case's file. */
  cli?: string[];
  file?: string;
  exit?: number;
  /** `{key}`, `{readKey}` and `{fresh}` (a new idempotency key) are filled in. */
  http?: {
    method: string;
    path: string;
    headers: Record<string, string | string[]>;
    bodyFile?: string;
    body?: string | { memoBytes: number };
  };
  status?: number;
  /** The error code (null for an option commander refuses before any command runs). */
  code: string | null;
  /** A reason among the problems listed, when the error lists problems. */
  reason?: string | null;
  /** Text the error must contain: where the problem is (file:row, field, flag, parameter, header). */
  place: string;
}

const BAD = join(FILES, 'bad');
const cases = JSON.parse(readFileSync(join(BAD, 'cases.json'), 'utf8')) as Case[];

it('the bad-input corpus holds 40 cases or more: CSV files, JSON bodies, flags, query parameters, headers', () => {
  const kinds = new Set(cases.map((c) => c.id.split('-')[0]));
  expect([...kinds].sort()).toEqual(['csv', 'flag', 'header', 'json', 'query']);
  expect(cases.length).toBeGreaterThanOrEqual(40);
  expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
});

/** What each store said to each case (its location taken out), to hold the stores to the same words. */
const SAID = new Map<string, Map<string, string>>();

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'the bad-input corpus (fixtures/bad) on %s',
  (_name, fixture) => {
    const said = new Map<string, string>();
    SAID.set(fixture.name, said);
    let L: FixtureLedger;
    let S: Served;
    let fresh = 0;

    beforeAll(async () => {
      L = await fromTemplate(fixture, 'standard');
      S = await L.serve();
    });
    afterAll(async () => L?.close());

    it.each(cases.filter((c) => c.cli).map((c) => [c.id, c] as const))('%s', async (_id, c) => {
      const before = L.inspect();
      const args = c.cli!.map((a) => (a === '{file}' ? join(BAD, c.file!) : a));
      const [human, json] = await Promise.all([
        L.books(args),
        L.books([...args, '--format', 'json']),
      ]);
      expect(human.exitCode, human.stderr).toBe(c.exit);
      expect(human.stdout).toBe('');
      said.set(c.id, `exit ${human.exitCode}\n${human.stderr}\n${json.stdout}`);
      if (c.code) expect(human.stderr).toMatch(new RegExp(`^error ${c.code}: `));
      expect(human.stderr).toContain(c.place);
      if (c.code) {
        expect(json.exitCode).toBe(c.exit);
        const { error } = JSON.parse(json.stdout) as {
          error: { code: string; errors: { reason: string }[] };
        };
        expect(error.code).toBe(c.code);
        if (c.reason) expect(error.errors.map((p) => p.reason)).toContain(c.reason);
      }
      expect(L.inspect()).toBe(before);
    });

    it.each(cases.filter((c) => c.http).map((c) => [c.id, c] as const))('%s', async (_id, c) => {
      const before = L.inspect();
      const h = c.http!;
      const fill = (v: string) =>
        v
          .replace('{key}', S.keys.both)
          .replace('{readKey}', S.keys.read)
          .replace('{fresh}', `bad-${++fresh}`);
      const headers = Object.entries(h.headers).flatMap(([name, value]) =>
        [value].flat().map((one) => [name, fill(one)] as [string, string]),
      );
      const body = h.bodyFile
        ? readFileSync(join(BAD, h.bodyFile))
        : typeof h.body === 'object'
          ? `{"memo":"${'x'.repeat(h.body.memoBytes)}"}`
          : h.body;
      // fetch joins a header given twice into one line; such cases go over a socket as written.
      const twice = Object.values(h.headers).some(Array.isArray);
      const r = twice
        ? await rawRequest(S.url, h.method, h.path, headers, body)
        : await fetch(S.url + h.path, {
            method: h.method,
            headers,
            ...(body !== undefined ? { body } : {}),
          });
      expect(r.status).toBe(c.status);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      const problem = (await r.json()) as {
        code: string;
        detail: string;
        errors: { path: string; reason: string; message: string }[];
      };
      expect(problem.code).toBe(c.code);
      said.set(c.id, `${r.status}\n${JSON.stringify(problem)}`);
      if (c.reason) expect(problem.errors.map((p) => p.reason)).toContain(c.reason);
      expect(JSON.stringify(problem)).toContain(JSON.stringify(c.place).slice(1, -1));
      expect(L.inspect()).toBe(before);
    });
  },
);

describe('the bad-input corpus, store against store', () => {
  it('a ledger file and a PostgreSQL entity refuse every case with the same exit code and words', () => {
    const [file, db] = [SAID.get('sqlite')!, SAID.get('postgresql')!];
    expect(file.size).toBe(cases.length);
    expect(db.size).toBe(cases.length);
    for (const c of cases) expect(db.get(c.id), c.id).toBe(file.get(c.id));
  });
});

/** An HTTP/1.1 request written by hand: every value of a header on a line of its own. */
function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: [string, string][],
  body: string | Buffer | undefined,
): Promise<Response> {
  const { hostname, port } = new URL(url);
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
  const lines = [
    `${method} ${path} HTTP/1.1`,
    `Host: ${hostname}`,
    'Connection: close',
    `Content-Length: ${payload.length}`,
  ];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.end(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), payload])),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [status, ...fields] = head!.split('\r\n');
      const h = new Headers(
        fields.map(
          (f) =>
            [f.slice(0, f.indexOf(':')), f.slice(f.indexOf(':') + 1).trim()] as [string, string],
        ),
      );
      resolve(
        new Response(rest.join('\r\n\r\n'), { status: Number(status!.split(' ')[1]), headers: h }),
      );
    });
  });
}
