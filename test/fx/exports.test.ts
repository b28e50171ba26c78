import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { tempDir } from '../support/ledgers.js';
import { books } from '../support/helpers.js';
import { requireTool } from '../support/tools.js';
import { okOn } from './fxLedger.js';

/**
 * Case 6 of docs/currency.md: a journal in several currencies, exported, is read by hledger --strict
 * and bean-check, and both give at cost the functional balances books gives. A served ledger's
 * journal (posted over HTTP: the API lists no journal) is exported from the server's own file.
 */
describe.each(FIXTURES.map((f) => [f.name, f] as const))(
  'exports of foreign currencies on %s',
  (_n, fixture) => {
    let L: FixtureLedger;
    const dir = tempDir();

    beforeAll(async () => {
      L = await fromTemplate(fixture, 'fx');
      const post = (date: string, ...flags: string[]) =>
        okOn(L)('je', 'post', '--date', date, ...flags);
      await post(
        '2025-01-03',
        '--debit',
        'eur-bank=EUR 5000.00 @@ 5450.00',
        '--credit',
        'capital=5450',
      );
      await post(
        '2025-01-04',
        '--debit',
        'ar-eur=EUR 500.00 @ 1.10@customer:C001',
        '--credit',
        'sales=550',
      );
      await post(
        '2025-01-05',
        '--debit',
        'ar-eur=EUR 500.00 @ 1.20@customer:C001',
        '--credit',
        'sales=600',
      );
      await post(
        '2025-01-20',
        '--debit',
        'eur-bank=EUR 700.00 @ 1.15',
        '--credit',
        'ar-eur=EUR 700.00@customer:C001',
      );
      await post(
        '2025-01-21',
        '--debit',
        'rent=1270',
        '--credit',
        'ap-gbp=GBP 1000.00 @ 1.27@vendor:V001',
      );
      await post(
        '2025-01-22',
        '--debit',
        'jpy-bank=JPY 12345 @ 0.0067',
        '--credit',
        'kwd-bank=KWD 0.010 @@ 0.03',
        '--credit',
        'capital=82.68',
      );
      await post(
        '2025-01-23',
        '--debit',
        'checking=1120.00',
        '--credit',
        'eur-bank=EUR 1000.00 @@ 1120.00',
      );
      const r = await L.books(['fx', 'revalue', '--as-of', '2025-01-31']);
      expect(r.exitCode, r.stderr).toBe(0);
    }, 120_000);
    afterAll(async () => L?.close());

    /** books's balances by account external id at a date (debit positive), from its trial balance. */
    const booksBalances = async (asOf: string) => {
      const accounts = JSON.parse((await L.books(['accounts', 'list', '--format', 'json'])).stdout)
        .data as {
        id: string;
        external_id: string;
      }[];
      const external = new Map(accounts.map((a) => [a.id, a.external_id]));
      const tb = JSON.parse(
        (await L.books(['report', 'trial-balance', '--as-of', asOf, '--format', 'json'])).stdout,
      );
      const out: Record<string, string> = {};
      for (const r of tb.rows) {
        const net = (r.debit ?? 0) - (r.credit ?? 0);
        if (net !== 0) out[external.get(r.account_id)!] = (net / 100).toFixed(2);
      }
      return out;
    };

    const exported = async (peer: 'hledger' | 'beancount') => {
      const file = join(dir, `${fixture.name}.${peer}`);
      const args = ['export', peer, '--output', file];
      const r =
        L.file && fixture.name === 'served'
          ? await books([...args, '--ledger', L.file])
          : await L.books(args);
      expect(r.exitCode, r.stderr).toBe(0);
      return file;
    };

    /** The peer's account names mapped to books's external ids, from the export's declarations. */
    const idsOf = (text: string) => {
      const ids = new Map<string, string>();
      for (const m of text.matchAll(/^account (.+?) {2}; .*books_id: ([^,\n]+)/gm))
        ids.set(m[1]!, m[2]!.trim());
      for (const m of text.matchAll(/^\d{4}-\d\d-\d\d open (\S+) .*\n {2}books_id: "([^"]+)"/gm))
        ids.set(m[1]!, m[2]!);
      return ids;
    };

    it('hledger --strict reads it, and its balances at cost are books’s', async () => {
      const hledger = requireTool('hledger', 'apt-get install hledger');
      for (const asOf of ['2025-01-31', '2025-02-01']) {
        const file = await exported('hledger');
        const ids = idsOf(readFileSync(file, 'utf8'));
        const end = new Date(Date.parse(`${asOf}T00:00:00Z`) + 86_400_000)
          .toISOString()
          .slice(0, 10);
        const csv = execFileSync(
          hledger,
          ['-f', file, '--strict', 'bal', '-B', '-e', end, '-O', 'csv'],
          {
            encoding: 'utf8',
          },
        );
        const theirs: Record<string, string> = {};
        for (const line of csv.trim().split('\n').slice(1)) {
          const [name, balance] = JSON.parse(`[${line}]`) as [string, string];
          if (name === 'total') continue;
          theirs[ids.get(name)!] = balance.replace(/ USD$/, '');
        }
        expect(theirs).toEqual(await booksBalances(asOf));
      }
    });

    it('bean-check reads it, and bean-query’s balances at cost (weights) are books’s', async () => {
      const beanCheck = requireTool('bean-check', 'apt-get install beancount');
      const beanQuery = requireTool('bean-query', 'apt-get install beancount');
      const file = await exported('beancount');
      execFileSync(beanCheck, [file]);
      const ids = idsOf(readFileSync(file, 'utf8'));
      for (const asOf of ['2025-01-31', '2025-02-01']) {
        const csv = execFileSync(
          beanQuery,
          [
            '-f',
            'csv',
            file,
            `SELECT account, str(sum(number(weight))) AS w WHERE date <= ${asOf} GROUP BY account ORDER BY account`,
          ],
          { encoding: 'utf8' },
        );
        const theirs: Record<string, string> = {};
        for (const line of csv.trim().split('\n').slice(1)) {
          const [name, w] = line.split(',').map((c) => c.trim()) as [string, string];
          // Beancount divides a total price (@@) into a price per unit of 28 digits: a weight is then
          // exact to 10^-25, and the same cents once rounded to them (half to even).
          const cents = centsOf(/Decimal\('([^']*)'\)/.exec(w)?.[1] ?? '0');
          if (cents !== 0n) theirs[ids.get(name)!] = (Number(cents) / 100).toFixed(2);
        }
        expect(theirs).toEqual(await booksBalances(asOf));
      }
    });
  },
);

/** A decimal text rounded half to even to whole cents. */
function centsOf(text: string): bigint {
  const neg = text.startsWith('-');
  const [whole, frac = ''] = (neg ? text.slice(1) : text).split('.');
  const digits = BigInt(whole! + frac.padEnd(2, '0').slice(0, 2));
  const rest = frac.slice(2);
  const half =
    rest === ''
      ? 0
      : rest[0]! > '5' || (rest[0] === '5' && /[1-9]/.test(rest.slice(1)))
        ? 1
        : rest[0] === '5'
          ? 0.5
          : 0;
  const up = half === 1 || (half === 0.5 && digits % 2n === 1n) ? 1n : 0n;
  return (neg ? -1n : 1n) * (digits + up);
}
