import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayNumber } from '../../src/domain/dates.js';
import { books, FIXTURES as FILES, tempDir } from '../support/helpers.js';
import { FIXTURES, fromTemplate, SEEN, type FixtureLedger } from '../support/fixtures.js';
import { conformance } from '../stores/stores.js';
import { sayings } from '../support/said.js';

const DIR = join(FILES, 'reconcile');
const JAN = join(DIR, 'checking-2025-01.csv');
const FEB = join(DIR, 'checking-2025-02.ofx');
const RULES = join(DIR, 'rules.csv');

const cents = (s: string) => Math.round(Number(s) * 100);

/** The test's own reading of the fixtures: the January statement and the ledger's checking lines. */
const janRows = readFileSync(JAN, 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => {
    const [date, desc, into, out, balance] = l.split(',');
    return {
      date: date!,
      desc: desc!,
      amount: cents(into || '0') - cents(out || '0'),
      balance: cents(balance!),
    };
  });
const JAN_BALANCE = janRows[janRows.length - 1]!.balance;
const FEB_BALANCE = cents(/<BALAMT>([-\d.]+)/.exec(readFileSync(FEB, 'utf8'))![1]!);
const checking = readFileSync(join(FILES, 'demo/entries.csv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split(','))
  .filter((c) => c[3] === 'checking')
  .map((c) => ({ date: c[1]!, amount: cents(c[4] || '0') - cents(c[5] || '0') }));
/** The ledger's balance of checking through a date, with the bank-only entries the rules post. */
const bookThrough = (d: string, bankOnly: number) =>
  checking.filter((l) => l.date <= d).reduce((s, l) => s + l.amount, 0) + bankOnly;

interface Side {
  id: string;
  date: string;
  amount: number;
}

/**
 * The best pairing by brute force: every matching of each amount's lines (amounts never pair across),
 * the most pairs first, then the least total of days. Returns [pairs, days].
 */
function bruteForce(statement: Side[], ledger: Side[], window: number): [number, number] {
  let pairs = 0;
  let days = 0;
  for (const amount of new Set(statement.map((s) => s.amount))) {
    const s = statement.filter((x) => x.amount === amount);
    const l = ledger.filter((x) => x.amount === amount);
    let best: [number, number] = [0, 0];
    const used = new Set<number>();
    const walk = (i: number, n: number, d: number) => {
      if (i === s.length) {
        if (n > best[0] || (n === best[0] && d < best[1])) best = [n, d];
        return;
      }
      walk(i + 1, n, d);
      l.forEach((x, j) => {
        const gap = Math.abs(dayNumber(s[i]!.date) - dayNumber(x.date));
        if (used.has(j) || gap > window) return;
        used.add(j);
        walk(i + 1, n + 1, d + gap);
        used.delete(j);
      });
    };
    walk(0, 0, 0);
    pairs += best[0];
    days += best[1];
  }
  return [pairs, days];
}

/** What each store answered, with ids made neutral, to hold every store to the same JSON. */
const SAID = new Map<string, string[]>();
const neutral = (json: string) =>
  json
    .replace(/\/tmp\/books-test-[A-Za-z0-9]+/g, '…')
    .replace(/"(stl|rec|je)_[A-Za-z0-9_-]+"/g, '"$1_…"')
    .replace(/"finished_at": "[^"]+"/g, '"finished_at": "…"');

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'reconciling two months of a bank account on %s',
  (name, fixture) => {
    let L: FixtureLedger;
    const said: string[] = [];
    SAID.set(name, said);
    /** A refusal: the exit code, the words that name the problem, and nothing changed. */
    const { json, refused } = sayings(
      () => L,
      said,
      (t) => neutral(t).replace(/(stl|rec)_[A-Za-z0-9_-]+/g, '$1_…'),
    );
    const acct = ['--account', 'checking'];
    const finish = (date: string, balance: string) => [
      ...['reconcile', 'finish', ...acct],
      ...['--statement-date', date, '--statement-balance', balance],
    ];

    beforeAll(async () => {
      L = await fromTemplate(fixture, 'demo');
    }, 120_000);
    afterAll(() => L?.close());

    it('imports the January CSV (running balance checked, taken as closing) once, however often given', async () => {
      expect(await json(['reconcile', 'import', JAN, ...acct])).toEqual({
        imported: janRows.length,
        skipped: 0,
        start: '2025-01-01',
        end: '2025-01-31',
        closing_balance: JAN_BALANCE,
        skipped_zero: 0,
        columns: { read: ['Date', 'Description', 'Money In', 'Money Out', 'Balance'], ignored: [] },
      });
      const again = await json(['reconcile', 'import', JAN, ...acct]);
      expect([again.imported, again.skipped]).toEqual([0, janRows.length]);
    });

    it('refuses a statement whose balance chain breaks, naming the row, and imports nothing', async () => {
      const lines = readFileSync(JAN, 'utf8').split('\n');
      // A line left out: the next row's balance no longer follows from the row before it.
      const broken = [lines[0], ...lines.slice(1, 5), ...lines.slice(6)].join('\n');
      const file = join(tempDir(), 'broken.csv');
      writeFileSync(file, broken.replace(/^2025-01-/gm, '2025-03-'));
      await refused(
        ['reconcile', 'import', file, ...acct],
        1,
        `${file}:6:`,
        'balance_chain_broken',
      );
    });

    it('matches as many lines as a brute-force search finds, with the same least total of days', async () => {
      // The brute force reads the fixtures themselves: the statement's lines and the ledger's.
      const statement = janRows.map((l, k) => ({ id: `s${k}`, date: l.date, amount: l.amount }));
      const ledger = checking.map((l, k) => ({ id: `l${k}`, ...l }));
      const done = await json(['reconcile', 'match', ...acct]);
      const days = done.matched.reduce((s: number, m: { days: number }) => s + m.days, 0);
      expect([done.matched.length, days]).toEqual(bruteForce(statement, ledger, 7));
      // The lines left are the bank-only ones: a fee and interest.
      expect(
        done.unmatched_statement_lines.map((l: { description: string }) => l.description).sort(),
      ).toEqual(['INTEREST PAID', 'MONTHLY SERVICE FEE']);
    });

    it('takes a ledger line as JE-12:2 (JE number and line) wherever it takes a line id', async () => {
      const status = await json(['reconcile', 'status', ...acct]);
      const line = status.uncleared_lines[0];
      const named = `${line.je_number}:${/_(\d+)$/.exec(line.line_id)![1]}`;
      const ticked = await json(['reconcile', 'clear', ...acct, '--line', named]);
      expect(ticked).toEqual({ line_ids: [line.line_id], state: 'cleared' });
      const shown = await L.books(['je', 'show', line.je_number]);
      expect(shown.stdout).toMatch(/^ +Line +Account/m);
      const back = await json(['reconcile', 'clear', ...acct, '--line', named, '--unclear']);
      expect(back).toEqual({ line_ids: [line.line_id], state: 'uncleared' });
      await refused(
        ['reconcile', 'clear', ...acct, '--line', `${line.je_number}:99`],
        2,
        `${line.je_number} has`,
      );
      await refused(
        ['reconcile', 'clear', ...acct, '--line', 'JE-99999:1'],
        2,
        'no entry JE-99999',
      );
    });

    it('names, when it refuses to finish at a difference, the lines whose amounts make it', async () => {
      const at = finish('2025-01-31', (JAN_BALANCE / 100).toFixed(2));
      // The fee and the interest are on the statement and not yet in the books: together they are
      // the difference.
      await refused(
        at,
        1,
        'what would make the difference',
        'MONTHLY SERVICE FEE',
        'INTEREST PAID',
      );
      const r = await json(at, 1);
      expect(r.error.candidates).toHaveLength(1);
      expect(r.error.candidates[0]).toHaveLength(2);
    });

    it('posts the bank-only lines by rules in one run, and a second run posts nothing', async () => {
      const made = await json(['reconcile', 'create', ...acct, '--rules', RULES]);
      expect(made.created).toHaveLength(2);
      expect(made.left).toEqual([]);
      const again = await json(['reconcile', 'create', ...acct, '--rules', RULES]);
      expect(again.created).toEqual([]);
    });

    it('refuses to finish at a difference, saying it, and finishes at the statement balance', async () => {
      const wrong = ((JAN_BALANCE - 1) / 100).toFixed(2);
      await refused(finish('2025-01-31', wrong), 1, 'differs from the cleared balance', '0.01');
      const done = await json(finish('2025-01-31', (JAN_BALANCE / 100).toFixed(2)));
      expect(done.statement_balance_atoms).toBe(JAN_BALANCE);
    });

    it("reports January: the test's own sums, and book = cleared + outstanding − cleared after", async () => {
      const r = await json(['report', 'reconciliation', ...acct]);
      const book = bookThrough('2025-01-31', -1250 + 321);
      expect(r).toMatchObject({
        statement_date: '2025-01-31',
        status: 'finished',
        statement_balance: JAN_BALANCE,
        cleared_balance: JAN_BALANCE,
        difference: 0,
        book_balance: book,
      });
      const out = r.outstanding_debits.total + r.outstanding_credits.total;
      expect(out - r.cleared_after_date.total).toBe(book - JAN_BALANCE);
      // What the bank had not paid by the 31st: the sweep, and what went out on the last day.
      expect(r.outstanding_credits.lines.length).toBeGreaterThan(0);
      expect(r.outstanding_debits.total + r.outstanding_credits.total).toBe(
        r.outstanding_debits.lines
          .concat(r.outstanding_credits.lines)
          .reduce((s: number, l: { amount_atoms: number }) => s + l.amount_atoms, 0),
      );
    });

    it('refuses a new line dated in the finished month, naming its row', async () => {
      const file = join(tempDir(), 'late.csv');
      writeFileSync(
        file,
        'Date,Description,Amount\n2025-02-03,CARD,-5.00\n2025-01-15,LATE LINE,-7.00\n',
      );
      await refused(['reconcile', 'import', file, ...acct], 1, `${file}: row 3`, 'closed');
    });

    it('imports the February OFX with its closing balance and finishes at it by default', async () => {
      const summary = await json(['reconcile', 'import', FEB, ...acct]);
      expect(summary).toMatchObject({
        skipped: 0,
        closing_balance: FEB_BALANCE,
        end: '2025-02-28',
      });
      await json(['reconcile', 'match', ...acct]);
      await json(['reconcile', 'create', ...acct, '--rules', RULES]);
      const done = await json(['reconcile', 'finish', ...acct]);
      expect(done).toMatchObject({
        statement_date: '2025-02-28',
        statement_balance_atoms: FEB_BALANCE,
      });
      const r = await json(['report', 'reconciliation', ...acct]);
      const book = bookThrough('2025-02-28', 2 * -1250 + 321 + 298);
      expect([r.cleared_balance, r.book_balance, r.difference]).toEqual([FEB_BALANCE, book, 0]);
      expect(
        r.outstanding_debits.total + r.outstanding_credits.total - r.cleared_after_date.total,
      ).toBe(book - FEB_BALANCE);
      expect(
        (await json(['reconcile', 'list', ...acct])).map(
          (x: { statement_date: string }) => x.statement_date,
        ),
      ).toEqual(['2025-01-31', '2025-02-28']);
      expect(await L.check()).toEqual([]);
    });

    it('lists what is outstanding with report gl --uncleared (not offered by a remote profile)', async () => {
      const gl = [
        'report',
        'gl',
        '--account',
        'checking',
        '--start',
        '2025-01-01',
        '--end',
        '2025-02-28',
      ];
      const r = await L.books([...gl, '--uncleared', '--format', 'csv']);
      if (name === 'served') {
        expect([r.exitCode, r.stderr.includes('not offered')]).toEqual([2, true]);
        return;
      }
      expect(r.exitCode, r.stderr).toBe(0);
      const jes = r.stdout
        .split('\n')
        .filter((l) => l.includes(',line,'))
        .map((l) => l.split(',')[6]);
      // February's outstanding lines, none of the reconciled ones.
      expect(jes).toContain('JE-45');
      expect(jes).not.toContain('JE-1');
      const table = await L.books(gl);
      expect(table.stdout).toMatch(/JE-1 \*/);
    });

    it('exports reconciled postings so that hledger bal -C reads each statement balance', async () => {
      const out = join(tempDir(), 'books.journal');
      let r = await L.books(['export', 'hledger', '--output', out]);
      if (r.exitCode !== 0 && L.file) {
        // A remote profile offers no export: the ledger behind it is exported instead.
        expect(r.stderr).toContain('not offered');
        r = await books(['export', 'hledger', '--output', out, '--ledger', L.file]);
      }
      expect(r.exitCode, r.stderr).toBe(0);
      const bal = (end: string) =>
        execFileSync(
          'hledger',
          ['-f', out, 'bal', 'Operating Checking', '-C', '--end', end, '-O', 'csv'],
          {
            encoding: 'utf8',
          },
        );
      expect(bal('2025-02-01')).toContain((JAN_BALANCE / 100).toFixed(2));
      expect(bal('2025-03-01')).toContain((FEB_BALANCE / 100).toFixed(2));
    });

    it('refuses bad input with a clear error and its exit code, changing nothing', async () => {
      const file = join(tempDir(), 'signs.csv');
      writeFileSync(file, 'date,description,deposit,withdrawal\n2025-03-03,REFUND,-20.00,\n');
      await refused(['reconcile', 'import', JAN, '--account', 'nope'], 1, "no account 'nope'");
      await refused(['reconcile', 'match', '--account', 'sales'], 1, 'type income');
      await refused(['reconcile', 'status'], 2, '--account');
      await refused(['reconcile', 'import', file, ...acct], 1, `${file}:2`, 'wrong_sign');
      const open = await L.books(['reconcile', 'import', file.replace('signs', 'x'), ...acct]);
      expect(open.exitCode).toBe(2);
      // A statement line of March matched by hand with a line that does not add up to it.
      const march = join(tempDir(), 'march.csv');
      writeFileSync(march, 'date,description,amount\n2025-03-03,DEPOSIT,100.00\n');
      await json(['reconcile', 'import', march, ...acct]);
      const status = await json(['reconcile', 'status', ...acct]);
      const line = status.unmatched_statement_lines.find(
        (l: { date: string }) => l.date === '2025-03-03',
      );
      const other = status.uncleared_lines[0].line_id;
      await refused(
        ['reconcile', 'match', ...acct, '--statement-line', line.id, '--line', other],
        1,
        'a match must balance',
      );
      await refused(finish('2025-03-31', '1.00'), 1, 'cannot finish', 'unmatched');
      await refused(finish('2025-01-31', '1.00'), 1, 'must be later');
    });

    it('undoes the latest reconciliation only, and finishes it again', async () => {
      const list = await json(['reconcile', 'list', ...acct]);
      const undone = await json(['reconcile', 'undo', ...acct]);
      expect(undone.id).toBe(list[list.length - 1].id);
      expect(await json(['reconcile', 'list', ...acct])).toHaveLength(list.length - 1);
      const again = await json(finish('2025-02-28', (FEB_BALANCE / 100).toFixed(2)));
      expect(again.line_count).toBe(undone.line_count);
      expect(await L.check()).toEqual([]);
    });

    it('takes back an ignored line, refuses an offset that is the account itself, and an old finish', async () => {
      const status = await json(['reconcile', 'status', ...acct]);
      const march = status.unmatched_statement_lines.find(
        (l: { date: string }) => l.date === '2025-03-03',
      );
      await json(['reconcile', 'ignore', ...acct, '--statement-line', march.id]);
      const back = await json(['reconcile', 'unmatch', ...acct, '--statement-line', march.id]);
      expect(back.state).toBe('unmatched');
      // The account named by its number is still the account being reconciled.
      await refused(
        ['reconcile', 'create', ...acct, '--statement-line', march.id, '--offset', '1010'],
        1,
        'the account being reconciled',
      );
      // Without flags, finish takes the last statement's closing balance: February's, done already.
      await refused(['reconcile', 'finish', ...acct], 1, 'reconciled already');
    });

    it('leaves an entry and its reversal out of the outstanding lines, and ticks them together', async () => {
      // D0063 (7 March, counter sales) posted in error and reversed: it nets to zero.
      const march = ['report', 'reconciliation', ...acct, '--statement-date', '2025-03-31'];
      const before = await json(march);
      const sales = before.outstanding_debits.lines.find(
        (l: { memo: string }) => l.memo === 'Counter sales week 1',
      );
      const reversed = await L.books(['je', 'reverse', sales.je_number, '--format', 'json']);
      expect(reversed.exitCode, reversed.stderr).toBe(0);
      const reversal = JSON.parse(reversed.stdout);
      const report = await json(march);
      const pair = report.reversed_pairs.map((p: { je_number: string }[]) =>
        p.map((l) => l.je_number),
      );
      expect(pair).toEqual([[sales.je_number, reversal.je_number]]);
      const ids = (ls: { line_id: string }[]) => ls.map((l) => l.line_id);
      expect(ids(report.outstanding_debits.lines)).toEqual(
        ids(before.outstanding_debits.lines).filter((id: string) => id !== sales.line_id),
      );
      expect(ids(report.outstanding_credits.lines)).toEqual(ids(before.outstanding_credits.lines));
      expect(report.book_balance).toBe(before.book_balance - sales.amount_atoms);
      const shown = await L.books(march);
      expect(shown.stdout).toContain('Reversed, nets to zero (1)');
      // Ticking one ticks the other; unticking one unticks both.
      const ticked = await json(['reconcile', 'clear', ...acct, '--line', sales.line_id]);
      expect(ticked.line_ids).toEqual([sales.line_id, report.reversed_pairs[0][1].line_id]);
      const back = await json([
        'reconcile',
        'clear',
        ...acct,
        '--line',
        sales.line_id,
        '--unclear',
      ]);
      expect(back.line_ids).toEqual(ticked.line_ids);
      expect(await L.check()).toEqual([]);
    });
  },
);

afterAll(async () => {
  const [first, ...rest] = [...SAID.values()];
  for (const other of rest) expect(other).toEqual(first);
  // Every answer books serve gave (the served store's) fits the API's own description.
  expect(SEEN.some((r) => r.path.startsWith('/v1/reconciliation'))).toBe(true);
  expect(await conformance()).toBeGreaterThan(20);
});
