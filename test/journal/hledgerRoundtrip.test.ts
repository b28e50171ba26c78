import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { cli } from '../support/cli.js';
import { copyTemplate } from '../support/ledgers.js';
import { requireTool } from '../support/tools.js';

// books export hledger → hledger print -O csv → books je import --preset hledger gives back the same
// journal (je list --format csv identical), whatever the text and the chart: memos, reasons, JE
// numbers and counterparty ids with the characters hledger's syntax gives a meaning to, and
// accounts whose names collide, or hold `:`, `;` or tabs.

const HOSTILE = [
  'a',
  'Z',
  ' ',
  ',',
  ';',
  ':',
  '(',
  ')',
  '|',
  '%',
  '*',
  '!',
  '#',
  '"',
  "'",
  '\t',
  '\n',
  '\r',
  '%2C',
  'é',
  '€',
  '日',
  '\u2028',
  '\u00a0',
  '-',
  '=',
  '2C',
  '  ',
  'memo: x',
  'customer:',
  ' ; ',
];
const text = fc.array(fc.constantFrom(...HOSTILE), { maxLength: 8 }).map((parts) => parts.join(''));
const someText = text.filter((t) => t.length > 0);

// Names that collide with the standard chart's, with each other, and with fallbacks ("6902 Misc").
const NAMES = [
  'Misc',
  'misc',
  '6902 Misc',
  'Rent',
  'A:B',
  'A;B',
  'A\tB',
  'A-B',
  'Caf\u00e9',
  '  Misc  ',
  '(Old) Van',
];
const account = fc.record({
  name: fc.constantFrom(...NAMES),
  numbered: fc.boolean(),
  type: fc.constantFrom('expense', 'income', 'bank'),
  underParent: fc.boolean(),
});
const PARENT: Record<string, string> = { expense: 'expenses', income: 'sales', bank: 'cash' };
const PARTIES = [
  ['customer', 'C,1'],
  ['customer', 'C;2'],
  ['vendor', 'V,3'],
  ['vendor', 'V%4'],
];

// Tags whose keys are books' own tag names in hledger (memo, customer) or look like their escape
// (tag-x), with hostile printable values.
const tagValue = fc
  .array(fc.constantFrom(...HOSTILE.filter((h) => [...h].every((c) => c >= ' '))), {
    minLength: 1,
    maxLength: 6,
  })
  .map((parts) => parts.join(''));
const tags = fc.dictionary(
  fc.constantFrom('project', 'memo', 'customer', 'tag-x', 'class'),
  tagValue,
  {
    maxKeys: 3,
  },
);
const line = fc.record({
  to: fc.nat(),
  amount: fc.integer({ min: 1, max: 10 ** 9 }),
  memo: text,
  tags,
});
const entry = fc.record({
  tags,
  day: fc.integer({ min: 1, max: 28 }),
  memo: text,
  reason: fc.option(someText, { nil: undefined }),
  number: fc.option(someText, { nil: undefined }),
  adjusting: fc.boolean(),
  debit: line,
  credit: line,
});

const csvField = (s: string) => `"${s.replace(/"/g, '""')}"`;

describe('the journal out to hledger and back (property, with hledger itself)', () => {
  it('comes back identical: every memo, reason, number, flag, counterparty, account and tag', async () => {
    const hledger = requireTool('hledger', 'apt-get install hledger');
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(account, { maxLength: 6 }),
        fc.array(entry, { minLength: 1, maxLength: 6 }),
        async (accounts, entries) => {
          const { dir, ledger: from } = copyTemplate('standard');
          const run = (args: string[], ledger: string) =>
            cli([...args, '--ledger', ledger], { cwd: dir });
          // The chart: the standard one and the colliding accounts; hostile counterparties.
          const chart =
            'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n' +
            accounts
              .map((a, i) =>
                [
                  `x${i}`,
                  a.numbered ? `69${String(i).padStart(2, '0')}` : '',
                  a.name,
                  a.type,
                  a.underParent ? PARENT[a.type]! : '',
                  'true',
                  'true',
                  '',
                ]
                  .map(csvField)
                  .join(','),
              )
              .join('\n');
          writeFileSync(join(dir, 'chart.csv'), chart + '\n');
          writeFileSync(
            join(dir, 'cp.csv'),
            'counterparty_type,external_id,name,is_active\n' +
              PARTIES.map(([type, id]) => `${type},${csvField(id!)},Party,true`).join('\n') +
              '\n',
          );
          if (accounts.length)
            expect((await run(['accounts', 'import', join(dir, 'chart.csv')], from)).exitCode).toBe(
              0,
            );
          expect(
            (await run(['counterparties', 'import', join(dir, 'cp.csv')], from)).exitCode,
          ).toBe(0);
          const to = join(dir, 'to.sqlite');
          copyFileSync(from, to);
          const l = SqliteLedger.open(from);
          const postable = [
            ...accounts.map((_a, i) => [`x${i}`, null] as const),
            ['checking', null],
            ['ar', 'customer'],
            ['ap', 'vendor'],
            ['rent', null],
          ] as const;
          const parties: Record<string, string[]> = {
            customer: ['C,1', 'C;2'],
            vendor: ['V,3', 'V%4'],
          };
          try {
            let k = 0;
            for (const e of entries) {
              const lineOf = (l: typeof e.debit, side: string) => {
                const [id, type] = postable[l.to % postable.length]!;
                return {
                  gl_account_id: id,
                  line_type: side,
                  amount_atoms: e.debit.amount,
                  ...(l.memo ? { memo: l.memo } : {}),
                  ...(Object.keys(l.tags).length ? { tags: l.tags } : {}),
                  ...(type
                    ? {
                        counterparty_type: type,
                        counterparty_external_id: parties[type]![l.amount % 2],
                      }
                    : {}),
                };
              };
              const body = {
                entry_date: `2025-03-${String(e.day).padStart(2, '0')}`,
                ...(e.memo ? { memo: e.memo } : {}),
                ...(e.reason !== undefined ? { manual_entry_reason: e.reason } : {}),
                ...(e.number !== undefined ? { je_number: e.number } : {}),
                ...(e.adjusting ? { is_adjusting: true } : {}),
                ...(Object.keys(e.tags).length ? { tags: e.tags } : {}),
                lines: [lineOf(e.debit, 'debit'), lineOf(e.credit, 'credit')],
              };
              // A number drawn twice, or one that is not a JE number, is refused as it would be anyway.
              await l.journal.post(body, { idempotencyKey: `h-${++k}` }).catch(() => {});
            }
          } finally {
            await l.close();
          }
          const journal = join(dir, 'books.journal');
          const exported = await run(['export', 'hledger', '--output', journal], from);
          expect(exported.exitCode, exported.stderr).toBe(0);
          const printed = await execa(hledger, ['-f', journal, 'print', '-O', 'csv'], {
            reject: false,
          });
          expect(printed.exitCode, printed.stderr).toBe(0);
          writeFileSync(join(dir, 'printed.csv'), printed.stdout);
          const before = await run(['je', 'list', '--format', 'csv'], from);
          if (before.stdout.split('\n').length <= 2) return;
          const imported = await run(
            ['je', 'import', join(dir, 'printed.csv'), '--preset', 'hledger'],
            to,
          );
          expect(imported.exitCode, imported.stderr).toBe(0);
          const after = await run(['je', 'list', '--format', 'csv'], to);
          expect(after.stdout).toBe(before.stdout);
          compared++;
        },
      ),
      { seed: 20261124, numRuns: 25 },
    );
    expect(compared).toBeGreaterThan(10);
  }, 180_000);
});

describe('exported account names', () => {
  it('never merge two accounts: hledger and bean-check read each apart (the chart of a hostile pass)', async () => {
    const hledger = requireTool('hledger', 'apt-get install hledger');
    const beanCheck = requireTool('bean-check', 'apt-get install beancount');
    const { dir, ledger } = copyTemplate('standard');
    const run = (args: string[]) => cli([...args, '--ledger', ledger], { cwd: dir });
    writeFileSync(
      join(dir, 'misc.csv'),
      'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n' +
        'm0,6900,6902 Misc,expense,,true,true,\nm1,6901,Misc,expense,,true,true,\nm2,6902,Misc,expense,,true,true,\n',
    );
    expect((await run(['accounts', 'import', join(dir, 'misc.csv')])).exitCode).toBe(0);
    for (const [account, amount] of [
      ['6900', '1'],
      ['6902', '4'],
    ] as const)
      expect(
        (
          await run([
            'je',
            'post',
            '--date',
            '2025-02-01',
            '--debit',
            `${account}=${amount}`,
            '--credit',
            'checking=' + amount,
          ])
        ).exitCode,
      ).toBe(0);
    for (const peer of ['hledger', 'beancount']) {
      const file = join(dir, `books.${peer}`);
      expect((await run(['export', peer, '--output', file])).exitCode).toBe(0);
      if (peer === 'beancount') {
        const checked = await execa(beanCheck, [file], { reject: false });
        expect(checked.exitCode, checked.stdout + checked.stderr).toBe(0);
        continue;
      }
      const bal = await execa(
        hledger,
        ['-f', file, 'bal', '--strict', 'Expenses', '-N', '-O', 'csv'],
        {
          reject: false,
        },
      );
      expect(bal.exitCode, bal.stderr).toBe(0);
      const amounts = bal.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => JSON.parse(`[${l}]`) as string[])
        .filter(([name]) => /Misc/.test(name!))
        .map(([, amount]) => amount)
        .sort();
      expect(amounts).toEqual(['1.00 USD', '4.00 USD']);
    }
  });

  it('a journal written by hand reads as its paths say: an ambiguous one is refused, naming both', async () => {
    const hledger = requireTool('hledger', 'apt-get install hledger');
    const { dir, ledger } = copyTemplate('standard');
    const run = (args: string[]) => cli([...args, '--ledger', ledger], { cwd: dir });
    writeFileSync(
      join(dir, 'misc.csv'),
      'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n' +
        'misc-a,6950,Misc,expense,expenses,true,true,\nmisc-c,6951,Misc,expense,expenses,true,true,\n' +
        'misc-b,6999,6951 Misc,expense,expenses,true,true,\n',
    );
    expect((await run(['accounts', 'import', join(dir, 'misc.csv')])).exitCode).toBe(0);
    const journal = (account: string) =>
      `2025-02-01 (H-1) by hand\n    ${account}    5 USD\n    Assets:Cash and Bank:Operating Checking\n`;
    const read = async (account: string) => {
      writeFileSync(join(dir, 'h.journal'), journal(account));
      const printed = await execa(hledger, ['-f', join(dir, 'h.journal'), 'print', '-O', 'csv']);
      writeFileSync(join(dir, 'h.csv'), printed.stdout);
      return run(['je', 'import', join(dir, 'h.csv'), '--preset', 'hledger', '--dry-run']);
    };
    const ambiguous = await read('Expenses:Operating Expenses:Misc');
    expect(ambiguous.exitCode).toBe(1);
    expect(ambiguous.stderr).toContain('ambiguous_account');
    expect(ambiguous.stderr).toMatch(/6950 Misc \(misc-a\) and 6951 Misc \(misc-c\)/);
    const named = await read('Expenses:Operating Expenses:6951 Misc');
    expect(named.exitCode, named.stderr).toBe(0);
    // What the export names each of them reads back as that account, and as no other.
    const exported = await run(['export', 'hledger']);
    for (const [id, name] of [
      ['misc-a', 'Expenses:Operating Expenses:6950 Misc'],
      ['misc-b', 'Expenses:Operating Expenses:6951 Misc'],
    ])
      expect(exported.stdout, id).toContain(`account ${name}  ; type: X, books_id: ${id}`);
  });
});
