import { entryInvalid } from '../../domain/errors.js';
import { LAST_DATE } from '../../domain/dates.js';
import { OpenItems } from '../../domain/settlement.js';
import type { ReadTx, StoredEntry } from './store.js';

/**
 * An entry that opened a foreign receivable or payable is not reversed once a later line settled any
 * of it: the settlement was valued at its rate, and would be left valued at a rate no item has.
 */
export async function settledGuard(tx: ReadTx, original: StoredEntry): Promise<void> {
  const lines = original.lines.filter(
    (l) => l.fx && l.fx.amount_atoms > 0 && l.counterparty_type && l.counterparty_external_id,
  );
  if (!lines.length) return;
  const probe = {
    entry_date: LAST_DATE,
    lines: lines.map((l) => ({
      gl_account_id: l.gl_account_id,
      counterparty_type: l.counterparty_type,
      counterparty_external_id: l.counterparty_external_id,
      fx: { currency: l.fx!.currency, amount_atoms: 1 },
    })),
  };
  const facts = await tx.facts({ bodies: [probe], fingerprint: null });
  for (const l of lines) {
    const type = facts.lookups.accounts.get(l.gl_account_id)?.account_type;
    if (type !== 'accounts_receivable' && type !== 'accounts_payable') continue;
    const who = `${l.counterparty_type}\u0000${l.counterparty_external_id}`;
    const history = facts.lookups.fxHistory.get(`${l.gl_account_id}\u0000${who}\u0000${LAST_DATE}`);
    if (history && !OpenItems.of(history).untouched(original.seq))
      throw entryInvalid([
        {
          path: 'id',
          reason: 'settled',
          message:
            `${original.je_number} opened what ${l.counterparty_type} ${l.counterparty_external_id} owes on ` +
            `${l.gl_account_id}, and later entries settled it: reverse those first`,
        },
      ]);
  }
}
