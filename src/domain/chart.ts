import { ACCOUNT_TYPES, COUNTERPARTY_TYPES, isAccountType, type AccountType } from './accounts.js';
import { currencyExponent } from './money.js';
import type { Problem } from './errors.js';

export const CHART_COLUMNS = [
  'external_id',
  'account_number',
  'name',
  'account_type',
  'parent_external_id',
  'is_postable',
  'is_active',
  'currency',
] as const;
export const COUNTERPARTY_COLUMNS = [
  'counterparty_type',
  'external_id',
  'name',
  'is_active',
] as const;

/** A chart row after checking: what the ledger upserts by external_id. */
export interface ChartRow {
  row: number;
  external_id: string;
  account_number: string | null;
  name: string;
  account_type: AccountType;
  parent_external_id: string | null;
  is_postable: boolean;
  is_active: boolean;
  currency: string | null;
}

export interface CounterpartyRow {
  row: number;
  counterparty_type: string;
  external_id: string;
  name: string;
  is_active: boolean;
}

export interface ExistingAccount {
  external_id: string;
  account_number: string | null;
  account_type: AccountType;
  parent_external_id: string | null;
}

/** Reads a CSV boolean cell (`true/false`, `yes/no`, `1/0`, blank = fallback). */
export function parseBool(v: string | undefined, fallback: boolean): boolean | null {
  const t = (v ?? '').trim().toLowerCase();
  if (t === '') return fallback;
  if (['true', 'yes', 'y', '1'].includes(t)) return true;
  if (['false', 'no', 'n', '0'].includes(t)) return false;
  return null;
}

/**
 * Checks a chart-of-accounts file against itself and the accounts already in the ledger: required
 * cells, types, booleans, currencies, unique ids and numbers, parents that exist (they may come later
 * in the file), no cycles, and children in their parent's section. Returns every problem by row.
 */
export function checkChart(
  records: { row: number; values: Record<string, string> }[],
  existing: ExistingAccount[],
): { rows: ChartRow[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const rows: ChartRow[] = [];
  const add = (row: number, path: string, reason: string, message: string) =>
    problems.push({ row, path, reason, message });
  const byId = new Map<string, ChartRow>();
  const numberOwner = new Map<string, string>();
  for (const e of existing) if (e.account_number) numberOwner.set(e.account_number, e.external_id);

  for (const { row, values: v } of records) {
    const externalId = (v.external_id ?? '').trim();
    const name = (v.name ?? '').trim();
    const type = (v.account_type ?? '').trim().toLowerCase();
    const currency = (v.currency ?? '').trim().toUpperCase();
    const isPostable = parseBool(v.is_postable, true);
    const isActive = parseBool(v.is_active, true);
    const before = problems.length;
    if (!externalId) add(row, 'external_id', 'missing_field', 'external_id is required');
    else if (byId.has(externalId))
      add(
        row,
        'external_id',
        'duplicate',
        `external_id '${externalId}' also appears on row ${byId.get(externalId)!.row}`,
      );
    if (!name) add(row, 'name', 'missing_field', 'name is required');
    if (!isAccountType(type))
      add(
        row,
        'account_type',
        'invalid_account_type',
        `'${v.account_type ?? ''}' is not an account type (one of ${Object.keys(ACCOUNT_TYPES).join(', ')})`,
      );
    if (isPostable === null)
      add(row, 'is_postable', 'invalid_boolean', `'${v.is_postable}' is not true or false`);
    if (isActive === null)
      add(row, 'is_active', 'invalid_boolean', `'${v.is_active}' is not true or false`);
    if (currency && currencyExponent(currency) === null)
      add(row, 'currency', 'invalid_currency', `'${v.currency}' is not an ISO 4217 currency code`);
    const number = (v.account_number ?? '').trim() || null;
    if (number && externalId) {
      const owner = numberOwner.get(number);
      if (owner !== undefined && owner !== externalId)
        add(
          row,
          'account_number',
          'duplicate',
          `account number ${number} already belongs to '${owner}'`,
        );
      else numberOwner.set(number, externalId);
    }
    if (problems.length > before) continue;
    const r: ChartRow = {
      row,
      external_id: externalId,
      account_number: number,
      name,
      account_type: type as AccountType,
      parent_external_id: (v.parent_external_id ?? '').trim() || null,
      is_postable: isPostable!,
      is_active: isActive!,
      currency: currency || null,
    };
    byId.set(externalId, r);
    rows.push(r);
  }

  // Parents resolve against the file first, then the ledger; follow each chain to find cycles.
  const existingById = new Map(existing.map((e) => [e.external_id, e]));
  const parentOf = (id: string) =>
    byId.get(id)?.parent_external_id ?? existingById.get(id)?.parent_external_id ?? null;
  const typeOf = (id: string) => byId.get(id)?.account_type ?? existingById.get(id)?.account_type;
  for (const r of rows) {
    if (!r.parent_external_id) continue;
    const parentType = typeOf(r.parent_external_id);
    if (!parentType) {
      problems.push({
        row: r.row,
        path: 'parent_external_id',
        reason: 'unknown_parent',
        message: `no account '${r.parent_external_id}' in the file or the ledger`,
      });
      continue;
    }
    if (ACCOUNT_TYPES[parentType].section !== ACCOUNT_TYPES[r.account_type].section) {
      problems.push({
        row: r.row,
        path: 'parent_external_id',
        reason: 'section_mismatch',
        message: `${r.account_type} account '${r.external_id}' cannot sit under ${parentType} account '${r.parent_external_id}'`,
      });
    }
    const seen = new Set([r.external_id]);
    for (let p: string | null = r.parent_external_id; p; p = parentOf(p)) {
      if (seen.has(p)) {
        problems.push({
          row: r.row,
          path: 'parent_external_id',
          reason: 'parent_cycle',
          message: `'${r.external_id}' is its own ancestor through '${r.parent_external_id}'`,
        });
        break;
      }
      seen.add(p);
    }
  }
  problems.sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
  return { rows, problems };
}

/** Checks a counterparties file: known types, required ids and names, no id twice per type. */
export function checkCounterparties(records: { row: number; values: Record<string, string> }[]): {
  rows: CounterpartyRow[];
  problems: Problem[];
} {
  const problems: Problem[] = [];
  const rows: CounterpartyRow[] = [];
  const seen = new Map<string, number>();
  for (const { row, values: v } of records) {
    const type = (v.counterparty_type ?? '').trim().toLowerCase();
    const externalId = (v.external_id ?? '').trim();
    const name = (v.name ?? '').trim();
    const isActive = parseBool(v.is_active, true);
    const before = problems.length;
    if (!(COUNTERPARTY_TYPES as readonly string[]).includes(type)) {
      problems.push({
        row,
        path: 'counterparty_type',
        reason: 'invalid_counterparty_type',
        message: `'${v.counterparty_type ?? ''}' is not one of ${COUNTERPARTY_TYPES.join(', ')}`,
      });
    }
    if (!externalId)
      problems.push({
        row,
        path: 'external_id',
        reason: 'missing_field',
        message: 'external_id is required',
      });
    if (!name)
      problems.push({ row, path: 'name', reason: 'missing_field', message: 'name is required' });
    if (isActive === null)
      problems.push({
        row,
        path: 'is_active',
        reason: 'invalid_boolean',
        message: `'${v.is_active}' is not true or false`,
      });
    const key = `${type}:${externalId}`;
    if (externalId && seen.has(key))
      problems.push({
        row,
        path: 'external_id',
        reason: 'duplicate',
        message: `${type} '${externalId}' also appears on row ${seen.get(key)}`,
      });
    if (problems.length > before) continue;
    seen.set(key, row);
    rows.push({
      row,
      counterparty_type: type,
      external_id: externalId,
      name,
      is_active: isActive!,
    });
  }
  return { rows, problems };
}
