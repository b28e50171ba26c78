import { bool, command, list, str } from '../cli/command.js';
import type { Context } from '../cli/context.js';
import { BooksError, type Problem } from '../domain/errors.js';
import { delimiterOf, readCsv } from '../import/csv.js';
import { groupEntries, locate, type DraftEntry } from '../import/entries.js';
import { entryCsvSpec } from '../import/layout.js';
import { DATE_ORDERS, PRESETS, readingOf, type Reading } from '../import/presets.js';
import type { BatchResult, ImportBatch, ImportEntry, Ledger } from '../ledger/port.js';
import { Progress } from '../render/progress.js';
import { CSV_FILE_ARG, DELIMITER_FLAG, openInput } from './io.js';

/** At most this many problems are carried in the error; the rest are counted. */
const MAX_LISTED = 100;

export interface ImportSummary {
  posted: number;
  skipped: number;
  lines: number;
  dry_run: boolean;
  /** First row of each skipped entry (already posted by an earlier import). */
  skipped_rows: number[];
  /** Columns of another system's file that were read and ignored (tax rates, tracking, ...). */
  ignored_columns?: string[];
  /** Reversals posted with their entries (the `auto_reverse_on` column), beside `posted`. */
  reversals?: number;
}

interface Options {
  path: string;
  delimiter: string;
  dryRun: boolean;
  allowDuplicates: boolean;
  settle: 'posted' | 'unposted' | undefined;
  reading: Reading | null;
}

export default command<Options>({
  args: [CSV_FILE_ARG],
  flags: [
    DELIMITER_FLAG,
    { flags: '--dry-run', description: 'validate everything; post nothing' },
    {
      flags: '--allow-duplicates',
      description: 'post entries even when an earlier import already posted them',
    },
    {
      flags: '--preset <name>',
      description: "another system's journal file: xero, qbo, sage or hledger",
      choices: Object.keys(PRESETS),
    },
    {
      flags: '--map <SOURCE=FIELD>',
      description: 'read column SOURCE as FIELD, or SOURCE=- to ignore it (repeatable)',
      repeat: true,
    },
    {
      flags: '--date-format <order>',
      description: `the file's date order: ${DATE_ORDERS.join(', ')}`,
      choices: [...DATE_ORDERS],
    },
    { flags: '--decimal-comma', description: "amounts as 1.250,00 (with --delimiter ';')" },
    {
      flags: '--settle <posted|unposted>',
      description:
        'remote profile: what to take entries as that an earlier import sent over an hour ago without an answer',
      choices: ['posted', 'unposted'],
    },
  ],
  help: `Columns (header row required, names case-insensitive):
  entry (or je_number)  groups contiguous rows into one entry
  entry_date            YYYY-MM-DD (required)
  gl_account_id         external id or account number (required)
  amounts, one form:    line_type + amount | line_type + amount_atoms | debit + credit
  optional:             je_number, currency, memo, line_memo, counterparty_type,
                        counterparty_external_id, is_adjusting, manual_entry_reason,
                        auto_reverse_on (the date of a reversal posted with the entry)
The file is UTF-8 (with or without BOM; CRLF or LF); another encoding is refused by row.
Rows are numbered as a spreadsheet shows them (header = row 1). Every entry is checked before any
posts; on any error nothing posts and every error is listed as file:row: CODE reason: message.
Entries already posted by an earlier import (same content and occurrence) are skipped.`,
  examples: ['books je import fixtures/demo/entries.csv --dry-run'],
  options: (raw) => ({
    path: raw.args[0]!,
    delimiter: delimiterOf(str(raw, 'delimiter')),
    dryRun: bool(raw, 'dryRun'),
    allowDuplicates: bool(raw, 'allowDuplicates'),
    settle: str(raw, 'settle') as Options['settle'],
    reading: readingOf({
      preset: str(raw, 'preset'),
      map: list(raw, 'map'),
      dateFormat: str(raw, 'dateFormat'),
      decimalComma: bool(raw, 'decimalComma'),
    }),
  }),
  run: jeImport,
});

async function jeImport(ctx: Context, opts: Options): Promise<void> {
  const ledger = await ctx.ledger();
  // Ctrl-C while the file is read and checked: nothing has posted, and the ledger stays as it was.
  let committing = false;
  const interrupted = () => {
    if (committing && ledger.capabilities.atomicImport) return; // one transaction: all or nothing
    ctx.err(
      committing
        ? 'interrupted: the entries sent so far are posted (receipts remember them); ' +
            'run the same import again to post the rest (nothing posts twice)'
        : 'interrupted; nothing was posted',
    );
    process.exit(130);
  };
  process.on('SIGINT', interrupted);
  try {
    await importFile(ctx, opts, ledger, () => (committing = true));
  } finally {
    process.off('SIGINT', interrupted);
  }
}

async function importFile(
  ctx: Context,
  opts: Options,
  ledger: Ledger,
  committing: () => void,
): Promise<void> {
  const [entity, accounts] = [await ledger.entity.get(), await ledger.chart.accounts()];
  const { stream, name, size } = openInput(ctx, opts.path);
  let bytes = 0;
  const progress = new Progress(ctx.io.stderr, size, 'importing');
  const batch = await ledger.journal.beginImport({
    dryRun: opts.dryRun,
    allowDuplicates: opts.allowDuplicates,
    sizeHint: size,
    file: name,
    ...(opts.settle ? { settle: opts.settle } : {}),
  });
  const adapter = opts.reading
    ? new (await import('../import/adapt.js')).Adapter(
        opts.reading,
        name,
        accounts,
        await ledger.chart.counterparties(),
      )
    : null;
  const tally = new Tally(
    name,
    opts.dryRun,
    !ledger.capabilities.atomicImport,
    (c) => adapter?.column(c) ?? c,
  );
  try {
    const spec = { ...entryCsvSpec(name, opts.delimiter), onBytes: (n: number) => (bytes += n) };
    const read = readCsv(stream, adapter ? { ...spec, acceptAny: true, required: [] } : spec);
    const csv = adapter ? adapter.adapt(read) : read;
    // One chunk is read ahead, so that its look-ups are fetched while this one is checked.
    const chunks = aheadByOne(
      groupEntries(csv, { file: name, accounts, currency: entity.currency }),
      () => stream.destroy(),
    );
    for await (const [read, next] of chunks) {
      if ('fatal' in read) {
        read.fatal.forEach((p) => tally.report(p));
        break;
      }
      const results = await batch.add(read.chunk, next && 'chunk' in next ? next.chunk : undefined);
      read.drafts.forEach((d, i) => tally.take(d, results[i]!));
      progress.update(bytes, `${tally.summary.posted + tally.summary.skipped} entries`);
    }
  } catch (e) {
    await batch.rollback();
    progress.done();
    if (e instanceof BooksError && e.code === 'invalid_input' && tally.count > 0) {
      e.errors.forEach((p) => tally.report(p));
      throw tally.failure();
    }
    throw e;
  }
  progress.done();
  if (adapter?.ignoredColumns.length) tally.summary.ignored_columns = adapter.ignoredColumns;
  await finish(ctx, batch, tally, committing);
}

type Read = { drafts: DraftEntry[]; chunk: ImportEntry[] } | { fatal: Problem[] };

/**
 * Each chunk of entries with the one after it where that one is read by then (a pipe may not have
 * sent it yet: the chunk is not held for it). An error reading the next is thrown after this one is
 * added, as it was met after it. Stopped early, the input is closed (`stop`): a read may be waiting
 * on it.
 */
async function* aheadByOne(
  source: AsyncIterable<DraftEntry[] | { fatal: Problem[] }>,
  stop: () => void,
): AsyncGenerator<[Read, Read | undefined]> {
  const it = source[Symbol.asyncIterator]();
  const read = async (): Promise<{ value?: Read; error?: unknown }> => {
    try {
      const r = await it.next();
      if (r.done) return {};
      const drafts = r.value;
      if ('fatal' in drafts) return { value: drafts };
      const chunk = drafts.map((d) => ({
        body: d.body,
        fingerprint: d.fingerprint,
        hasRowProblems: d.problems.length > 0,
        row: d.row,
      }));
      return { value: { drafts, chunk } };
    } catch (error) {
      return { error };
    }
  };
  let pending: ReturnType<typeof read> | null = null;
  try {
    let current = await read();
    while (current.value) {
      if ('fatal' in current.value) return yield [current.value, undefined];
      pending = read();
      const turn = new Promise<null>((resolve) => setImmediate(() => resolve(null)));
      const next = await Promise.race([pending, turn]);
      yield [current.value, next?.value];
      current = await pending;
      pending = null;
    }
    if ('error' in current) throw current.error;
  } finally {
    if (pending) {
      stop();
      await pending;
    }
    await it.return?.();
  }
}

/** Commits a clean batch (or rolls back a failed one) and says what happened. */
async function finish(
  ctx: Context,
  batch: ImportBatch,
  tally: Tally,
  committing: () => void,
): Promise<void> {
  const summary = tally.summary;
  if (tally.count > 0) {
    await batch.rollback();
    throw tally.failure();
  }
  if (summary.posted + summary.skipped === 0 && !summary.dry_run) {
    await batch.rollback();
    const problem = {
      file: tally.file,
      row: 2,
      path: '',
      reason: 'no_entries',
      message: 'no data rows',
      code: 'invalid_input',
    };
    throw new BooksError(
      'invalid_input',
      `${tally.file} has a header but no entries; nothing was posted`,
      [problem],
    );
  }
  committing();
  tally.alreadyPosted((await batch.commit()).alreadyPosted);
  if (ctx.json) return ctx.outJson(summary);
  const verb = summary.dry_run ? 'would post' : 'posted';
  ctx.out(
    `${verb} ${summary.posted} entr${summary.posted === 1 ? 'y' : 'ies'} (${summary.lines} lines), ` +
      (summary.reversals
        ? `and ${summary.reversals} automatic reversal${summary.reversals === 1 ? '' : 's'}, `
        : '') +
      `skipped ${summary.skipped}`,
  );
  if (summary.skipped) {
    const shown = summary.skipped_rows.slice(0, 10).join(', ');
    const more = summary.skipped > 10 ? ', …' : '';
    ctx.out(
      `skipped entries were already posted by an earlier import (first rows: ${shown}${more}); ` +
        '--allow-duplicates posts them again',
    );
  }
  if (summary.ignored_columns) ctx.out(`read and ignored: ${summary.ignored_columns.join(', ')}`);
  if (summary.dry_run) ctx.out('Dry run: nothing was posted.');
}

/** What an import has seen: entries posted and skipped, and its problems (the first MAX_LISTED kept). */
class Tally {
  readonly summary: ImportSummary;
  readonly problems: Problem[] = [];
  count = 0;
  /** A remote service may turn out to have some entries already; their lines are then not counted. */
  private readonly linesAt: Map<number, number> | null;
  /** Rows of entries posted with their automatic reversal. */
  private readonly reversing = new Set<number>();

  constructor(
    readonly file: string,
    dryRun: boolean,
    remote: boolean,
    /** The column a problem names, as the file calls it (another system's file names its own). */
    private readonly column: (native: string) => string = (c) => c,
  ) {
    this.summary = { posted: 0, skipped: 0, lines: 0, dry_run: dryRun, skipped_rows: [] };
    this.linesAt = remote ? new Map() : null;
  }

  report(p: Problem): void {
    this.count++;
    if (this.problems.length < MAX_LISTED) this.problems.push({ ...p, path: this.column(p.path) });
  }

  take(d: DraftEntry, result: BatchResult): void {
    // One problem per cell: the first said of a row and column (as the file names it) stands.
    const taken = new Set<string>();
    const fresh = (row: number, path: string) => {
      const k = `${row}|${this.column(path)}`;
      return !taken.has(k) && Boolean(taken.add(k));
    };
    for (const p of d.problems) if (fresh(p.row ?? 0, p.path)) this.report(p);
    if (result.status === 'invalid') {
      for (const p of result.problems) {
        const at = locate(d, p.path);
        const column =
          at.column === 'debit/credit'
            ? taken.has(`${at.row}|${this.column('debit')}`)
              ? 'debit'
              : 'debit/credit'
            : at.column;
        if (fresh(at.row, column))
          this.report({
            file: this.file,
            row: at.row,
            path: column,
            reason: p.reason,
            message: p.message,
            code: 'CAPI33',
          });
      }
    } else if (result.status === 'skipped') {
      this.summary.skipped++;
      if (this.summary.skipped_rows.length < 1000) this.summary.skipped_rows.push(d.row);
    } else if (d.problems.length === 0) {
      const lines = (d.body.lines as unknown[]).length;
      this.summary.posted++;
      this.summary.lines += lines;
      this.linesAt?.set(d.row, lines);
      if (d.body.auto_reverse_on) {
        this.summary.reversals = (this.summary.reversals ?? 0) + 1;
        this.reversing.add(d.row);
      }
    }
  }

  /** Entries a remote service already had (an earlier run posted them) count as skipped, not posted. */
  alreadyPosted(rows: number[]): void {
    const s = this.summary;
    s.posted -= rows.length;
    s.skipped += rows.length;
    for (const row of rows) s.lines -= this.linesAt?.get(row) ?? 0;
    for (const row of rows) if (this.reversing.has(row)) s.reversals! -= 1;
    s.skipped_rows.push(...rows.slice(0, Math.max(0, 1000 - s.skipped_rows.length)));
  }

  failure(): BooksError {
    const code = this.problems.some((p) => p.code === 'CAPI33') ? 'CAPI33' : 'invalid_input';
    const n = this.count;
    return new BooksError(
      code,
      `${this.file}: ${n} error${n === 1 ? '' : 's'}; nothing was posted`,
      this.problems,
      {
        posted: 0,
        skipped: this.summary.skipped,
        lines: 0,
        error_count: n,
        ...(n > this.problems.length ? { more_errors: n - this.problems.length } : {}),
      },
    );
  }
}
