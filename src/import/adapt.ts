import type { Counterparty, GlAccount } from '../domain/accounts.js';
import { isIsoDate } from '../domain/dates.js';
import type { Problem } from '../domain/errors.js';
import { AccountMatcher } from '../domain/accountMatch.js';
import { ENTRY_TAG_FIELDS, entryTags, exportedAccounts, lineTags } from './peerTags.js';
import { TAGS_COLUMN } from './layout.js';
import type { CsvBatch, CsvRecord } from './csv.js';
import { problem } from './entries.js';
import { columnKey, FIELDS, noTax, type DateOrder, type Field, type Reading } from './presets.js';

const TEXT_FIELDS: ReadonlySet<Field> = new Set(['memo', 'line_memo', 'manual_entry_reason']);
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * Turns another system's file into the native columns, batch by batch, as `groupEntries` reads them:
 * columns by preset and --map, entries by consecutive keys where the source groups so, dates in
 * their order, signed amounts and decimal commas, accounts and counterparties by id, number, name
 * or path. A cell it cannot read becomes a problem naming the row and the source column.
 */
export class Adapter {
  /** The source column (as the file writes it) of each native column, for problems. */
  private readonly sourceOf = new Map<string, string>();
  readonly ignoredColumns: string[] = [];
  private out: string[] = [];
  private from: { field: Field; at: number }[] = [];
  private readonly taxes: { at: number; name: string }[] = [];
  private order: DateOrder | null;
  private entry = 0;
  private lastKeys: string | null = null;
  private readonly accounts: AccountMatcher;
  /** The ledger's accounts by the names its own hledger export gives them, read first. */
  private readonly exported: Map<string, GlAccount> | null;
  /** Where the transaction's tags are (hledger's comment column), when the preset has them. */
  private entryTagsAt: number | null = null;
  /** The tags of the row being read (JSON), from its posting comment. */
  private rowTags = '';
  private entryTagsName = '';
  private readonly parties: Map<string, Counterparty[]>;

  constructor(
    private readonly reading: Reading,
    private readonly file: string,
    chart: GlAccount[],
    counterparties: Counterparty[],
  ) {
    this.order = reading.dates;
    this.accounts = new AccountMatcher(chart);
    this.exported = reading.tags ? exportedAccounts(chart) : null;
    this.parties = new Map();
    for (const c of counterparties) {
      const k = c.name.trim().toLowerCase();
      this.parties.set(k, [...(this.parties.get(k) ?? []), c]);
    }
  }

  /** The name a problem's column is given: the source column it came from. */
  column(path: string): string {
    return this.sourceOf.get(path) ?? path;
  }

  async *adapt(batches: AsyncIterable<CsvBatch>): AsyncGenerator<CsvBatch> {
    let header: string[] | null = null;
    for await (const batch of batches) {
      if (header === null) header = this.header(batch.names ?? batch.header, batch.records[0]);
      yield { header, records: batch.records.map((r) => this.record(r)) };
    }
  }

  /** Reads the header: each source column's field; unknown columns are problems of the first record. */
  private header(raw: string[], first: CsvRecord | undefined): string[] {
    const problems: Problem[] = [];
    const seen = new Map<Field, string>();
    raw.forEach((name, at) => {
      const key = columnKey(name);
      if (key === this.reading.tags?.entryColumn) {
        [this.entryTagsAt, this.entryTagsName] = [at, name.trim()];
        return;
      }
      // --map and the preset's columns first, then what the preset ignores, then the native names.
      const mapped = key in this.reading.columns ? this.reading.columns[key] : undefined;
      const native = FIELDS.includes(key as Field) ? (key as Field) : undefined;
      const field = mapped !== undefined ? mapped : this.reading.ignored.has(key) ? null : native;
      if (this.reading.taxRates.has(key)) this.taxes.push({ at, name: name.trim() });
      if (field === null) {
        this.ignoredColumns.push(name.trim());
        return;
      }
      if (field === undefined) {
        const n = name.trim();
        const message = `unknown column '${n}': read it with --map '${n}=FIELD', or --map '${n}=-' to ignore it`;
        problems.push(this.problem(1, name, 'unknown_column', message, 'invalid_input'));
        return;
      }
      if (seen.has(field)) {
        const message = `'${name}' and '${seen.get(field)}' are both read as ${field}`;
        problems.push(this.problem(1, name, 'duplicate_column', message, 'invalid_input'));
        return;
      }
      seen.set(field, name.trim());
      this.from.push({ field, at });
    });
    const has = (f: Field) => seen.has(f);
    const out = new Set<string>();
    const g0 = this.reading.grouping;
    if (g0.kind === 'consecutive' || g0.blank || has('entry')) out.add('entry');
    for (const f of seen.keys()) {
      if (f === 'signed_amount') ['debit', 'credit'].forEach((c) => out.add(c));
      else if (f === 'counterparty_name')
        ['counterparty_type', 'counterparty_external_id'].forEach((c) => out.add(c));
      else out.add(f);
    }
    if (this.reading.tags)
      ['counterparty_type', 'counterparty_external_id', TAGS_COLUMN].forEach((c) => out.add(c));
    if (this.entryTagsAt !== null) ENTRY_TAG_FIELDS.forEach((c) => out.add(c));
    this.out = [...out];
    for (const [f, name] of seen) {
      if (f === 'signed_amount') ['debit', 'credit'].forEach((c) => this.sourceOf.set(c, name));
      else if (f === 'counterparty_name') this.sourceOf.set('counterparty_external_id', name);
      else this.sourceOf.set(f, name);
    }
    this.sourceOf.set('debit/credit', this.sourceOf.get('debit') ?? 'debit/credit');
    // A problem of a whole entry names the column its rows are grouped by.
    const g = this.reading.grouping;
    const groupedBy =
      g.kind === 'consecutive' ? g.keys[0]! : seen.has('entry') ? 'entry' : 'je_number';
    const grouping = seen.get(groupedBy);
    if (grouping) this.sourceOf.set('entry', grouping);
    if (problems.length && first) (first.problems ??= []).push(...problems);
    return this.out;
  }

  private problem(
    row: number,
    path: string,
    reason: string,
    message: string,
    code?: string,
  ): Problem {
    return problem(this.file, row, path.trim(), reason, message, code);
  }

  /** One source record as a native one. */
  private record(r: CsvRecord): CsvRecord {
    const v: Partial<Record<Field, string>> = {};
    // Memos are kept as the file gives them; every other cell is read without its surrounding spaces.
    for (const { field, at } of this.from)
      v[field] = TEXT_FIELDS.has(field) ? (r.cells[at] ?? '') : (r.cells[at] ?? '').trim();
    const add = (field: string, reason: string, message: string) =>
      (r.problems ??= []).push(this.problem(r.row, this.column(field), reason, message));
    for (const t of this.taxes) {
      const rate = r.cells[t.at] ?? '';
      if (noTax(rate)) continue;
      const message = `tax '${rate}' would need tax lines books does not make; post the tax as lines of its own`;
      (r.problems ??= []).push(this.problem(r.row, t.name, 'tax_rate', message));
    }
    this.tags(r, v);
    const g = this.reading.grouping;
    if (g.kind === 'column' && g.blank && !this.from.some((f) => f.field === 'entry'))
      v.entry = this.numberedOrNot(v, g.blank, r.row);
    if (g.kind === 'consecutive') {
      const keys = g.keys.map((k) => v[k] ?? '');
      const blank = keys.every((k) => k === '');
      const joined = keys.join('\u0000');
      // A row with blank keys continues the entry above where the source writes journals so.
      const continuing = g.continues && blank && this.lastKeys !== null;
      if (!continuing && joined !== this.lastKeys) {
        this.entry++;
        this.lastKeys = joined;
      }
      v.entry = String(this.entry);
    }
    for (const f of ['entry_date', 'auto_reverse_on'] as const)
      if (v[f]) v[f] = this.date(v[f], (reason, message) => add(f, reason, message));
    if (this.reading.decimalComma)
      for (const f of ['debit', 'credit', 'amount', 'signed_amount'] as const) {
        if (!v[f]) continue;
        const read = decimalComma(v[f]);
        if (read === null) {
          const message = `'${v[f]}' is not an amount with a decimal comma (1.250,00 or 1250,00)`;
          add(f === 'signed_amount' ? 'debit' : f, 'invalid_amount', message);
        }
        v[f] = read ?? '';
      }
    // Systems that fill both columns write 0.00 in the one not used.
    if (v.debit && v.credit)
      for (const f of ['debit', 'credit'] as const) if (/^[0.,]+$/.test(v[f]!)) v[f] = '';
    if (v.signed_amount !== undefined) {
      const s = signed(v.signed_amount);
      [v.debit, v.credit] =
        s === null ? [v.signed_amount, ''] : s.credit ? ['', s.amount] : [s.amount, ''];
    }
    let account: GlAccount | undefined;
    if (v.gl_account_id) {
      const m = this.accounts.find(v.gl_account_id);
      // A name that matches no account by id, number, name or path may be one books export gave.
      const exported =
        'reason' in m && m.reason === 'unknown_account'
          ? this.exported?.get(v.gl_account_id)
          : undefined;
      if ('account' in m) [account, v.gl_account_id] = [m.account, m.account.external_id];
      else if (exported) [account, v.gl_account_id] = [exported, exported.external_id];
      else add('gl_account_id', m.reason, m.message);
    }
    if (v.counterparty_name) {
      const found = this.party(v.counterparty_name, v.counterparty_type, account);
      if ('party' in found)
        [v.counterparty_type, v.counterparty_external_id] = [
          found.party.counterparty_type,
          found.party.external_id,
        ];
      else add('counterparty_external_id', found.reason, found.message);
    }
    const cells = this.out.map((c) => (c === TAGS_COLUMN ? this.rowTags : (v[c as Field] ?? '')));
    return { row: r.row, cells, problems: r.problems };
  }

  /** The fields books export hledger writes as tags: a posting's, and its transaction's. */
  private tags(r: CsvRecord, v: Partial<Record<Field, string>>): void {
    this.rowTags = '';
    if (this.reading.tags && v.line_memo) {
      const read = lineTags(v.line_memo);
      Object.assign(v, read.cells);
      if (Object.keys(read.tags).length) this.rowTags = JSON.stringify(read.tags);
    }
    if (this.entryTagsAt === null) return;
    const { cells, other } = entryTags(r.cells[this.entryTagsAt] ?? '');
    Object.assign(v, cells);
    // Text of a transaction's comment that is not books' tags has no place here: it is said so.
    if (other && !this.ignoredColumns.includes(this.entryTagsName))
      this.ignoredColumns.push(this.entryTagsName);
  }

  /** The blank-number fields of the row before, and the entry they began. */
  private lastBlank: { keys: string; entry: string } | null = null;

  /**
   * The entry of a row grouped by its number: the number when there is one; without one, the entry
   * of the row before when it too had none and the same `blank` fields, else a new entry.
   */
  private numberedOrNot(v: Partial<Record<Field, string>>, blank: Field[], row: number): string {
    const number = (v.je_number ?? '').trim();
    if (number) {
      this.lastBlank = null;
      return number;
    }
    const keys = blank.map((f) => v[f] ?? '').join('\u0000');
    if (this.lastBlank?.keys !== keys) this.lastBlank = { keys, entry: `(no number, row ${row})` };
    return this.lastBlank.entry;
  }

  /** A date in the file's order as YYYY-MM-DD; the order is found from the first date when not given. */
  private date(text: string, report: (reason: string, message: string) => void): string {
    if (isIsoDate(text)) return text;
    if (this.order === null) {
      const fits = (['DMY', 'MDY', 'YMD'] as const).filter((o) => readDate(text, o) !== null);
      if (fits.length > 1) {
        report('ambiguous_date', `'${text}' reads as ${fits.join(' and as ')}; give --date-format`);
        return text;
      }
      if (fits.length === 0) return text;
      this.order = fits[0]!;
    }
    // A file repeats few dates on many rows: each is read once (the order is fixed from here on).
    let iso = this.dates.get(text);
    if (iso === undefined) {
      iso = readDate(text, this.order);
      if (this.dates.size < 100_000) this.dates.set(text, iso);
    }
    if (iso === null) report('invalid_date', `'${text}' is not a date in the order ${this.order}`);
    return iso ?? text;
  }

  private readonly dates = new Map<string, string | null>();

  private party(
    name: string,
    type: string | undefined,
    account: GlAccount | undefined,
  ): { party: Counterparty } | { reason: string; message: string } {
    const wanted =
      type?.toLowerCase() ||
      (account?.account_type === 'accounts_receivable'
        ? 'customer'
        : account?.account_type === 'accounts_payable'
          ? 'vendor'
          : undefined);
    const all = this.parties.get(name.toLowerCase()) ?? [];
    const hits = wanted ? all.filter((c) => c.counterparty_type === wanted) : all;
    if (hits.length === 1) return { party: hits[0]! };
    if (hits.length === 0)
      return {
        reason: 'unknown_counterparty',
        message: `no ${wanted ?? 'counterparty'} named '${name}'`,
      };
    return {
      reason: 'ambiguous_counterparty',
      message: `'${name}' names ${hits.map((c) => `${c.counterparty_type}:${c.external_id}`).join(' and ')}`,
    };
  }
}

/** A date in an order, as YYYY-MM-DD, or null. DMY also reads `30 Jun 2025`. */
export function readDate(text: string, order: DateOrder): string | null {
  const iso = (y: string, m: string, d: string) => {
    const s = `${y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
    return isIsoDate(s) ? s : null;
  };
  if (order === 'ISO') return isIsoDate(text) ? text : null;
  if (order === 'YMD') {
    const m = /^(\d{4})[/.-](\d{1,2})[/.-](\d{1,2})$/.exec(text);
    return m ? iso(m[1]!, m[2]!, m[3]!) : null;
  }
  const m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(text);
  if (m) return order === 'DMY' ? iso(m[3]!, m[2]!, m[1]!) : iso(m[3]!, m[1]!, m[2]!);
  const named = order === 'DMY' ? /^(\d{1,2})[ -]([A-Za-z]{3,9})[ -](\d{4})$/.exec(text) : null;
  const month = named ? MONTHS.indexOf(named[2]!.slice(0, 3).toLowerCase()) + 1 : 0;
  return named && month ? iso(named[3]!, String(month), named[1]!) : null;
}

/**
 * `1.250,00` → `1250.00`: the point groups thousands (three digits each), the comma is the decimal
 * mark; null for text that is not written so (`12.50` would be read as 1250 otherwise).
 */
export function decimalComma(text: string): string | null {
  const m = /^([(+-]?)(\d{1,3}(?:[. ]\d{3})+|\d+)(?:,(\d+))?(\)?-?)$/.exec(text.trim());
  if (!m) return null;
  return `${m[1]}${m[2]!.replace(/[. ]/g, '')}${m[3] !== undefined ? `.${m[3]}` : ''}${m[4]}`;
}

/** A signed amount: `-12.50`, `(12.50)` and `12.50-` are credits; null when it is none of the forms. */
export function signed(text: string): { credit: boolean; amount: string } | null {
  const t = text.trim();
  const paren = /^\((.+)\)$/.exec(t);
  const s = paren
    ? { credit: true, amount: paren[1]!.trim() }
    : t.startsWith('-')
      ? { credit: true, amount: t.slice(1).trim() }
      : t.endsWith('-')
        ? { credit: true, amount: t.slice(0, -1).trim() }
        : { credit: false, amount: t.replace(/^\+/, '') };
  // One sign at most: `--5` or `(-5)` is no amount (its two signs would cancel into money in).
  return s.amount === '' || /^[-+(]|[-+)]$/.test(s.amount) ? null : s;
}
