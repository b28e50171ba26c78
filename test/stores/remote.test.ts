import { createServer, connect, type Server } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  books,
  expectSameReport,
  ROOT,
  serve,
  snapshot,
  standardLedger,
  writeFile,
  type RunResult,
  type Served,
} from '../support/helpers.js';
import { until } from '../support/ledgers.js';
import { keyFor, READ } from '../support/keys.js';

const CSV = [
  'entry,entry_date,memo,gl_account_id,debit,credit,counterparty_type,counterparty_external_id',
  '1,2025-01-31,January rent,6100,2500.00,,,',
  '1,2025-01-31,,checking,,2500,,',
  '2,2025-01-31,Invoice 7,ar,1200.00,,customer,C001',
  '2,2025-01-31,,sales,,1200.00,,',
].join('\n');

describe('a remote profile against a real books serve', () => {
  let L: Awaited<ReturnType<typeof standardLedger>>;
  let S: Served;
  let key: string;
  let env: Record<string, string>;
  const remote = (
    args: string[],
    extra: Record<string, string> = {},
    input?: string,
  ): Promise<RunResult> =>
    books(args, {
      cwd: L.dir,
      env: { ...env, ...extra },
      ...(input !== undefined ? { input } : {}),
    });
  const local = (args: string[]) => books([...args, '--ledger', L.ledger], { cwd: L.dir });

  beforeAll(async () => {
    L = await standardLedger();
    key = await keyFor(L.run);
    S = await serve(L.ledger);
    env = {
      BOOKS_CONFIG: join(L.dir, 'config.json'),
      BOOKS_API_KEY: key,
      BOOKS_RECEIPTS: join(L.dir, 'receipts.sqlite'),
      BOOKS_RETRY_BACKOFF_MS: '100',
    };
    const add = await books(['profile', 'add', 'office', '--url', S.url], { cwd: L.dir, env });
    expect(add.exitCode, add.stderr).toBe(0);
    expect((await books(['profile', 'use', 'office'], { cwd: L.dir, env })).exitCode).toBe(0);
  });
  afterAll(async () => S?.stop());

  it('posts an entry, and refuses a bad one exactly as the local ledger does', async () => {
    const ok = await remote([
      'je',
      'post',
      '--date',
      '2025-02-01',
      '--debit',
      '6100=10',
      '--credit',
      'checking=10',
      '--format',
      'json',
    ]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      object: 'journal_entry',
      total_debit_atoms: 1000,
    });
    for (const args of [
      ['je', 'post', '--date', '2025-02-01', '--debit', 'rent=10', '--credit', 'checking=9'],
      ['je', 'post', '--date', '2024-02-01', '--debit', 'nope=10', '--credit', 'ar=10'],
      [
        'je',
        'post',
        '--date',
        '2025-02-01',
        '--debit',
        'rent=10',
        '--credit',
        'checking=10',
        '--idempotency-key',
        '',
      ],
      ['report', 'balance-sheet', '--start', '2020-01-01', '--end', '2025-12-31'],
    ]) {
      const [r, l] = [await remote(args), await local(args)];
      expect(r.exitCode, r.stderr).toBe(l.exitCode);
      expect(r.stderr).toBe(l.stderr);
    }
  });

  it('prints the same balance sheet bytes as the local ledger', async () => {
    const args = [
      'report',
      'balance-sheet',
      '--start',
      '2025-01-01',
      '--end',
      '2025-06-30',
      '--period',
      'monthly',
    ];
    for (const format of ['json', 'csv', 'table']) {
      const [r, l] = [
        await remote([...args, '--format', format]),
        await local([...args, '--format', format]),
      ];
      expect(r.exitCode).toBe(0);
      expectSameReport(r.stdout, l.stdout);
    }
  });

  it('imports a file once: validated against the remote chart, then never posted twice', async () => {
    const file = writeFile(L.dir, 'remote.csv', CSV);
    const bad = writeFile(L.dir, 'bad.csv', CSV.replace('6100', '6199'));
    const refused = await remote(['je', 'import', bad]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      "bad.csv:2: CAPI33 unknown_account: gl_account_id: no GL account with external id or number '6199'",
    );
    const first = await remote(['je', 'import', file, '--format', 'json']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ posted: 2, skipped: 0, lines: 4 });
    const again = await remote(['je', 'import', file, '--format', 'json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ posted: 0, skipped: 2 });
    // Without the receipts (another machine, or a lost file) the service's idempotency keys still hold within the hour.
    const elsewhere = await remote(['je', 'import', file, '--format', 'json'], {
      BOOKS_RECEIPTS: join(L.dir, 'other-receipts.sqlite'),
    });
    expect(JSON.parse(elsewhere.stdout)).toMatchObject({ posted: 0, skipped: 2, lines: 0 });
    const memos = (
      JSON.parse((await local(['je', 'list', '--format', 'json'])).stdout) as {
        data: { memo: string }[];
      }
    ).data.filter((e) => e.memo === 'Invoice 7');
    expect(memos).toHaveLength(1);
  });

  it('names the file and row of an entry the service refuses on import', async () => {
    // A number only the service knows is taken: the refusal is the service's, not the file's check.
    const taken = writeFile(
      L.dir,
      'taken.csv',
      'entry,entry_date,gl_account_id,debit,credit,je_number\n' +
        'A,2025-02-03,6100,5.00,,JE-1\nA,2025-02-03,checking,,5.00,JE-1\n',
    );
    const r = await remote(['je', 'import', taken]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('taken.csv:2: CAPI33 duplicate_je_number: je_number:');
  });

  it('imports another system’s file with a preset, reading the chart and counterparties remotely', async () => {
    const next = async () => {
      const r = await local([
        'je',
        'post',
        '--date',
        '2025-02-09',
        '--debit',
        'rent=1',
        '--credit',
        'checking=1',
        '--format',
        'json',
      ]);
      return JSON.parse(r.stdout).je_number as string;
    };
    const before = Number((await next()).slice(3));
    const qbo = join(ROOT, 'fixtures/import/qbo.csv');
    const r = await remote(['je', 'import', qbo, '--preset', 'qbo', '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).posted).toBeGreaterThan(0);
    const shown = JSON.parse((await local(['je', 'show', 'JE-1001', '--format', 'json'])).stdout);
    expect(shown.source).toBe('csv_import');
    // QuickBooks' Journal No. 1001 and on are kept, and do not steer the ledger's numbering.
    expect(await next()).toBe(`JE-${before + 1}`);
    const parties = await remote(['counterparties', 'list', '--format', 'json']);
    expect(JSON.parse(parties.stdout)).toEqual(
      JSON.parse((await local(['counterparties', 'list', '--format', 'json'])).stdout),
    );
  });

  it('a file imported locally and through the service, in either order, posts once', async () => {
    const csv = (memo: string) =>
      'entry,entry_date,memo,gl_account_id,debit,credit\n' +
      `1,2025-05-01,${memo},rent,7.00,\n1,,,checking,,7.00\n`;
    const both = writeFile(L.dir, 'both.csv', csv('imported both ways'));
    expect((await local(['je', 'import', both])).exitCode).toBe(0);
    const r = JSON.parse((await remote(['je', 'import', both, '--format', 'json'])).stdout);
    expect(r).toMatchObject({ posted: 0, skipped: 1 });
    const other = writeFile(L.dir, 'other.csv', csv('remote first'));
    expect((await remote(['je', 'import', other])).exitCode).toBe(0);
    const l = JSON.parse((await local(['je', 'import', other, '--format', 'json'])).stdout);
    expect(l).toMatchObject({ posted: 0, skipped: 1 });
    const list = JSON.parse((await local(['je', 'list', '--format', 'json'])).stdout).data;
    for (const memo of ['imported both ways', 'remote first'])
      expect(list.filter((e: { memo: string }) => e.memo === memo)).toHaveLength(1);
  });

  it('shows an entry, and names entries by JE number, as the local ledger does', async () => {
    const posted = JSON.parse(
      (
        await remote([
          'je',
          'post',
          '--date',
          '2025-05-02',
          '--debit',
          'rent=3',
          '--credit',
          'checking=3',
          '--format',
          'json',
        ])
      ).stdout,
    );
    const reversed = await remote(['je', 'reverse', posted.je_number]);
    expect(reversed.stdout).toContain(`reverses: ${posted.je_number} (2025-05-02)`);
    const [r, l] = [
      await remote(['je', 'show', posted.je_number]),
      await local(['je', 'show', posted.je_number]),
    ];
    expect(r.stdout).toBe(l.stdout);
    expect(r.stdout).toMatch(/reversed by: JE-\d+\n/);
    for (const id of ['.', '..', 'JE-999999'])
      expect((await remote(['je', 'show', id])).exitCode, id).toBe(1);
  });

  it('retries through a rebuild (CAPI73) and posts once', async () => {
    const db = new Database(L.ledger);
    db.prepare('UPDATE entity SET rebuild_started_at = ?').run(new Date().toISOString());
    db.close();
    const posting = remote([
      'je',
      'post',
      '--date',
      '2025-02-02',
      '--memo',
      'during rebuild',
      '--debit',
      'rent=1',
      '--credit',
      'checking=1',
    ]);
    // Once the service has refused it at least once (CAPI73), the rebuild ends.
    await until(() => /POST \/v1\/journal-entries 409/.test(S.log()), 'a refused post');
    const db2 = new Database(L.ledger);
    db2.prepare('UPDATE entity SET rebuild_started_at = NULL').run();
    db2.close();
    const r = await posting;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(S.log()).toMatch(/POST \/v1\/journal-entries 409[\s\S]*POST \/v1\/journal-entries 201/);
    const list = (
      JSON.parse((await local(['je', 'list', '--format', 'json'])).stdout) as {
        data: { memo: string }[];
      }
    ).data;
    expect(list.filter((e) => e.memo === 'during rebuild')).toHaveLength(1);
  });

  it('gives up on a rebuild that does not end with exit 4, changing nothing', async () => {
    const db = new Database(L.ledger);
    db.prepare('UPDATE entity SET rebuild_started_at = ?').run(new Date().toISOString());
    db.close();
    try {
      const before = snapshot(L.ledger);
      const r = await remote([
        'je',
        'post',
        '--date',
        '2025-02-02',
        '--debit',
        'rent=1',
        '--credit',
        'checking=1',
      ]);
      expect(r.exitCode).toBe(4);
      expect(r.stderr).toContain('error CAPI73');
      expect(snapshot(L.ledger)).toBe(before);
    } finally {
      const db2 = new Database(L.ledger);
      db2.prepare('UPDATE entity SET rebuild_started_at = NULL').run();
      db2.close();
    }
  });

  it('maps keys and permissions to exit 3, an unreachable service to exit 4, and never prints the key', async () => {
    const none = await remote(['je', 'post', '--debit', 'rent=1', '--credit', 'checking=1'], {
      BOOKS_API_KEY: '',
    });
    expect(none.exitCode).toBe(3);
    expect(none.stderr).toContain('error CAPI11: no API key: set BOOKS_API_KEY');
    const wrong = await remote(['report', 'balance-sheet'], {
      BOOKS_API_KEY: 'bk.AAAAAAAAAAAA.secretsecretsecretsecret',
    });
    expect(wrong.exitCode).toBe(3);
    expect(wrong.stderr).toContain('CAPI11');
    expect(wrong.stderr + wrong.stdout).not.toContain('secretsecret');
    const readOnly = JSON.parse(
      (await L.run(['keys', 'create', '--permission', READ, '--format', 'json'])).stdout,
    ).key as string;
    const forbidden = await remote(['je', 'post', '--debit', 'rent=1', '--credit', 'checking=1'], {
      BOOKS_API_KEY: readOnly,
    });
    expect(forbidden.exitCode).toBe(3);
    expect(forbidden.stderr).toContain('error CAPI71');
    expect(forbidden.stderr).not.toContain(readOnly);
    await books(['profile', 'add', 'down', '--url', 'http://127.0.0.1:1'], { cwd: L.dir, env });
    const down = await remote(['--profile', 'down', 'report', 'balance-sheet'], {
      BOOKS_RETRY_BACKOFF_MS: '10',
    });
    expect(down.exitCode).toBe(4);
    expect(down.stderr).toContain('cannot reach http://127.0.0.1:1');
    expect(S.log()).not.toContain(key);
  });

  it('reports a post whose answer was lost as already posted on the retry, and posts it once', async () => {
    const proxy = await lossyProxy(S.url);
    try {
      await books(['profile', 'add', 'lossy', '--url', proxy.url], { cwd: L.dir, env });
      const r = await remote([
        '--profile',
        'lossy',
        'je',
        'post',
        '--date',
        '2025-02-03',
        '--memo',
        'answer lost',
        '--debit',
        'rent=3',
        '--credit',
        'checking=3',
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(proxy.dropped()).toBe(1);
      expect(r.stdout).toMatch(/^Already posted as JE-\d+: an earlier attempt went through\.$/m);
      expect(S.log()).toMatch(
        /POST \/v1\/journal-entries 201[\s\S]*POST \/v1\/journal-entries 409/,
      );
      const list = (
        JSON.parse((await local(['je', 'list', '--format', 'json'])).stdout) as {
          data: { memo: string }[];
        }
      ).data;
      expect(list.filter((e) => e.memo === 'answer lost')).toHaveLength(1);
    } finally {
      proxy.close();
    }
  });

  it('says which commands a remote profile does not offer (exit 2)', async () => {
    for (const args of [
      ['accounts', 'import', 'x.csv'],
      ['je', 'list'],
      ['je', 'list', '--counterparty', 'customer:NOPE'],
      ['check'],
      ['close', '--through', '2025-01-31'],
      ['je', 'post', '--debit', 'rent=1', '--credit', 'checking=1', '--dry-run'],
    ]) {
      const r = await remote(args);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/not offered by (this|a remote) profile/);
    }
  });
});

/**
 * A TCP proxy to the server that lets the first POST through but drops its answer (closes the
 * client's connection instead), as a network failure after the service committed would.
 */
async function lossyProxy(
  target: string,
): Promise<{ url: string; dropped: () => number; close: () => void }> {
  const { hostname, port } = new URL(target);
  let toDrop = 1;
  let dropped = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    let dropAnswer = false;
    client.on('data', (chunk: Buffer) => {
      if (toDrop > 0 && chunk.toString('latin1').startsWith('POST ')) {
        toDrop--;
        dropAnswer = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!dropAnswer) return void client.write(chunk);
      dropped++;
      client.destroy();
      upstream.destroy();
    });
    for (const s of [client, upstream]) s.on('error', () => {});
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    dropped: () => dropped,
    close: () => server.close(),
  };
}
