import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/domain/entry.js';
import {
  books,
  expectSameReport,
  serve,
  standardLedger,
  type RunResult,
} from '../support/helpers.js';
import { requireTool } from '../support/tools.js';

type Std = Awaited<ReturnType<typeof standardLedger>>;
const ok = (r: RunResult) => {
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
};

/** `je post --date …` through `run`, which must succeed: its output. */
const posted = (run: Std['run'], ...args: string[]) =>
  run(['je', 'post', '--date', ...args]).then(ok);

/** A journal's CSV imported into a fresh ledger comes back out the same, byte for byte. */
async function expectRoundTrip(csv: string): Promise<void> {
  const again = await standardLedger();
  writeFileSync(join(again.dir, 'journal.csv'), csv);
  ok(await again.run(['je', 'import', join(again.dir, 'journal.csv')]));
  expect(ok(await again.run(['je', 'list', '--format', 'csv']))).toBe(csv);
}

describe('tags through the command line', () => {
  let std: Std;
  beforeAll(async () => {
    std = await standardLedger();
    const post = (...args: string[]) => posted(std.run, ...args);
    await post(
      '2025-01-05',
      '--tag',
      'project=alpha',
      '--debit',
      'rent=1200#location=nyc',
      '--credit',
      'checking=1200',
    );
    await post(
      '2025-01-06',
      '--tag',
      'project=beta',
      '--debit',
      'rent=300',
      '--credit',
      'checking=300#project=alpha',
    );
    await post('2025-02-07', '--debit', 'office=50', '--credit', 'checking=50');
    const file = join(std.dir, 'tagged.csv');
    writeFileSync(
      file,
      'entry,entry_date,gl_account_id,debit,credit,tag:project,tag:location\n' +
        // Both rows alpha: the entry's tag; locations differ: each line's own.
        '1,2025-02-10,utilities,80.00,,alpha,nyc\n1,2025-02-10,checking,,80.00,alpha,\n',
    );
    ok(await std.run(['je', 'import', file]));
  });

  it('keeps the entry’s tags and each line’s own, and a reversal carries them', async () => {
    const shown = JSON.parse(
      ok(await std.run(['je', 'show', 'JE-1', '--format', 'json'])),
    ) as JournalEntry;
    expect(shown.tags).toEqual({ project: 'alpha' });
    expect(shown.lines.map((l) => l.tags)).toEqual([{ location: 'nyc' }, undefined]);
    const imported = JSON.parse(
      ok(await std.run(['je', 'show', 'JE-4', '--format', 'json'])),
    ) as JournalEntry;
    expect(imported.tags).toEqual({ project: 'alpha' });
    expect(imported.lines.map((l) => l.tags)).toEqual([{ location: 'nyc' }, undefined]);
    const { run } = await standardLedger();
    await posted(
      run,
      '2025-03-01',
      '--tag',
      'class=retail',
      '--debit',
      'rent=5#class=wholesale',
      '--credit',
      'checking=5',
    );
    ok(await run(['je', 'reverse', 'JE-1']));
    const reversal = JSON.parse(
      ok(await run(['je', 'show', 'JE-2', '--format', 'json'])),
    ) as JournalEntry;
    expect(reversal.tags).toEqual({ class: 'retail' });
    expect(reversal.lines.map((l) => l.tags)).toEqual([{ class: 'wholesale' }, undefined]);
    expect(
      ok(
        await run([
          'report',
          'pnl',
          '--end',
          '2025-03-31',
          '--where',
          'class=wholesale',
          '--format',
          'json',
        ]),
      ),
    ).toContain('"2025-03": 0');
  });

  it('writes tag:KEY columns in je list --format csv, and the file imports back to the same journal', async () => {
    const csv = ok(await std.run(['je', 'list', '--format', 'csv']));
    expect(csv.split('\n')[0]).toMatch(/,tag:location,tag:project$/);
    await expectRoundTrip(csv);
  });

  it('keeps a key named as a property of every JavaScript object apart from the lines without it', async () => {
    const { run } = await standardLedger();
    await posted(
      run,
      '2025-01-02',
      '--tag',
      'constructor=x',
      '--debit',
      'office=1',
      '--credit',
      'checking=1',
    );
    await posted(run, '2025-01-03', '--debit', 'office=2', '--credit', 'checking=2');
    const csv = ok(await run(['je', 'list', '--format', 'csv']));
    expect(
      csv
        .split('\n')
        .slice(1, 5)
        .map((l) => l.split(',').at(-1)),
    ).toEqual(['x', 'x', '', '']);
    await expectRoundTrip(csv);
    const without = ok(
      await run([
        'report',
        'tb',
        '--as-of',
        '2025-01-31',
        '--where',
        'constructor=',
        '--format',
        'json',
      ]),
    );
    expect(JSON.parse(without).totals.debit).toBe(200);
  });

  it('check names a total by tag that is missing, or that no line has; rebuild mends both', async () => {
    const { ledger, run } = await standardLedger();
    await posted(
      run,
      '2025-01-02',
      '--tag',
      'project=alpha',
      '--debit',
      'office=1',
      '--credit',
      'checking=1',
    );
    const db = new Database(ledger);
    db.prepare(
      `DELETE FROM tag_month_totals WHERE account_key = (SELECT key FROM accounts WHERE external_id = 'office')`,
    ).run();
    db.prepare(
      `INSERT INTO tag_month_totals VALUES ('project', 'beta', 1, '2025-01', 5, 1, 0, 0)`,
    ).run();
    db.close();
    const checked = await run(['check']);
    expect(checked.exitCode).toBe(1);
    expect(checked.stderr).toMatch(
      /project=alpha for account 'office' in 2025-01 is missing; the lines say 100 atoms/,
    );
    expect(checked.stderr).toMatch(
      /project=beta .* holds 5 atoms over 1 lines .*, which no line has/,
    );
    ok(await run(['rebuild']));
    ok(await run(['check']));
  });

  it('lists tags with their values and lines', async () => {
    const listed = JSON.parse(ok(await std.run(['tags', 'list', '--format', 'json']))) as {
      data: { key: string; lines: number; values: { value: string; lines: number }[] }[];
    };
    expect(listed.data).toEqual([
      { key: 'location', lines: 2, values: [{ value: 'nyc', lines: 2 }] },
      {
        key: 'project',
        lines: 6,
        values: [
          { value: 'alpha', lines: 5 },
          { value: 'beta', lines: 1 },
        ],
      },
    ]);
    expect(ok(await std.run(['tags', 'list', '--format', 'csv']))).toBe(
      'key,value,lines\nlocation,nyc,2\nproject,alpha,5\nproject,beta,1\n',
    );
  });

  it('splits the income statement and the trial balance by a key, with (none) and Total', async () => {
    const table = ok(
      await std.run([
        'report',
        'pnl',
        '--start',
        '2025-01-01',
        '--end',
        '2025-02-28',
        '--columns-by',
        'project',
      ]),
    );
    expect(table).toMatch(/alpha\s+beta\s+\(none\)\s+Total/);
    expect(table).toMatch(/6100 Rent\s+1,200\.00\s+300\.00\s+1,500\.00/);
    const tb = ok(
      await std.run([
        'report',
        'tb',
        '--as-of',
        '2025-02-28',
        '--columns-by',
        'location',
        '--format',
        'csv',
      ]),
    );
    expect(tb.split('\n')[0]).toBe(
      'account_number,account_id,name,account_type,account_kind,location:nyc:debit,location:nyc:credit,' +
        'location:(none):debit,location:(none):credit,debit,credit',
    );
    const refused = await std.run([
      'report',
      'tb',
      '--as-of',
      '2025-02-28',
      '--columns-by',
      'location',
      '--worksheet',
    ]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--columns-by');
    const bs = await std.run([
      'report',
      'balance-sheet',
      '--end',
      '2025-02-28',
      '--where',
      'project!=alpha',
      '--format',
      'json',
    ]);
    expect(bs.exitCode, bs.stderr).toBe(0);
    // The lines of some tags need not balance: a cash flow of them would not end at the sheet's cash.
    const cf = await std.run(['report', 'cf', '--end', '2025-02-28', '--where', 'project=alpha']);
    expect(cf.exitCode).toBe(2);
    expect(cf.stderr).toContain("unknown option '--where'");
  });

  it('exports tags to Beancount as posting metadata that bean-check reads', async () => {
    const beanCheck = requireTool('bean-check', 'apt-get install beancount');
    const file = join(std.dir, 'books.beancount');
    const { run } = await standardLedger();
    // A one-letter key, which Beancount's metadata cannot name, goes out as tag-KEY.
    await posted(
      run,
      '2025-01-04',
      '--tag',
      'p=x',
      '--tag',
      'project=alpha',
      '--debit',
      'rent=3#location=nyc',
      '--credit',
      'checking=3',
    );
    ok(await run(['export', 'beancount', '--output', file]));
    const text = (await execa('cat', [file])).stdout;
    expect(text).toContain('    location: "nyc"\n    tag-p: "x"\n    project: "alpha"');
    const checked = await execa(beanCheck, [file], { reject: false });
    expect(checked.exitCode, checked.stderr).toBe(0);
  });

  it('a remote profile through books serve prints the same tagged reports', async () => {
    const created = JSON.parse(
      ok(
        await std.run(['keys', 'create', '--permission', 'customer_api:read', '--format', 'json']),
      ),
    ) as { key: string };
    const server = await serve(std.ledger);
    try {
      const env = {
        BOOKS_CONFIG: join(std.dir, 'config.json'),
        BOOKS_API_KEY: created.key,
        BOOKS_PROFILE: 'office',
      };
      ok(await books(['profile', 'add', 'office', '--url', server.url], { cwd: std.dir, env }));
      for (const args of [
        [
          'report',
          'pnl',
          '--start',
          '2025-01-01',
          '--end',
          '2025-02-28',
          '--columns-by',
          'project',
        ],
        [
          'report',
          'tb',
          '--as-of',
          '2025-02-28',
          '--where',
          'project=alpha',
          '--where',
          'location=',
        ],
        [
          'report',
          'gl',
          '--start',
          '2025-01-01',
          '--end',
          '2025-02-28',
          '--where',
          'location=nyc',
          '--format',
          'csv',
        ],
        ['report', 'cf', '--start', '2025-01-01', '--end', '2025-02-28'],
        ['tags', 'list'],
      ]) {
        const local = await std.run(args);
        const remote = await books(args, { cwd: std.dir, env });
        expect(remote.stderr).toBe('');
        expectSameReport(remote.stdout, local.stdout);
      }
    } finally {
      await server.stop();
    }
  });
});
