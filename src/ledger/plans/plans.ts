import { budgetProblems, type BudgetRow } from '../../domain/budget.js';
import { FIRST_DATE, isIsoDate } from '../../domain/dates.js';
import { BooksError, entryInvalid, errors, isBooksError, refusal } from '../../domain/errors.js';
import { dateBar } from '../../domain/entityRules.js';
import type { JournalEntry } from '../../domain/entry.js';
import { isObj } from '../../domain/rules.js';
import { toJson } from '../../domain/json.js';
import {
  checkTemplate,
  occurrenceFingerprint,
  occurrenceKey,
  MAX_RUN_OCCURRENCES,
  occurrenceDates,
  tooManyOccurrences,
  type RecurringTemplate,
} from '../../domain/recurring.js';
import { validateEntry } from '../../domain/validation.js';
import { contextOf } from '../../domain/posting.js';
import type { JournalFromStore } from '../journal/journal.js';
import type { BudgetOps, RecurringOps, RecurringRun } from './port.js';
import type { ImportCounts } from '../books/port.js';
import type { Sums } from '../reports/reports.js';
import type { PlanReadTx, PlanStore, PlanWriteTx } from './store.js';

/** What an account reference names, read as an entry's lines name it (external id, else number). */
async function accountKeys(tx: PlanReadTx, refs: string[]) {
  const body = { lines: refs.map((r) => ({ gl_account_id: r })) };
  const facts = await tx.facts({ bodies: [body], fingerprint: null });
  return (ref: string) => facts.lookups.accounts.get(ref);
}

/** Budgets on every store: cells set by import, read back as the import file has them. */
export class BudgetsFromStore implements BudgetOps {
  constructor(
    private readonly store: PlanStore,
    private readonly sums: Sums,
  ) {}

  async import(a: { rows: unknown }): Promise<ImportCounts> {
    if (!Array.isArray(a.rows) || !a.rows.every(isObj))
      throw refusal('invalid_input', [
        { path: 'rows', reason: 'invalid_body', message: 'rows is a list of budget cells' },
      ]);
    const rows = (a.rows as Record<string, unknown>[]).map((r, i) => ({
      row: typeof r.row === 'number' ? r.row : i + 1,
      gl_account_id: r.gl_account_id,
      period: r.period,
      amount_atoms: r.amount_atoms,
    }));
    return this.store.write(async (tx) => {
      const refs = rows.map((r) =>
        typeof r.gl_account_id === 'string' ? r.gl_account_id.trim() : '',
      );
      const account = await accountKeys(tx, refs.filter(Boolean));
      const problems = budgetProblems(rows, account);
      if (problems.length) throw refusal('invalid_input', problems);
      const had = new Map(
        (await tx.plans.budgetRows()).map((r) => [
          `${r.account_key}\u0000${r.period}`,
          r.amount_atoms,
        ]),
      );
      const counts = { created: 0, updated: 0, unchanged: 0 };
      const cells = rows.map((r, i) => ({
        account_key: account(refs[i]!)!.key,
        period: (r.period as string).trim(),
        amount_atoms: r.amount_atoms as number,
      }));
      for (const c of cells) {
        const before = had.get(`${c.account_key}\u0000${c.period}`);
        if (before === undefined) counts.created++;
        else if (before === c.amount_atoms) counts.unchanged++;
        else counts.updated++;
      }
      await tx.plans.setBudgets(cells);
      if (counts.created + counts.updated > 0)
        tx.event.name(
          'budgets.imported',
          [...new Set(refs)].slice(0, 20),
          `budget cells: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged`,
        );
      return counts;
    });
  }

  async list(): Promise<BudgetRow[]> {
    const [rows, s] = await Promise.all([
      this.store.read((tx) => tx.plans.budgetRows()),
      this.sums.snapshot(() => [FIRST_DATE]),
    ]);
    const byKey = new Map(s.accounts.map((a) => [a.key, a]));
    const ext = (key: number) => byKey.get(key)?.external_id ?? String(key);
    return rows
      .map((r) => ({
        gl_account_id: ext(r.account_key),
        period: r.period,
        amount_atoms: r.amount_atoms,
      }))
      .sort((x, y) => cmp(x.gl_account_id, y.gl_account_id) || cmp(x.period, y.period));
  }
}

/** Two templates that say the same (the entry compared as JSON: keys in the order given). */
function sameTemplate(a: RecurringTemplate, b: Omit<RecurringTemplate, 'created_at'>): boolean {
  const { created_at: _c, ...rest } = a;
  return toJson(rest) === toJson({ ...b });
}

const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/**
 * Recurring entries on every store: templates kept in the ledger, and runs that post each due
 * occurrence once. An occurrence posts with a fingerprint made of its template's name and date, so
 * that a second run (or one running at the same moment, or one after a kill) finds it posted.
 */
export class RecurringFromStore implements RecurringOps {
  constructor(
    private readonly store: PlanStore,
    private readonly journal: JournalFromStore,
  ) {}

  async add(raw: unknown): Promise<RecurringTemplate> {
    const checked = checkTemplate(raw);
    if ('problems' in checked) {
      // What is wrong inside the entry is the entry's (data, as a posted entry's would be).
      const ofEntry = checked.problems.every((p) => p.path.startsWith('entry'));
      if (ofEntry) throw entryInvalid(checked.problems);
      throw refusal('invalid_parameters', checked.problems);
    }
    const t = checked.template;
    return this.store.write(async (tx) => {
      const had = (await tx.plans.templates()).find((x) => x.name === t.name);
      // The same template asked for again (a retry after a lost answer) is the one there.
      if (had && sameTemplate(had, t)) return had;
      if (had)
        throw refusal('invalid_input', [
          {
            path: 'name',
            reason: 'already_exists',
            message: `a recurring entry named '${t.name}' exists`,
          },
        ]);
      // The entry is checked now, by every rule but its date's (each occurrence's is checked as it posts).
      const body = { ...t.entry, entry_date: t.start_date };
      const facts = await tx.facts({ bodies: [body], fingerprint: null });
      const result = validateEntry(body, contextOf(facts.entity, facts.lookups));
      const problems = result.problems.filter((p) => p.path !== 'entry_date');
      if (problems.length)
        throw new BooksError(
          'CAPI33',
          problems.map((p) => p.message).join('; '),
          problems.map((p) => ({ ...p, path: `entry.${p.path}` })),
        );
      const template = { ...t, created_at: this.store.now().toISOString() };
      await tx.plans.addTemplate(template);
      tx.event.name(
        'recurring.added',
        [t.name],
        `recurring entry '${t.name}' added, every ${t.every} from ${t.start_date}`,
      );
      return template;
    });
  }

  list(): Promise<RecurringTemplate[]> {
    return this.store.read((tx) => tx.plans.templates());
  }

  async remove(a: { name?: unknown }): Promise<RecurringTemplate> {
    const name = typeof a.name === 'string' ? a.name.trim() : '';
    return this.store.write(async (tx) => {
      const t = (await tx.plans.templates()).find((x) => x.name === name);
      if (!t || !(await tx.plans.removeTemplate(name)))
        throw errors.notFound(`no recurring entry named '${name}'`);
      tx.event.name('recurring.removed', [name], `recurring entry '${name}' removed`);
      return t;
    });
  }

  async run(a: { through?: unknown; dry_run?: unknown }): Promise<RecurringRun> {
    if (!isIsoDate(a.through))
      throw refusal('invalid_parameters', [
        {
          path: 'through',
          reason: 'invalid_date',
          message: `through '${String(a.through ?? '')}' is not a date (YYYY-MM-DD)`,
        },
      ]);
    if (a.dry_run !== undefined && typeof a.dry_run !== 'boolean')
      throw refusal('invalid_parameters', [
        { path: 'dry_run', reason: 'invalid_parameter', message: 'dry_run is true or false' },
      ]);
    const through = a.through;
    const dryRun = a.dry_run === true;
    const go = async (tx: PlanReadTx | PlanWriteTx): Promise<RecurringRun> => {
      const out: RecurringRun = {
        through,
        dry_run: dryRun,
        posted: [],
        skipped: [],
        already_posted: 0,
      };
      const entity = (await tx.facts({ bodies: [], fingerprint: null })).entity;
      // What is due and not posted yet, found before anything posts: a run of more is refused whole.
      const due: { t: RecurringTemplate; date: string; fingerprint: string }[] = [];
      for (const t of await tx.plans.templates())
        for (const date of occurrenceDates(t, through)) {
          const fingerprint = occurrenceFingerprint(t.name, date);
          if ((await tx.facts({ bodies: [], fingerprint })).fingerprinted) {
            out.already_posted++;
            continue;
          }
          if (due.push({ t, date, fingerprint }) > MAX_RUN_OCCURRENCES)
            throw refusal('invalid_parameters', [tooManyOccurrences(through, t)]);
        }
      for (const { t, date, fingerprint } of due) {
        // Before the books start or in a closed period: said, and left for the bookkeeper.
        const bar = dateBar(entity, date);
        const why = !bar
          ? null
          : bar.reason === 'before_books_start'
            ? `before the First Month of Books (${bar.books_start})`
            : `in a closed period (the books are closed through ${bar.lock_date})`;
        if (why) {
          out.skipped.push({ name: t.name, date, reason: why });
          continue;
        }
        const body = { ...t.entry, entry_date: date };
        let entry: JournalEntry;
        try {
          entry = await this.journal.postWithin(tx, body, {
            idempotencyKey: occurrenceKey(t.name, date),
            fingerprint,
          });
        } catch (e) {
          if (isBooksError(e)) e.message = `${t.name} on ${date}: ${e.message}`;
          throw e;
        }
        out.posted.push({
          name: t.name,
          date,
          // A dry run numbers each entry as if it were the only one: no number is promised.
          je_number: dryRun ? null : entry.je_number,
          entry_id: dryRun ? null : entry.id,
        });
      }
      if ('event' in tx && out.posted.length)
        tx.event.name(
          'recurring.run',
          out.posted.flatMap((p) => (p.je_number ? [p.je_number] : [])),
          `recurring entries through ${through}: ${out.posted.length} posted, ${out.skipped.length} skipped`,
        );
      return out;
    };
    return dryRun ? this.store.read(go) : this.store.write(go);
  }
}
