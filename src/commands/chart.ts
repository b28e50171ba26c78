import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Context } from '../cli/context.js';
import { ACCOUNT_TYPES, type GlAccount } from '../domain/accounts.js';
import {
  CHART_COLUMNS,
  checkChart,
  checkCounterparties,
  COUNTERPARTY_COLUMNS,
  type ChartRow,
  type ExistingAccount,
} from '../domain/chart.js';
import { BooksError, type Problem } from '../domain/errors.js';
import { delimiterOf, readCsv, valuesOf } from '../import/csv.js';
import { grid } from '../render/table.js';
import { openInput } from './io.js';

/** The built-in standard chart shipped with books. */
export const STANDARD_CHART = fileURLToPath(
  new URL('../../fixtures/charts/standard.csv', import.meta.url),
);

async function collect(
  ctx: Context,
  path: string,
  columns: readonly string[],
  required: readonly string[],
  delimiter?: string,
) {
  const { stream, name } =
    path === STANDARD_CHART
      ? { stream: createReadStream(path), name: 'standard chart' }
      : openInput(ctx, path);
  const records: { row: number; values: Record<string, string> }[] = [];
  const problems: Problem[] = [];
  for await (const { header, records: batch } of readCsv(stream, {
    file: name,
    columns,
    required,
    delimiter: delimiterOf(delimiter),
  })) {
    for (const r of batch) {
      records.push({ row: r.row, values: valuesOf(header, r) });
      if (r.problems) problems.push(...r.problems);
    }
  }
  return { records, problems, name };
}

function refuse(name: string, problems: Problem[]): never {
  throw new BooksError(
    'invalid_input',
    `${name}: ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was changed`,
    problems.map((p) => ({ file: name, code: 'invalid_input', ...p })),
  );
}

/** Reads and checks a chart CSV against the accounts already present; throws listing every problem. */
export async function readChart(
  ctx: Context,
  path: string,
  existing: ExistingAccount[],
  delimiter?: string,
): Promise<ChartRow[]> {
  const { records, problems, name } = await collect(
    ctx,
    path,
    CHART_COLUMNS,
    ['external_id', 'name', 'account_type'],
    delimiter,
  );
  const checked = checkChart(records, existing);
  const all = [...problems, ...checked.problems].sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  if (all.length) refuse(name, all);
  return checked.rows;
}

export async function importAccounts(
  ctx: Context,
  path: string,
  opts: { delimiter?: string },
): Promise<void> {
  const ledger = await ctx.local('accounts import');
  const rows = await readChart(ctx, path, ledger.existingAccounts(), opts.delimiter);
  const result = ledger.upsertAccounts(rows);
  if (ctx.json) ctx.outJson(result);
  else ctx.out(`accounts: ${result.created} created, ${result.updated} updated`);
}

export async function listAccounts(ctx: Context): Promise<void> {
  const ledger = await ctx.ledger();
  const accounts = await ledger.accounts();
  if (ctx.json) return ctx.outJson({ object: 'list', data: accounts });
  if (ctx.format === 'csv')
    throw new BooksError(
      'usage',
      '--format csv is not offered by accounts list; use table or json',
    );
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const depth = (a: GlAccount): number =>
    a.parent_id && byId.has(a.parent_id) ? 1 + depth(byId.get(a.parent_id)!) : 0;
  const order = Object.keys(ACCOUNT_TYPES);
  const sorted = [...accounts].sort(
    (a, b) =>
      order.indexOf(a.account_type) - order.indexOf(b.account_type) ||
      pathKey(a, byId).localeCompare(pathKey(b, byId)),
  );
  ctx.out(
    grid(
      ['Number', 'Name', 'External id', 'Type', 'Flags'],
      sorted.map((a) => [
        a.account_number ?? '',
        '  '.repeat(depth(a)) + a.name,
        a.external_id,
        a.account_type,
        [a.is_postable ? '' : 'header', a.is_active ? '' : 'inactive', a.currency ?? '']
          .filter(Boolean)
          .join(' '),
      ]),
    ),
  );
}

function pathKey(a: GlAccount, byId: Map<string, GlAccount>): string {
  const self = `${a.account_number ?? ''}\u0000${a.name}`;
  return a.parent_id && byId.has(a.parent_id)
    ? `${pathKey(byId.get(a.parent_id)!, byId)}\u0001${self}`
    : self;
}

export async function importCounterparties(
  ctx: Context,
  path: string,
  opts: { delimiter?: string },
): Promise<void> {
  const ledger = await ctx.local('counterparties import');
  const { records, problems, name } = await collect(
    ctx,
    path,
    COUNTERPARTY_COLUMNS,
    ['counterparty_type', 'external_id', 'name'],
    opts.delimiter,
  );
  const checked = checkCounterparties(records);
  const all = [...problems, ...checked.problems].sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  if (all.length) refuse(name, all);
  const result = ledger.upsertCounterparties(checked.rows);
  if (ctx.json) ctx.outJson(result);
  else ctx.out(`counterparties: ${result.created} created, ${result.updated} updated`);
}

export async function listCounterparties(ctx: Context): Promise<void> {
  const ledger = await ctx.local('counterparties list');
  const list = await ledger.counterparties();
  if (ctx.json) return ctx.outJson({ object: 'list', data: list });
  ctx.out(
    grid(
      ['Type', 'External id', 'Name', 'Active'],
      list.map((c) => [c.counterparty_type, c.external_id, c.name, c.is_active ? 'yes' : 'no']),
    ),
  );
}
