import { BooksError, type Problem } from '../../domain/errors.js';
import { toJsonInteger } from '../../domain/money.js';
import { convert, rateOf } from '../../domain/fx.js';
import { reconcileRefused } from '../../domain/reconcile.js';
import type { CreateRule, ReconcileOps } from './port.js';
import { statementLine, type ReconAccount } from './lines.js';
import type { ReconReads, StatementLineRow } from './store.js';

/** A rule ready to apply: its pattern compiled, its counterparty read. */
export interface Rule {
  row: number;
  /** The rule's pattern as given (null for a run on one statement line, which needs none). */
  pattern: string | null;
  offset: string;
  counterparty: { type: string; external_id: string } | null;
  memo: string | null;
}

type CreateArgs = Parameters<ReconcileOps['create']>[0];

/** `TYPE:ID` (customer:acme) as a line names a counterparty. */
function counterpartyOf(text: unknown, path: string, problems: Problem[], row?: number) {
  if (text === undefined || text === null || text === '') return null;
  const m = typeof text === 'string' ? /^(customer|vendor|employee):(.+)$/.exec(text.trim()) : null;
  if (m) return { type: m[1]!, external_id: m[2]! };
  const where = row !== undefined ? `rule row ${row}: ` : '';
  problems.push({
    path,
    reason: 'invalid_counterparty',
    message: `${where}'${String(text)}' is not TYPE:ID (customer, vendor or employee, then its external id)`,
  });
  return null;
}

/** The longest pattern a rule may have. */
const MAX_PATTERN = 200;

/**
 * Why a regular expression could take time exponential in a description's length (a group that
 * holds a repetition or an alternative, itself repeated: `(a+)+`, `(a|a)*`; a back-reference), or
 * null. Rules run on a server for whoever holds a key, so such a pattern is refused, not tried.
 */
export function slowPattern(source: string): string | null {
  if (source.length > MAX_PATTERN) return `a pattern has at most ${MAX_PATTERN} characters`;
  if (/\\[1-9]|\\k</.test(source)) return 'a back-reference can make matching take forever';
  const groups: { risky: boolean }[] = [];
  let risky = false;
  // Repetitions in a row multiply (`.*.*.*.*x` is n⁴ on a line of n characters): three at most.
  const unbounded = source.replace(/\\.|\[(?:\\.|[^\]])*\]/g, 'x').match(/[*+]|\{\d+,\}/g);
  if ((unbounded?.length ?? 0) > 3) return 'a pattern has at most three repetitions (* + {n,})';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
      continue;
    }
    if (c === '(') groups.push({ risky: false });
    else if (c === '|' && groups.length) groups[groups.length - 1]!.risky = true;
    else if ('*+?{'.includes(c) && groups.length) groups[groups.length - 1]!.risky = true;
    else if (c === ')') {
      const g = groups.pop();
      const next = source[i + 1] ?? '';
      risky = Boolean(g?.risky);
      if (risky && next !== '' && '*+{'.includes(next))
        return 'a repeated group that itself repeats or has alternatives can make matching take forever';
      if (risky && groups.length) groups[groups.length - 1]!.risky = true;
    }
  }
  return null;
}

/**
 * A pattern: `/regex/flags` (any flags but g and y, which would carry a position from one line to
 * the next), or text found in the description whatever its case.
 */
export function testOf(pattern: string): (d: string) => boolean {
  const re = /^\/(.+)\/([a-z]*)$/.exec(pattern);
  if (re) {
    const slow = slowPattern(re[1]!);
    if (slow) throw new Error(slow);
    const compiled = new RegExp(re[1]!, re[2]!.replace(/[gy]/g, ''));
    return (d) => compiled.test(d);
  }
  const needle = pattern.toLowerCase();
  return (d) => d.toLowerCase().includes(needle);
}

/**
 * The rules of a run: one line's offset (given with `statement_line_id`), or the rules a file gives,
 * each checked (pattern, offset account, counterparty) and named by its row when wrong.
 */
export function ruleSet(a: CreateArgs): Rule[] {
  const problems: Problem[] = [];
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  if (a.statement_line_id !== undefined) {
    if (a.rules !== undefined) throw usage('give statement_line_id or rules, not both');
    const offset = text(a.offset_account);
    if (!offset) throw usage('offset_account is required with statement_line_id');
    const counterparty = counterpartyOf(a.counterparty, 'counterparty', problems);
    if (problems.length) throw invalidRules(problems);
    return [{ row: 0, pattern: null, offset, counterparty, memo: text(a.memo) }];
  }
  if (!Array.isArray(a.rules) || a.rules.length === 0)
    throw usage('give statement_line_id with offset_account, or a non-empty list of rules');
  const rules = (a.rules as CreateRule[]).map((r, i): Rule | null => {
    const row = Number.isSafeInteger(r?.row) ? r.row! : i + 1;
    const pattern = text(r?.pattern);
    const offset = text(r?.offset_account);
    if (!pattern || !offset) {
      problems.push({
        path: `rules[${i}].${pattern ? 'offset_account' : 'pattern'}`,
        reason: 'required',
        message: `rule row ${row}: a rule needs a ${pattern ? 'offset_account' : 'pattern'}`,
      });
      return null;
    }
    try {
      testOf(pattern);
    } catch (e) {
      problems.push({
        path: `rules[${i}].pattern`,
        reason: 'invalid_pattern',
        message: `rule row ${row}: '${pattern}' cannot be used: ${(e as Error).message}`,
      });
      return null;
    }
    const counterparty = counterpartyOf(r.counterparty, `rules[${i}].counterparty`, problems, row);
    return { row, pattern, offset, counterparty, memo: text(r.memo) };
  });
  if (problems.length) throw invalidRules(problems);
  return rules as Rule[];
}

const usage = (message: string) =>
  new BooksError('invalid_parameters', message, [
    { path: 'rules', reason: 'invalid_parameter', message },
  ]);

function invalidRules(problems: Problem[]): BooksError {
  const message =
    problems.length === 1
      ? problems[0]!.message
      : `${problems.length} problems in the rules; nothing was posted`;
  return new BooksError('invalid_input', message, problems);
}

/**
 * The statement lines a run posts for, each with the rule that applies, and those left: for rules,
 * the account's unmatched lines as `ruled` found them (read before the lock; a line matched since is
 * passed over, one imported since is left for the next run).
 */
export async function createTargets(
  recon: ReconReads,
  acct: ReconAccount,
  a: CreateArgs,
  rules: Rule[],
  ruled: Map<string, number>,
): Promise<{ apply: { line: StatementLineRow; rule: Rule }[]; left: string[] }> {
  if (a.statement_line_id !== undefined) {
    const line = await statementLine(recon, acct, a.statement_line_id);
    if (line.state !== 'unmatched')
      throw reconcileRefused(
        `statement line ${line.id} is ${line.state}; an entry is created for an unmatched line only`,
        'statement_line_id',
        'not_unmatched',
      );
    return { apply: [{ line, rule: rules[0]! }], left: [] };
  }
  const apply: { line: StatementLineRow; rule: Rule }[] = [];
  const left: string[] = [];
  for (const line of await recon.statementLines(acct.key)) {
    if (line.state !== 'unmatched') continue;
    const rule = rules[ruled.get(line.id) ?? -1];
    if (rule) apply.push({ line, rule });
    else left.push(line.id);
  }
  return { apply, left };
}

/**
 * The entry for a bank-only line: dated the line's date, between the account and the rule's offset
 * account, the account's line first (so that it is the line matched).
 */
export function entryBody(
  acct: ReconAccount,
  line: StatementLineRow,
  rule: Rule,
  /** A foreign account's rate for the line's date (the rate table's): the offset's amount is its conversion. */
  rate?: { text: string; functional: string },
): unknown {
  if (rule.offset === acct.external_id || rule.offset === acct.account_number)
    throw reconcileRefused(
      `the offset account is the account being reconciled ('${acct.external_id}')`,
      'offset_account',
      'same_account',
    );
  const debitNet = acct.sign * line.amount_atoms;
  const [own, other] = debitNet > 0 ? ['debit', 'credit'] : ['credit', 'debit'];
  const amount = Math.abs(line.amount_atoms);
  // Exact: past 2^53 − 1 atoms it stays a bigint, which the entry's rules then refuse by name.
  const functional = rate
    ? toJsonInteger(convert(amount, rateOf(rate.text), acct.currency, rate.functional))
    : amount;
  const fx = rate ? { fx: { currency: acct.currency, amount_atoms: amount, rate: rate.text } } : {};
  return {
    entry_date: line.line_date,
    memo: rule.memo ?? line.description ?? 'Bank statement line',
    lines: [
      { gl_account_id: acct.external_id, line_type: own, amount_atoms: functional, ...fx },
      {
        gl_account_id: rule.offset,
        line_type: other,
        amount_atoms: functional,
        ...(rule.counterparty
          ? {
              counterparty_type: rule.counterparty.type,
              counterparty_external_id: rule.counterparty.external_id,
            }
          : {}),
      },
    ],
  };
}
