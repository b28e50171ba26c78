import { statSync } from 'node:fs';
import type { Context } from '../cli/context.js';
import { BooksError, type Problem } from '../domain/errors.js';
import { delimiterOf, readCsv } from '../import/csv.js';
import { entryCsvSpec, groupEntries, locate, type DraftEntry } from '../import/entries.js';
import { Progress } from '../render/progress.js';
import { existingFile, openInput } from './io.js';

/** At most this many problems are carried in the error; the rest are counted. */
const MAX_LISTED = 100;

export interface ImportSummary {
  posted: number;
  skipped: number;
  lines: number;
  dry_run: boolean;
  /** First row of each skipped entry (already posted by an earlier import). */
  skipped_rows: number[];
}

export async function jeImport(
  ctx: Context,
  path: string,
  opts: { delimiter?: string; dryRun?: boolean; allowDuplicates?: boolean },
): Promise<void> {
  const delimiter = delimiterOf(opts.delimiter);
  const ledger = await ctx.ledger();
  const [entity, accounts] = [await ledger.entity(), await ledger.accounts()];
  const { stream, name } = openInput(ctx, path);
  const size = path === '-' ? null : statSync(existingFile(ctx, path)).size;
  let bytes = 0;
  const progress = new Progress(ctx.io.stderr, size, 'importing');

  const summary: ImportSummary = {
    posted: 0,
    skipped: 0,
    lines: 0,
    dry_run: opts.dryRun ?? false,
    skipped_rows: [],
  };
  const problems: Problem[] = [];
  let errorCount = 0;
  const report = (p: Problem) => {
    errorCount++;
    if (problems.length < MAX_LISTED) problems.push(p);
  };

  // A remote service may turn out to have some entries already; their lines are then not counted.
  const linesAt = ledger.kind === 'remote' ? new Map<number, number>() : null;
  const batch = await ledger.beginImport({
    dryRun: opts.dryRun ?? false,
    allowDuplicates: opts.allowDuplicates ?? false,
    sizeHint: size,
  });
  const take = (d: DraftEntry) => {
    const result = batch.add(d.body, d.fingerprint, d.problems.length > 0, d.row);
    d.problems.forEach(report);
    if (result.status === 'invalid') {
      // A cell already reported for its row and column is not reported again by the entry rules.
      const taken = new Set(d.problems.map((p) => `${p.row}|${p.path}`));
      for (const p of result.problems) {
        const at = locate(d, p.path);
        const column =
          at.column === 'debit/credit'
            ? taken.has(`${at.row}|debit`)
              ? 'debit'
              : 'debit/credit'
            : at.column;
        if (!taken.has(`${at.row}|${column}`))
          report({
            file: name,
            row: at.row,
            path: column,
            reason: p.reason,
            message: p.message,
            code: 'CAPI33',
          });
      }
    } else if (result.status === 'skipped') {
      summary.skipped++;
      if (summary.skipped_rows.length < 1000) summary.skipped_rows.push(d.row);
    } else if (d.problems.length === 0) {
      summary.posted++;
      summary.lines += (d.body.lines as unknown[]).length;
      if (linesAt) linesAt.set(d.row, (d.body.lines as unknown[]).length);
    }
  };
  try {
    const csv = readCsv(stream, { ...entryCsvSpec(name, delimiter), onBytes: (n) => (bytes += n) });
    for await (const drafts of groupEntries(csv, {
      file: name,
      accounts,
      currency: entity.currency,
    })) {
      if ('fatal' in drafts) {
        drafts.fatal.forEach(report);
        break;
      }
      drafts.forEach(take);
      progress.update(bytes, `${summary.posted + summary.skipped} entries`);
      await batch.ready();
    }
  } catch (e) {
    await batch.rollback();
    progress.done();
    if (e instanceof BooksError && e.code === 'invalid_input' && problems.length) {
      e.errors.forEach(report);
      throw failure(name, problems, errorCount, summary);
    }
    throw e;
  }
  progress.done();
  if (errorCount > 0) {
    await batch.rollback();
    throw failure(name, problems, errorCount, summary);
  }
  if (summary.posted + summary.skipped === 0 && !opts.dryRun) {
    await batch.rollback();
    throw new BooksError(
      'invalid_input',
      `${name} has a header but no entries; nothing was posted`,
      [
        {
          file: name,
          row: 2,
          path: '',
          reason: 'no_entries',
          message: 'no data rows',
          code: 'invalid_input',
        },
      ],
    );
  }
  const { alreadyPosted } = await batch.commit();
  // Entries a remote service already had (an earlier run posted them) count as skipped, not posted.
  summary.posted -= alreadyPosted.length;
  summary.skipped += alreadyPosted.length;
  for (const row of alreadyPosted) summary.lines -= linesAt?.get(row) ?? 0;
  summary.skipped_rows.push(
    ...alreadyPosted.slice(0, Math.max(0, 1000 - summary.skipped_rows.length)),
  );
  if (ctx.json) return ctx.outJson(summary);
  const verb = summary.dry_run ? 'would post' : 'posted';
  ctx.out(
    `${verb} ${summary.posted} entr${summary.posted === 1 ? 'y' : 'ies'} (${summary.lines} lines), skipped ${summary.skipped}`,
  );
  if (summary.skipped) {
    const shown = summary.skipped_rows.slice(0, 10).join(', ');
    ctx.out(
      `skipped entries were already posted by an earlier import (first rows: ${shown}${summary.skipped > 10 ? ', …' : ''}); --allow-duplicates posts them again`,
    );
  }
  if (summary.dry_run) ctx.out('Dry run: nothing was posted.');
}

function failure(
  file: string,
  problems: Problem[],
  count: number,
  summary: ImportSummary,
): BooksError {
  const code = problems.some((p) => p.code === 'CAPI33') ? 'CAPI33' : 'invalid_input';
  return new BooksError(
    code,
    `${file}: ${count} error${count === 1 ? '' : 's'}; nothing was posted`,
    problems,
    {
      posted: 0,
      skipped: summary.skipped,
      lines: 0,
      error_count: count,
      ...(count > problems.length ? { more_errors: count - problems.length } : {}),
    },
  );
}
