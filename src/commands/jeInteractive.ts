import type { Context } from '../cli/context.js';
import type { Choice } from '../cli/prompter.js';
import { requiredCounterpartyType, type GlAccount } from '../domain/accounts.js';
import { isIsoDate, localDate } from '../domain/dates.js';
import { isBooksError } from '../domain/errors.js';
import { formatAmount, MAX_ATOMS, parseDecimal } from '../domain/money.js';
import type { Ledger } from '../ledger/port.js';
import { entryText } from '../render/entry.js';
import type { JePostOptions } from './jePost.js';

type Line = {
  gl_account_id: string;
  line_type: 'debit' | 'credit';
  amount_atoms: number;
  counterparty_type?: string;
  counterparty_external_id?: string;
};

const FINISH = Symbol('finish');
const CANCEL = Symbol('cancel');
const REMOVE = Symbol('remove');

/**
 * Builds an entry at the terminal: account search over the chart, running debit/credit totals after
 * each line, the ledger's own validation before the final confirmation. Returns the request body, or
 * null when the user declines to post.
 */
export async function interactiveEntry(
  ctx: Context,
  ledger: Ledger,
  opts: JePostOptions,
  exponent: number,
  key: string,
): Promise<unknown> {
  const p = await ctx.prompter();
  const accounts = (await ledger.accounts()).filter((a) => a.is_active && a.is_postable);
  const counterparties =
    ledger.kind === 'local' ? await (await ctx.local('counterparty search')).counterparties() : [];
  const byExt = new Map(accounts.map((a) => [a.external_id, a]));
  const money = (n: bigint | number) => formatAmount(n, exponent);

  const date = await p.input('Entry date', {
    default: opts.date ?? localDate(ctx.now()),
    validate: (v) => (isIsoDate(v) ? true : 'a date as YYYY-MM-DD'),
  });
  const memo = opts.memo ?? (await p.input('Memo (optional)'));
  const lines: Line[] = [];
  const totals = () => {
    const d = lines
      .filter((l) => l.line_type === 'debit')
      .reduce((s, l) => s + BigInt(l.amount_atoms), 0n);
    const c = lines
      .filter((l) => l.line_type === 'credit')
      .reduce((s, l) => s + BigInt(l.amount_atoms), 0n);
    return { d, c };
  };

  for (;;) {
    const { d, c } = totals();
    if (lines.length)
      ctx.err(
        `  debits ${money(d)}   credits ${money(c)}   ${d === c ? 'balanced' : `out of balance by ${money(d > c ? d - c : c - d)}`}`,
      );
    const ready = lines.length >= 2 && d === c;
    const picked = await p.search<GlAccount | symbol>(
      ready
        ? 'Account for the next line (or finish)'
        : 'Account (type to search by number or name)',
      (term) => {
        const t = term.toLowerCase();
        const hits: Choice<GlAccount | symbol>[] = accounts
          .filter(
            (a) =>
              !t ||
              `${a.account_number ?? ''} ${a.name} ${a.external_id}`.toLowerCase().includes(t),
          )
          .slice(0, 50)
          .map((a) => ({
            name: `${a.account_number ?? a.external_id}  ${a.name}`,
            value: a,
            description: a.account_type,
          }));
        const extra: Choice<GlAccount | symbol>[] = [];
        if (ready) extra.push({ name: '✓ Finish and review', value: FINISH });
        if (lines.length) extra.push({ name: '− Remove the last line', value: REMOVE });
        extra.push({ name: '✗ Cancel', value: CANCEL });
        return [...(ready ? extra : []), ...hits, ...(ready ? [] : extra)];
      },
    );
    if (picked === CANCEL) throw Object.assign(new Error('cancelled'), { name: 'ExitPromptError' });
    if (picked === REMOVE) {
      lines.pop();
      continue;
    }
    if (picked === FINISH) {
      const body = {
        entry_date: date,
        lines,
        ...(memo ? { memo } : {}),
        ...(opts.jeNumber ? { je_number: opts.jeNumber } : {}),
        ...(opts.adjusting ? { is_adjusting: true } : {}),
        ...(opts.reason ? { manual_entry_reason: opts.reason } : {}),
      };
      try {
        // The same validation the API runs, before asking to post (a remote service has no dry run).
        if (ledger.kind === 'local')
          ctx.err(
            entryText(
              await ledger.post(body, { idempotencyKey: key, dryRun: true }),
              exponent,
              'Ready to post ',
            ),
          );
      } catch (e) {
        if (!isBooksError(e)) throw e;
        ctx.err(`error ${e.code}: ${e.message}`);
        for (const pr of e.errors) ctx.err(`  ${pr.path}: ${pr.message}`);
        continue;
      }
      if (await p.confirm('Post this entry?', true)) return body;
      ctx.err('Not posted.');
      return null;
    }
    const account = picked as GlAccount;
    const suggested = d === c ? 'debit' : d > c ? 'credit' : 'debit';
    const sides: Choice<'debit' | 'credit'>[] = [
      { name: 'Debit', value: 'debit' },
      { name: 'Credit', value: 'credit' },
    ];
    const side = await p.select(
      `${account.name}: debit or credit?`,
      suggested === 'debit' ? sides : sides.reverse(),
    );
    const gap = d > c ? d - c : c - d;
    const amountText = await p.input('Amount', {
      ...(gap > 0n ? { default: money(gap) } : {}),
      validate: (v) => {
        const r = parseDecimal(v, exponent);
        if (!r.ok) return r.message;
        return r.atoms >= 1n && r.atoms <= BigInt(MAX_ATOMS) ? true : 'the amount must be positive';
      },
    });
    const parsed = parseDecimal(amountText, exponent);
    const line: Line = {
      gl_account_id: account.external_id,
      line_type: side,
      amount_atoms: parsed.ok ? Number(parsed.atoms) : 0,
    };
    const needed = requiredCounterpartyType(byExt.get(account.external_id)!.account_type);
    if (needed) {
      const options = counterparties.filter(
        (cp) => cp.counterparty_type === needed && cp.is_active,
      );
      line.counterparty_type = needed;
      line.counterparty_external_id = options.length
        ? await p.search<string>(`${needed === 'customer' ? 'Customer' : 'Vendor'}`, (term) =>
            options
              .filter((cp) =>
                `${cp.external_id} ${cp.name}`.toLowerCase().includes(term.toLowerCase()),
              )
              .map((cp) => ({ name: `${cp.external_id}  ${cp.name}`, value: cp.external_id })),
          )
        : await p.input(`${needed} external id`);
    }
    lines.push(line);
  }
}
