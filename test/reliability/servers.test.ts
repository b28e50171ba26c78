import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { books, serve, tempDir, type Served } from '../support/helpers.js';
import { databaseUrl } from '../support/fixtures.js';
import { keyFor } from '../support/keys.js';

// Two `books serve` over one database of two entities (docs/scaling.md): every request acts on its key's
// entity, whichever server answers it.

/** Two entities with the standard chart in a new database, a key each, and two servers over it. */
async function firm(): Promise<{
  url: string;
  keys: Record<'acme' | 'harbor', string>;
  slugs: Record<'acme' | 'harbor', string>;
  servers: Served[];
}> {
  const url = databaseUrl();
  const keys = {} as Record<'acme' | 'harbor', string>;
  // The test file's database is shared by its tests: each firm's slugs are its own.
  const run = randomBytes(3).toString('hex');
  const slugs = { acme: `acme-${run}`, harbor: `harbor-${run}` };
  for (const entity of ['acme', 'harbor'] as const) {
    const at = ['--ledger', url, '--entity', slugs[entity]];
    const init = await books([
      'init',
      '--name',
      entity,
      '--first-month',
      '2025-01',
      '--chart',
      'standard',
      ...at,
    ]);
    expect(init.exitCode, init.stderr).toBe(0);
    keys[entity] = await keyFor((args) => books([...args, ...at]));
  }
  const servers = await Promise.all([serve(url), serve(url)]);
  return { url, keys, slugs, servers };
}

const body = (memo: string, amount: number) =>
  JSON.stringify({
    entry_date: '2025-03-03',
    memo,
    lines: [
      { gl_account_id: 'rent', line_type: 'debit', amount_atoms: amount },
      { gl_account_id: 'checking', line_type: 'credit', amount_atoms: amount },
    ],
  });

async function post(server: string, key: string, idempotencyKey: string, memo: string) {
  const r = await fetch(`${server}/v1/journal-entries`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      'X-Idempotency-Key': idempotencyKey,
    },
    body: body(memo, 100),
  });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
}

/** The entity's entries as the database holds them. */
async function journal(
  url: string,
  entity: string,
): Promise<{ je_number: string; memo: string }[]> {
  const r = await books(['je', 'list', '--format', 'json', '--ledger', url, '--entity', entity]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout).data;
}

const gapless = (numbers: string[]) =>
  expect(new Set(numbers)).toEqual(new Set(numbers.map((_, i) => `JE-${i + 1}`)));

/**
 * The entity's audit trail verifies, with no gap and no fork: seqs 1…n, and each entry in exactly
 * one event of its post, by the key that posted it through the route it came by.
 */
async function trailHolds(url: string, slug: string, numbers: string[]): Promise<void> {
  const at = ['--ledger', url, '--entity', slug];
  const verified = await books(['audit', 'verify', ...at]);
  expect(verified.exitCode, verified.stderr).toBe(0);
  const listed = await books(['audit', 'list', '--format', 'json', ...at]);
  const events = (
    JSON.parse(listed.stdout) as {
      data: { seq: number; action: string; objects: string[]; actor: string; via: string }[];
    }
  ).data;
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const posts = events.filter((e) => e.action === 'entry.posted');
  expect(posts.map((e) => e.objects[1]).sort()).toEqual([...numbers].sort());
  for (const e of posts) {
    expect(e.actor).toMatch(/^key:\S+/);
    expect(e.via).toBe('POST /v1/journal-entries');
  }
}

describe('two servers over one database of two entities', () => {
  it('eight clients through both: every post once, numbers gapless per entity, no entity reads the other', async () => {
    const { url, keys, slugs, servers } = await firm();
    try {
      const [a, b] = servers.map((s) => s.url) as [string, string];
      const failures: string[] = [];
      // Eight clients, four per entity, each alternating between the servers.
      const client = async (entity: 'acme' | 'harbor', c: number) => {
        for (let i = 0; i < 15; i++) {
          const r = await post(
            i % 2 ? a : b,
            keys[entity],
            `${entity}-${c}-${i}`,
            `${entity} ${c}.${i}`,
          );
          if (r.status !== 201) failures.push(`${entity} ${c}.${i}: ${r.status}`);
        }
      };
      // The same key through both servers at the same moment: one entry.
      const twice = Promise.all([
        post(a, keys.acme, 'same-key', 'twice'),
        post(b, keys.acme, 'same-key', 'twice'),
      ]);
      await Promise.all([
        ...[0, 1, 2, 3].map((c) => client('acme', c)),
        ...[0, 1, 2, 3].map((c) => client('harbor', c)),
      ]);
      const both = await twice;
      expect(failures).toEqual([]);
      expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
      const acme = await journal(url, slugs.acme);
      const harbor = await journal(url, slugs.harbor);
      expect(acme).toHaveLength(61);
      expect(harbor).toHaveLength(60);
      expect(acme.filter((e) => e.memo === 'twice')).toHaveLength(1);
      gapless(acme.map((e) => e.je_number));
      gapless(harbor.map((e) => e.je_number));
      expect(harbor.some((e) => e.memo.startsWith('acme'))).toBe(false);
      await trailHolds(
        url,
        slugs.acme,
        acme.map((e) => e.je_number),
      );
      await trailHolds(
        url,
        slugs.harbor,
        harbor.map((e) => e.je_number),
      );
      // An id of one entity, asked with the other's key, on either server: not found, never its data.
      const id = (both.find((r) => r.status === 201)!.json as { id: string }).id;
      for (const server of [a, b]) {
        const r = await fetch(`${server}/v1/journal-entries/${id}`, {
          headers: { Authorization: `Bearer ${keys.harbor}` },
        });
        expect(r.status).toBe(404);
        expect(await r.text()).not.toContain('twice');
      }
      // A general-ledger cursor from one server pages on the other, for its own entity only.
      const page = (server: string, key: string, cursor?: string) =>
        fetch(
          `${server}/v1/reports/general-ledger?start_date=2025-01-01&end_date=2025-12-31&limit=7` +
            (cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''),
          { headers: { Authorization: `Bearer ${key}` } },
        );
      const first = (await (await page(a, keys.acme)).json()) as { next_cursor: string };
      expect(first.next_cursor).toBeTruthy();
      expect((await page(b, keys.acme, first.next_cursor)).status).toBe(200);
      expect((await page(b, keys.harbor, first.next_cursor)).status).toBe(400);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  }, 120_000);

  it('one server killed under load: every acknowledged entry there, retries elsewhere post once', async () => {
    const { url, keys, slugs, servers } = await firm();
    const [victim, survivor] = servers as [Served, Served];
    try {
      const acknowledged = new Set<string>();
      const sent: { entity: 'acme' | 'harbor'; key: string }[] = [];
      const client = async (entity: 'acme' | 'harbor', c: number) => {
        for (let i = 0; i < 40; i++) {
          const key = `${entity}-${c}-${i}`;
          sent.push({ entity, key });
          const r = await post(victim.url, keys[entity], key, key).catch(() => null);
          if (r?.status === 201) acknowledged.add(key);
          if (r === null) return;
        }
      };
      const load = Promise.all(
        [0, 1, 2, 3].flatMap((c) => [client('acme', c), client('harbor', c)]),
      );
      // Killed once some posts have been answered.
      while (acknowledged.size < 20) await new Promise((r) => setTimeout(r, 5));
      victim.child.kill('SIGKILL');
      await load;
      // Every client retries every key it sent, on the other server: each posts once.
      for (const { entity, key } of sent) {
        const r = await post(survivor.url, keys[entity], key, key);
        expect([201, 409]).toContain(r.status);
        if (acknowledged.has(key)) expect(r.status).toBe(409);
      }
      for (const entity of ['acme', 'harbor'] as const) {
        const entries = await journal(url, slugs[entity]);
        const mine = sent.filter((s) => s.entity === entity).map((s) => s.key);
        expect(entries.map((e) => e.memo).sort()).toEqual([...mine].sort());
        gapless(entries.map((e) => e.je_number));
        await trailHolds(
          url,
          slugs[entity],
          entries.map((e) => e.je_number),
        );
      }
      console.info(
        `books serve killed after ${acknowledged.size} of ${sent.length} keyed posts were answered; ` +
          'retries on the other server posted the rest once',
      );
      const check = await books(['check', '--ledger', url, '--entity', slugs.acme]);
      expect(check.exitCode, check.stdout + check.stderr).toBe(0);
    } finally {
      await survivor.stop();
      await victim.stop().catch(() => {});
    }
  }, 120_000);

  it('one entity, eight clients, two servers, one killed: no gap, no fork, an event per entry', async () => {
    const { url, keys, slugs, servers } = await firm();
    const [victim, survivor] = servers as [Served, Served];
    try {
      const acknowledged = new Set<string>();
      const sent: string[] = [];
      // Eight clients of one entity, half on each server: both append to the one chain at once.
      const client = async (c: number) => {
        const server = c % 2 ? victim : survivor;
        for (let i = 0; i < 30; i++) {
          const key = `one-${c}-${i}`;
          sent.push(key);
          const r = await post(server.url, keys.acme, key, key).catch(() => null);
          if (r?.status === 201) acknowledged.add(key);
          if (r === null) return;
        }
      };
      const load = Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(client));
      while (acknowledged.size < 40) await new Promise((r) => setTimeout(r, 5));
      victim.child.kill('SIGKILL');
      await load;
      for (const key of sent) {
        const r = await post(survivor.url, keys.acme, key, key);
        if (acknowledged.has(key)) expect(r.status).toBe(409);
      }
      const entries = await journal(url, slugs.acme);
      expect(entries.map((e) => e.memo).sort()).toEqual([...sent].sort());
      await trailHolds(
        url,
        slugs.acme,
        entries.map((e) => e.je_number),
      );
    } finally {
      await survivor.stop();
      await victim.stop().catch(() => {});
    }
  }, 120_000);

  it('books serve --entity serves that entity alone: a key of another is refused as unknown', async () => {
    const f = await firm();
    await Promise.all(f.servers.map((x) => x.stop()));
    const one = await serve(f.url, ['--entity', f.slugs.acme]);
    try {
      const entity = (key: string) =>
        fetch(`${one.url}/v1/entity`, { headers: { Authorization: `Bearer ${key}` } });
      const acme = await entity(f.keys.acme);
      expect(acme.status).toBe(200);
      expect(((await acme.json()) as { name: string }).name).toBe('acme');
      const harbor = await entity(f.keys.harbor);
      expect(harbor.status).toBe(401);
      expect(((await harbor.json()) as { code: string }).code).toBe('CAPI11');
      const posted = await post(one.url, f.keys.harbor, 'one-entity-1', 'not here');
      expect(posted.status).toBe(401);
      expect(await journal(f.url, f.slugs.harbor)).toEqual([]);
    } finally {
      await one.stop();
    }
    const nobody = await books(['serve', '--port', '0', '--ledger', f.url, '--entity', 'nobody']);
    expect(nobody.exitCode).toBe(2);
    expect(nobody.stderr).toMatch(/no entity 'nobody'/);
  });

  it("one entity's burst of long requests leaves another's answered at once (turns per entity)", async () => {
    const f = await firm();
    await Promise.all(f.servers.map((x) => x.stop()));
    // A 2,000-line statement whose every line a rule takes: a dry run drafts them all, about a
    // second on one of the server's connections.
    const dir = tempDir();
    const lines = ['Date,Description,Amount'];
    for (let i = 0; i < 2000; i++) lines.push(`2025-03-0${1 + (i % 7)},CARD FEE ${i},-4.75`);
    const statement = join(dir, 'statement.csv');
    writeFileSync(statement, lines.join('\n') + '\n');
    const at = ['--ledger', f.url, '--entity', f.slugs.acme];
    const imported = await books([
      'reconcile',
      'import',
      statement,
      '--account',
      'checking',
      ...at,
    ]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const server = await serve(f.url);
    try {
      let running = true;
      const waits: number[] = [];
      const asking = (async () => {
        while (running) {
          const t = performance.now();
          const r = await fetch(`${server.url}/v1/entity`, {
            headers: { Authorization: `Bearer ${f.keys.harbor}` },
          });
          await r.arrayBuffer();
          waits.push(performance.now() - t);
        }
      })();
      const rules = {
        account: 'checking',
        dry_run: true,
        rules: [{ pattern: 'CARD FEE', offset_account: 'sales' }],
      };
      const runs = Array.from({ length: 10 }, () =>
        fetch(`${server.url}/v1/reconciliation/create`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${f.keys.acme}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(rules),
        }).then((r) => r.status),
      );
      expect(await Promise.all(runs)).toEqual(Array(10).fill(200));
      running = false;
      await asking;
      // Ten such runs held all eight connections, and another entity waited 3.5 s for one.
      expect(Math.max(...waits)).toBeLessThan(1000);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
