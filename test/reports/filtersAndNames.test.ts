import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  books,
  demoLedger,
  serve,
  standardLedger,
  tempDir,
  type RunResult,
} from '../support/helpers.js';

const POST = 'customer_api:post_journal_entries';

// What a bookkeeper closing a month meets: each case here went wrong once, for a new user or a
// hostile one.
let demo: Awaited<ReturnType<typeof demoLedger>>;

beforeAll(async () => {
  demo = await demoLedger();
});

const json = (r: RunResult) => JSON.parse(r.stdout);

describe('filters that name something the ledger does not have', () => {
  it('an unknown counterparty is refused as an unknown account is (exit 1), not an empty report', async () => {
    for (const args of [
      ['report', 'gl', '--counterparty', 'customer:NOPE', '--end', '2025-12-31'],
      ['je', 'list', '--counterparty', 'customer:NOPE'],
      ['report', 'gl', '--account', 'NOPE', '--end', '2025-12-31'],
      ['je', 'list', '--account', 'NOPE'],
    ]) {
      const r = await demo.run([...args, '--format', 'json']);
      expect(r.exitCode, args.join(' ')).toBe(1);
      expect(json(r).error.code).toBe('not_found');
    }
    const r = await demo.run(['je', 'list', '--counterparty', 'customer:c00']);
    expect(r.stderr).toMatch(/no customer 'c00'; did you mean customer:C001/);
    // A counterparty that exists but has no lines is an empty report, as before.
    const known = await demo.run(['je', 'list', '--counterparty', 'employee:E001']);
    expect(known.exitCode, known.stderr).toBe(0);
  });
});

describe('account numbers in JSON bodies', () => {
  it('name an account as the external id does, through je post --file and the API', async () => {
    const L = await standardLedger();
    const body = {
      entry_date: '2025-02-03',
      lines: [
        { gl_account_id: '6100', line_type: 'debit', amount_atoms: 500 },
        { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 500 },
      ],
    };
    const r = await L.run(['je', 'post', '--file', '-', '--format', 'json'], JSON.stringify(body));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(json(r).lines[0]).toMatchObject({ account_number: '6100', account_name: 'Rent' });
    const key = json(await L.run(['keys', 'create', '--permission', POST, '--format', 'json']))
      .key as string;
    const S = await serve(L.ledger);
    try {
      const res = await fetch(`${S.url}/v1/journal-entries`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'x-idempotency-key': 'by-number',
        },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
      expect(((await res.json()) as any).lines[0].account_name).toBe('Rent');
    } finally {
      await S.stop();
    }
  });
});

describe('entries named as people read them', () => {
  it('je show and je reverse name linked entries by JE number (ids stay in JSON)', async () => {
    const L = await standardLedger();
    const post = [
      'je',
      'post',
      '--date',
      '2025-02-01',
      '--debit',
      'rent=5',
      '--credit',
      'checking=5',
    ];
    expect((await L.run([...post, '--idempotency-key', 'K1'])).exitCode).toBe(0);
    const reversed = await L.run(['je', 'reverse', 'JE-1']);
    expect(reversed.stdout).toContain('reverses: JE-1 (2025-02-01)');
    const shown = await L.run(['je', 'show', 'JE-1']);
    expect(shown.stdout).toContain('reversed by: JE-2\n');
    expect(shown.stdout).not.toMatch(/reversed by: je_/);
    const asJson = json(await L.run(['je', 'show', 'JE-1', '--format', 'json']));
    expect(asJson.reversed_by_journal_entry_ids).toEqual([expect.stringMatching(/^je_/)]);
    // A key used for another request names the entry it posted, too.
    const again = await L.run([
      ...post.slice(0, 3),
      '2025-02-02',
      ...post.slice(4),
      '--idempotency-key',
      'K1',
    ]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('already used within the hour by JE-1, for a different request');
  });
});

describe('the general ledger written to a file or a pipe', () => {
  it('keeps every memo, JE number and name whole; only a terminal gets them cut to fit', async () => {
    const L = await standardLedger();
    const memo = 'Quarterly insurance premium for the delivery van and the bakery premises';
    const r = await L.run([
      'je',
      'post',
      '--date',
      '2025-02-01',
      '--memo',
      memo,
      '--je-number',
      'INV-2025-000123-A',
      '--debit',
      'insurance=900',
      '--credit',
      'checking=900',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const args = [
      'report',
      'gl',
      '--account',
      'checking',
      '--start',
      '2025-01-01',
      '--end',
      '2025-12-31',
    ];
    const piped = (await L.run(args)).stdout;
    const file = join(L.dir, 'gl.txt');
    expect((await L.run([...args, '--output', file])).exitCode).toBe(0);
    for (const text of [piped, readFileSync(file, 'utf8')]) {
      expect(text).not.toContain('…');
      // The memo goes on in its column on the lines below; joined, it is whole.
      const all = text.split('\n');
      const at = all.findIndex((l) => l.startsWith('2025-02-01'));
      const end = all.findIndex((l, i) => i > at && !l.startsWith(' '.repeat(12)));
      const rows = all.slice(at, end).filter((l) => !l.includes('balance'));
      expect(all[at + rows.length]).toContain('Closing balance');
      expect(rows.length).toBeGreaterThan(1);
      const memoColumn = rows.map((l) => l.slice(26, 56).trim()).join(' ');
      expect(memoColumn).toBe(memo);
      expect(rows.map((l) => l.slice(12, 24).trim()).join('')).toBe('INV-2025-000123-A');
      // Amounts stay in their columns, on the entry's first line.
      expect(rows[0]).toMatch(/^2025-02-01 .* 900\.00 +\S+$/);
    }
  });
});

describe('books entity show', () => {
  it('shows the lock date and what the ledger holds, as a table and as JSON', async () => {
    const L = await standardLedger();
    expect((await L.run(['close', '--through', '2025-01-31'])).exitCode).toBe(0);
    const table = await L.run(['entity', 'show']);
    expect(table.stdout).toMatch(/^Closed through +31 Jan 2025$/m);
    expect(table.stdout).toMatch(/^First Month of Books +2025-01$/m);
    expect(json(await L.run(['entity', 'show', '--format', 'json']))).toMatchObject({
      object: 'entity',
      name: 'Test Co',
      currency: 'USD',
      books_start: '2025-01-01',
      fiscal_year_start_month: 1,
      lock_date: '2025-01-31',
      entry_count: 0,
      account_count: expect.any(Number),
    });
  });
});

describe('je list --search', () => {
  it('finds text in a line memo as in the entry memo or JE number', async () => {
    const L = await standardLedger();
    const body = {
      entry_date: '2025-02-03',
      memo: 'Weekly delivery',
      lines: [
        { gl_account_id: 'cogs', line_type: 'debit', amount_atoms: 500, memo: 'Croissant flour' },
        { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 500 },
      ],
    };
    expect((await L.run(['je', 'post', '--file', '-'], JSON.stringify(body))).exitCode).toBe(0);
    for (const text of ['CROISSANT', 'weekly', 'je-1']) {
      const r = json(await L.run(['je', 'list', '--search', text, '--format', 'json']));
      expect(
        r.data.map((e: any) => e.je_number),
        text,
      ).toEqual(['JE-1']);
    }
    const none = json(await L.run(['je', 'list', '--search', 'baguette', '--format', 'json']));
    expect(none.data).toEqual([]);
  });
});

describe('statement CSV', () => {
  it('the rows under every account add up to it: a parent account’s own balance has a row', async () => {
    for (const report of ['balance-sheet', 'income-statement']) {
      const r = await demo.run([
        'report',
        report,
        '--end',
        '2025-12-31',
        '--format',
        'csv',
        '--atoms',
      ]);
      const [head, ...rows] = r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(','));
      const periods = head!.length - 6;
      const byPath = new Map(rows.map((c) => [c[2]!, c]));
      let checked = 0;
      for (const [path, c] of byPath) {
        if (c[5] !== 'regular') continue;
        const below = rows.filter(
          (x) => x[2]!.startsWith(`${path} > `) && x[1] === String(Number(c[1]) + 1),
        );
        if (below.length === 0) continue;
        for (let p = 6; p < 6 + periods; p++) {
          const sum = below.reduce((s, x) => s + BigInt(x[p] || 0), 0n);
          expect(sum, `${report} ${path} column ${head![p]}`).toBe(BigInt(c[p] || 0));
        }
        checked++;
      }
      expect(checked, report).toBeGreaterThan(0);
    }
  });
});

describe('currencies', () => {
  it('CLF is an ISO 4217 code with 4 decimals: a ledger keeps its books in it', async () => {
    const dir = tempDir();
    const run = (args: string[]) =>
      books([...args, '--ledger', join(dir, 'clf.sqlite')], { cwd: dir });
    const init = await run([
      'init',
      '--currency',
      'CLF',
      '--first-month',
      '2025-01',
      '--chart',
      'standard',
    ]);
    expect(init.exitCode, init.stderr).toBe(0);
    const r = await run([
      'je',
      'post',
      '--date',
      '2025-02-01',
      '--debit',
      'rent=1.2345',
      '--credit',
      'checking=1.2345',
      '--format',
      'json',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(json(r)).toMatchObject({ currency: 'CLF', total_debit_atoms: 12345 });
    const five = await run([
      'je',
      'post',
      '--date',
      '2025-02-01',
      '--debit',
      'rent=1.23456',
      '--credit',
      'checking=1.23456',
    ]);
    expect([five.exitCode, five.stderr]).toEqual([1, expect.stringContaining('CLF has 4')]);
    const bad = await run(['init', '--currency', 'XYZ']);
    expect(bad.exitCode).toBe(2);
  });
});

describe('line flags', () => {
  it('name an account whose external id holds `=`, and a counterparty whose id does', async () => {
    const L = await standardLedger();
    const chart =
      'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n' +
      'a=b,,Eq,expense,,true,true,\n';
    const file = join(L.dir, 'eq.csv');
    writeFileSync(file, chart);
    expect((await L.run(['accounts', 'import', file])).exitCode).toBe(0);
    const r = await L.run([
      'je',
      'post',
      '--date',
      '2025-02-01',
      '--debit',
      'a=b=5',
      '--credit',
      'checking=5',
      '--format',
      'json',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(json(r).lines[0]).toMatchObject({ account_name: 'Eq', amount_atoms: 500 });
    const cp = await L.run([
      'je',
      'post',
      '--date',
      '2025-02-01',
      '--debit',
      'rent=5',
      '--credit',
      'ar=5@customer:C=1',
    ]);
    expect(cp.stderr).toContain("no customer with external id 'C=1'");
  });
});
