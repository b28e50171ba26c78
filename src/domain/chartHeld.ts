import type { ChartRow, ChartShape } from './chart.js';
import type { Problem } from './errors.js';
import { requiredCounterpartyType } from './accounts.js';
import { formatAmount } from './money.js';

type Add = (row: number, path: string, reason: string, message: string) => void;

/**
 * What the ledger's lines hold a chart's accounts to, as a file would change them: an account with
 * lines stays postable and keeps its currency; one with cleared lines keeps its type.
 */
export function heldChanges(
  rows: ChartRow[],
  existing: ChartShape[],
  exponent: number,
  functional: string | null,
): Problem[] {
  const out: Problem[] = [];
  const add: Add = (row, path, reason, message) => out.push({ row, path, reason, message });
  headersWithLines(rows, existing, exponent, add);
  currencyAndType(rows, existing, functional, add);
  return out;
}

/** Accounts made headers (not postable) by the file while the ledger holds lines on them. */
function headersWithLines(
  rows: ChartRow[],
  existing: ChartShape[],
  exponent: number,
  add: Add,
): void {
  const posted = new Map(existing.map((e) => [e.external_id, e.posted]));
  for (const r of rows) {
    const p = posted.get(r.external_id);
    if (r.is_postable || !p || p.lines === 0) continue;
    const lines = `${p.lines} line${p.lines === 1 ? '' : 's'}`;
    add(
      r.row,
      'is_postable',
      'account_has_lines',
      `'${r.external_id}' holds ${lines} with a balance of ${formatAmount(p.balance, exponent)}; ` +
        'an account with lines stays postable (make it inactive to stop new posts to it)',
    );
  }
}

/**
 * What an account's lines hold it to: its currency while it has lines (they are amounts in it); its
 * type while reconciliation has cleared lines of it (their cleared balance is read in the type's
 * sign, and a bank statement's lines would become a card's), and while it has lines whose
 * counterparty its type decides (a receivable's name customers, a payable's vendors).
 */
function currencyAndType(
  rows: ChartRow[],
  existing: ChartShape[],
  functional: string | null,
  add: Add,
): void {
  const stored = new Map(existing.map((e) => [e.external_id, e]));
  for (const r of rows) {
    const e = stored.get(r.external_id);
    if (!e) continue;
    if (e.cleared && r.account_type !== e.account_type)
      add(
        r.row,
        'account_type',
        'account_reconciled',
        `'${r.external_id}' has ${e.cleared} cleared line${e.cleared === 1 ? '' : 's'}: its type ` +
          `stays ${e.account_type} while reconciliation holds them (undo its reconciliations and ` +
          'matches first: books reconcile undo, unmatch, clear --unclear)',
      );
    const lines = `${e.posted?.lines} line${e.posted?.lines === 1 ? '' : 's'}`;
    const [demanded, demands] = [e.account_type, r.account_type].map(requiredCounterpartyType);
    const naming = (who: string | null | undefined) => (who ? `a ${who}` : 'no counterparty');
    if (!e.cleared && e.posted?.lines && demanded !== demands)
      add(
        r.row,
        'account_type',
        'account_has_lines',
        `'${r.external_id}' holds ${lines} naming ${naming(demanded)}: its type stays ` +
          `${e.account_type}, not ${r.account_type} (whose lines name ${naming(demands)})`,
      );
    const was = e.currency ?? functional;
    const now = r.currency ?? functional;
    if (e.posted?.lines && was !== now)
      add(
        r.row,
        'currency',
        'account_has_lines',
        `'${r.external_id}' holds ${lines} in ` +
          `${was ?? 'the functional currency'}: its currency stays (open another account for ${now})`,
      );
  }
}
