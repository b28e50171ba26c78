import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES as FILES } from '../support/helpers.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { sayings } from '../support/said.js';

/**
 * Statements as banks write them (docs/reconciliation.md, "Statements as banks really write them"): one small
 * file of our own per quirk, in fixtures/statements/, each read into the account it belongs to on
 * every store. A line is [date, amount in cents in the account's sign, words of its description].
 */
const DIR = join(FILES, 'statements');

type Line = [string, number, string?];
interface Case {
  file: string;
  account: string;
  /** Given once: the account remembers them, and the file imports again without them. */
  flags?: string[];
  lines: Line[];
  closing: number | null;
  skippedZero?: number;
  read?: string[];
  ignored?: string[];
}

const CASES: Record<string, Case> = {
  'a positive amount whose sign is a Transaction Type column (debit/credit)': {
    file: 'mint-direction.csv',
    account: 'checking',
    lines: [
      ['2025-03-02', -450, 'Coffee Shop'],
      ['2025-03-03', 120000, 'Payroll'],
      ['2025-03-15', -8217, 'Grocer'],
    ],
    closing: null,
  },
  "a card's posting date over its transaction date (30 March posted 1 April is April's)": {
    file: 'card-post-date.csv',
    account: 'card',
    flags: ['--negate'],
    lines: [
      ['2025-04-01', 3000, 'HARDWARE STORE'],
      ['2025-04-03', -50000, 'PAYMENT THANK YOU'],
      ['2025-04-07', 1299, 'BOOKSHOP'],
    ],
    closing: null,
    read: ['Post Date', 'Description', 'Amount', 'Memo'],
    ignored: ['Transaction Date', 'Category', 'Type'],
  },
  'a German export: Windows-1252, title lines, two-digit years, Soll/Haben, a 0,00 row': {
    file: 'giro-de.csv',
    account: 'giro',
    flags: ['--encoding', 'windows-1252'],
    lines: [
      ['2025-03-03', -1240, 'Bäckerei Müller Brötchen März'],
      ['2025-03-05', 119000, 'Kunde GmbH'],
      ['2025-03-31', -45000, 'Finanzamt'],
    ],
    closing: null,
    skippedZero: 1,
    read: ['Buchungstag', 'Auftraggeber/Empfänger', 'Verwendungszweck', 'Betrag (€)', 'Soll/Haben'],
    ignored: ['Valuta'],
  },
  'a French export: Latin-1, Débit/Crédit, day-first dates, its Solde the closing balance': {
    file: 'compte-fr.csv',
    account: 'compte',
    flags: ['--encoding', 'latin1'],
    lines: [
      ['2025-03-02', -8420, 'Prélèvement électricité'],
      ['2025-03-04', 25000, 'Café Étoile'],
      ['2025-03-06', -2315, 'Épicerie'],
    ],
    closing: 214265,
  },
  "a payment service's Net (Gross and Fee passed over), a pending row taken as written": {
    file: 'payments-net.csv',
    account: 'payments',
    lines: [
      ['2025-03-04', 9680, 'Ada Lovelace'],
      ['2025-03-09', -2000, 'Hosting Co'],
      ['2025-03-20', -15000, 'To bank'],
    ],
    closing: 2680,
    ignored: ['Time', 'TimeZone', 'Type', 'Status', 'Gross', 'Fee'],
  },
  'newest first, with $ and thousands separators, Check # and a Note': {
    file: 'checks-us.csv',
    account: 'savings',
    lines: [
      ['2025-03-03', 230000, 'OPENING TRANSFER'],
      ['2025-03-14', -6589, 'CHECK 1043 rent share'],
      ['2025-03-28', 123411, 'DEPOSIT'],
    ],
    closing: 346822,
  },
  'an OFX of CHARSET 1252 in CAD: 30.000, 3.77000, a -0 line, a BALAMT with a decimal comma': {
    file: 'cad-1252.ofx',
    account: 'cad-checking',
    lines: [
      ['2025-03-04', -2000, 'Paiement facture/Carte prépayée'],
      ['2025-03-12', 3000, 'Dépôt'],
      ['2025-03-18', -377, 'Frais'],
    ],
    closing: 100623,
    skippedZero: 1,
  },
  'OFX 2 with CDATA names and an empty LEDGERBAL (no closing balance)': {
    file: 'cdata-no-balance.ofx',
    account: 'checking',
    lines: [
      ['2025-03-05', -4200, 'Smith & Sons <Hardware>'],
      ['2025-03-06', 50000, 'Client payment INV 88'],
    ],
    closing: null,
  },
  "a card's OFX (CCSTMTRS), turned into the card's sign": {
    file: 'card.qfx',
    account: 'card',
    lines: [
      ['2025-03-03', 6150, 'OFFICE SUPPLY'],
      ['2025-03-20', -20000, 'PAYMENT RECEIVED'],
    ],
    closing: 31150,
  },
};

describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'statements as banks write them, on %s',
  (_name, fixture) => {
    let L: FixtureLedger;
    const said: string[] = [];
    const { json, refused } = sayings(
      () => L,
      said,
      (t) => t,
    );
    const path = (f: string) => join(DIR, f);
    beforeAll(async () => {
      L = await fromTemplate(fixture, 'statements');
    }, 120_000);
    afterAll(() => L?.close());

    /** The account's statement lines as the ledger keeps them, in date order. */
    const kept = async (account: string) => {
      const status = await json(['reconcile', 'status', '--account', account]);
      return (status.unmatched_statement_lines as Record<string, unknown>[]).map(
        (l) => [l.id, l.date, l.amount_atoms, l.description] as [string, string, number, string],
      );
    };

    it.each(Object.entries(CASES))('%s', async (_title, c) => {
      const before = new Set((await kept(c.account)).map((l) => l[0]));
      const args = ['reconcile', 'import', path(c.file), '--account', c.account];
      const r = await json([...args, ...(c.flags ?? [])]);
      const dates = c.lines.map((l) => l[0]).sort();
      expect(r).toMatchObject({
        imported: c.lines.length,
        skipped: 0,
        start: dates[0],
        end: dates[dates.length - 1],
        closing_balance: c.closing,
        skipped_zero: c.skippedZero ?? 0,
      });
      if (c.read) expect(r.columns.read).toEqual(c.read);
      if (c.ignored) expect(r.columns.ignored).toEqual(c.ignored);
      const now = (await kept(c.account)).filter((l) => !before.has(l[0]));
      expect(now.map(([, d, a]) => [d, a])).toEqual(c.lines.map(([d, a]) => [d, a]));
      now.forEach(([, , , description], i) => expect(description).toContain(c.lines[i]![2]));
      // Next month's file needs no flags: the account remembers them (a line read otherwise
      // would not be the same line, and would import again).
      const again = await json(args);
      expect([again.imported, again.skipped]).toEqual([0, c.lines.length]);
    });

    it("says an account's remembered layout, and forgets it", async () => {
      const shown = await json(['reconcile', 'layout', '--account', 'giro']);
      expect(shown.layout).toEqual({
        encoding: 'windows-1252',
        date_format: 'DMY',
        decimal_comma: true,
      });
      const forgot = await json(['reconcile', 'layout', '--account', 'giro', '--clear']);
      expect([forgot.layout, forgot.forgotten]).toEqual([null, shown.layout]);
      // Without it, the file is not UTF-8 and says so, naming the row and the flag.
      await refused(
        ['reconcile', 'import', path('giro-de.csv'), '--account', 'giro'],
        1,
        'giro-de.csv:5:',
        '--encoding',
      );
    });

    it("refuses a file of another bank account than the account's, until told it changed", async () => {
      // checking took cdata-no-balance.ofx's statements, of ACCTID 4455.
      const two = path('two-accounts.ofx');
      const args = ['reconcile', 'import', two, '--account', 'checking', '--ofx-account', '1001'];
      await refused(
        args,
        1,
        'statement is of account 1001',
        'account 4455',
        '--ofx-account-change',
      );
      expect((await json([...args, '--ofx-account-change'])).imported).toBe(1);
      const layout = await json(['reconcile', 'layout', '--account', 'checking']);
      expect(layout.statement_account).toEqual({ acctid: '1001', bankid: '121000248' });
      // The account's ACCTID picks its statement from the file of two.
      const again = await json(['reconcile', 'import', two, '--account', 'checking']);
      expect([again.imported, again.skipped]).toEqual([0, 1]);
    });

    it("refuses what is not the account's or not a bank statement, naming it; the ledger unchanged", async () => {
      const into = (file: string, account: string) => [
        'reconcile',
        'import',
        path(file),
        '--account',
        account,
      ];
      await refused(into('card.qfx', 'savings'), 1, 'card statement (CCSTMTRS)', 'bank account');
      await refused(into('cad-1252.ofx', 'savings'), 1, "in CAD and 'savings' is kept in USD");
      const conflict = await json(into('cad-1252.ofx', 'savings'), 1);
      expect(conflict.error.errors[0].reason).toBe('currency_conflict');
      await refused(into('investment.ofx', 'savings'), 1, 'investment statement (INVSTMTRS)');
      await refused(into('sub-cent.csv', 'savings'), 1, 'sub-cent.csv:2:', "'-3.775'", 'Amount');
      await refused(into('two-accounts.ofx', 'savings'), 1, '#1 1001 (bank), #2 2002 (bank)');
    });

    it('books check proves the ledger after every import', async () => {
      expect(await L.check()).toEqual([]);
    });
  },
);
