import { FIRST_DATE, isIsoDate } from '../../domain/dates.js';
import { candidatesSaid, explainDifference, type Candidate } from '../../domain/difference.js';
import { BooksError } from '../../domain/errors.js';
import { formatAmount } from '../../domain/money.js';
import { jeLineOf, type Reconciliation } from '../../domain/reconcile.js';
import { finishRefusal } from '../../domain/reconcileFinish.js';
import { newId } from '../ids.js';
import type { ReconArgs } from './port.js';
import { accountLines, marksOf, reconAccount } from './lines.js';
import { invalid } from './match.js';
import { lastFinished, reconciliationOf } from './reports.js';
import type { Sums } from '../reports/reports.js';
import type { ReconciliationRow, ReconStore } from './store.js';

/** A finish refused at a difference: what the candidates that explain it are looked for with. */
class AtDifference extends BooksError {
  constructor(
    refusal: BooksError,
    readonly date: string,
    readonly difference: bigint,
    readonly exponent: number,
  ) {
    super(refusal.code, refusal.message, refusal.errors, refusal.details);
  }
}

/** Finishing a reconciliation: at a zero difference, or refused naming what would explain it. */
export class ReconFinishing {
  constructor(
    private readonly store: ReconStore,
    private readonly sums: Sums,
  ) {}

  async finish(
    a: ReconArgs & { statement_date?: string; statement_balance_atoms?: number },
  ): Promise<Reconciliation> {
    if (a.statement_date !== undefined && !isIsoDate(a.statement_date))
      throw invalid('statement_date', `'${String(a.statement_date)}' is not a date (YYYY-MM-DD)`);
    if (a.statement_balance_atoms !== undefined && !Number.isSafeInteger(a.statement_balance_atoms))
      throw invalid(
        'statement_balance_atoms',
        'statement_balance_atoms is a whole number of atoms',
      );
    try {
      return await this.finishWrite(a);
    } catch (e) {
      if (!(e instanceof AtDifference)) throw e;
      // Said after the write gave up its lock: the lines that would explain the difference.
      const found = await this.differenceCandidates(a.account, e.date, e.difference);
      const money = (x: number) => formatAmount(x, e.exponent);
      throw new BooksError(e.code, e.message + candidatesSaid(found, money), e.errors, {
        ...e.details,
        candidates: [
          ...found.singles.map((c) => [c.name]),
          ...found.pairs.map(([x, y]) => [x.name, y.name]),
        ],
      });
    }
  }

  private finishWrite(
    a: ReconArgs & { statement_date?: string; statement_balance_atoms?: number },
  ): Promise<Reconciliation> {
    return this.store.write(async (tx) => {
      const acct = await reconAccount(tx, a.account);
      const closing = await tx.recon.closing(acct.key);
      const date = a.statement_date ?? closing?.date;
      const balance =
        a.statement_balance_atoms ??
        (closing && closing.date === date ? closing.balance_atoms : undefined);
      const last = await lastFinished(tx.recon, acct);
      const open = (await tx.recon.statementLines(acct.key)).filter(
        (l) => l.state === 'unmatched' && date !== undefined && l.line_date <= date,
      );
      const cleared =
        date === undefined ? 0n : (await tx.recon.clearedThrough(acct.key, date)).total;
      const facts = {
        date,
        balance,
        dateGiven: a.statement_date !== undefined,
        last,
        open,
        cleared,
      };
      const refusal = finishRefusal({ ...facts, exponent: acct.exponent });
      if (refusal === 'again') return reconciliationOf(acct, last!);
      if (refusal?.errors[0]?.reason === 'difference')
        throw new AtDifference(refusal, date!, BigInt(balance!) - cleared, acct.exponent);
      if (refusal) throw refusal;
      const row: ReconciliationRow = {
        id: newId('rec'),
        account_key: acct.key,
        statement_date: date!,
        statement_balance_atoms: balance!,
        line_count: 0,
        finished_at: this.store.now().toISOString(),
      };
      row.line_count = await tx.recon.finish(row);
      tx.event.name(
        'reconcile.finished',
        [acct.external_id, row.id],
        `${acct.external_id}: reconciled through ${row.statement_date}, ${row.line_count} lines`,
      );
      return reconciliationOf(acct, row);
    });
  }

  /** Uncleared ledger lines and unmatched statement lines through a date, as candidates. */
  private async differenceCandidates(account: string, date: string, difference: bigint) {
    const seen = await this.store.read(async (tx) => {
      const acct = await reconAccount(tx, account);
      const open = (await tx.recon.statementLines(acct.key)).filter(
        (l) => l.state === 'unmatched' && l.line_date <= date,
      );
      return { acct, open, marks: await marksOf(tx.recon, acct, FIRST_DATE, date) };
    });
    const items: Candidate[] = seen.open.map((l) => ({
      name: l.id,
      kind: 'statement',
      date: l.line_date,
      amount_atoms: l.amount_atoms,
      description: l.description,
    }));
    for await (const batch of accountLines(this.sums, seen.marks, seen.acct, FIRST_DATE, date))
      for (const l of batch)
        if (l.state === 'uncleared')
          items.push({
            name: jeLineOf(l),
            kind: 'ledger',
            date: l.entry_date,
            amount_atoms: l.amount_atoms,
            description: l.memo ?? l.line_memo,
          });
    return explainDifference(difference, items);
  }
}
