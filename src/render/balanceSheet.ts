import type { BalanceSheet, BalanceSheetNode, Cell } from '../domain/balanceSheet.js';
import { atomsToDecimal, formatAmount } from '../domain/money.js';
import { csvField, spreadsheetText } from './csv.js';
import { cell } from './text.js';

export interface TableOptions {
  exponent: number;
  /** Deepest level shown: 1 = type groups, 2 = top-level accounts, ... (sections are level 0). */
  depth?: number;
  /** Terminal width to fit; periods split into blocks when the table is wider. */
  width?: number;
  bold?: (s: string) => string;
}

interface Row {
  label: string;
  cells: (Cell | undefined)[];
  strong: boolean;
}

const nodeLabel = (n: BalanceSheetNode) =>
  cell(n.account_number ? `${n.account_number} ${n.name}` : n.name);

/** The rows of the table, in order: headers, accounts indented by depth, a total after each group. */
function tableRows(sheet: BalanceSheet, maxDepth: number): Row[] {
  const ids = sheet.periods.map((p) => p.id);
  const cells = (m: Record<string, Cell>) => ids.map((id) => m[id]);
  const blank = ids.map(() => undefined);
  const rows: Row[] = [];
  const walk = (n: BalanceSheetNode, depth: number) => {
    const indent = '  '.repeat(depth);
    if (n.children.length === 0 || depth >= maxDepth) {
      rows.push({ label: indent + nodeLabel(n), cells: cells(n.balances), strong: false });
      return;
    }
    const ownShown = n.account_kind === 'regular' && ids.some((id) => n.own_balances[id] !== null);
    rows.push({
      label: indent + nodeLabel(n),
      cells: ownShown ? cells(n.own_balances) : blank,
      strong: false,
    });
    for (const c of n.children) walk(c, depth + 1);
    rows.push({ label: `${indent}Total ${nodeLabel(n)}`, cells: cells(n.balances), strong: false });
  };
  for (const s of sheet.sections) {
    rows.push({ label: s.label, cells: blank, strong: true });
    if (maxDepth >= 1) for (const c of s.children) walk(c, 1);
    rows.push({ label: `Total ${s.label}`, cells: cells(s.balances), strong: true });
  }
  const liabilities = sheet.sections.find((s) => s.account_type === 'liabilities');
  const equity = sheet.sections.find((s) => s.account_type === 'equity');
  rows.push({
    label: 'Total Liabilities and Equity',
    cells: ids.map((id) => {
      const l = liabilities?.balances[id] ?? null;
      const e = equity?.balances[id] ?? null;
      return l === null && e === null ? null : BigInt(l ?? 0) + BigInt(e ?? 0);
    }),
    strong: true,
  });
  return rows;
}

/**
 * The balance sheet as a terminal table: sections, type groups and accounts nested by indentation,
 * one column per period headed by its label, totals, amounts with thousands separators and negatives
 * in parentheses, null cells blank; split into blocks of periods when wider than `width`.
 */
export function balanceSheetTable(sheet: BalanceSheet, opts: TableOptions): string {
  const bold = opts.bold ?? ((s: string) => s);
  const rows = tableRows(sheet, opts.depth ?? Infinity);
  const fmt = (c: Cell | undefined) =>
    c === null || c === undefined ? '' : formatAmount(c, opts.exponent);
  const labelWidth = Math.max(...rows.map((r) => r.label.length), 'Balance Sheet'.length);
  const text = rows.map((r) => r.cells.map(fmt));
  const columns = sheet.periods.map((p, i) => ({
    head: p.label,
    width: Math.max(p.label.length, ...text.map((t) => t[i]!.length)),
    i,
  }));
  const blocks: (typeof columns)[] = [];
  const width = opts.width ?? Infinity;
  for (const col of columns) {
    const last = blocks[blocks.length - 1];
    const used = last ? labelWidth + last.reduce((s, c) => s + 2 + c.width, 0) : Infinity;
    if (!last || used + 2 + col.width > width) blocks.push([col]);
    else last.push(col);
  }
  if (blocks.length === 0) blocks.push([]);
  const out: string[] = [];
  for (const block of blocks) {
    if (out.length) out.push('');
    out.push(
      bold(
        ['Balance Sheet'.padEnd(labelWidth), ...block.map((c) => c.head.padStart(c.width))]
          .join('  ')
          .trimEnd(),
      ),
    );
    for (const [k, r] of rows.entries()) {
      const line = [
        r.label.padEnd(labelWidth),
        ...block.map((c) => text[k]![c.i]!.padStart(c.width)),
      ]
        .join('  ')
        .trimEnd();
      out.push(r.strong ? bold(line) : line);
    }
  }
  return out.join('\n') + '\n';
}

/**
 * The balance sheet as tidy CSV: one row per node (section, depth, path, account_number, name,
 * account_kind, then one column per period id), amounts in decimal major units or atoms, null empty.
 */
export function balanceSheetCsv(
  sheet: BalanceSheet,
  opts: { exponent: number; atoms?: boolean; depth?: number },
): string {
  const ids = sheet.periods.map((p) => p.id);
  const amount = (c: Cell) =>
    c === null ? '' : opts.atoms ? String(c) : atomsToDecimal(c, opts.exponent);
  const lines = [
    ['section', 'depth', 'path', 'account_number', 'name', 'account_kind', ...ids]
      .map(csvField)
      .join(','),
  ];
  const maxDepth = opts.depth ?? Infinity;
  const row = (
    section: string,
    depth: number,
    path: string[],
    number: string | null,
    name: string,
    kind: string,
    balances: Record<string, Cell>,
  ) =>
    lines.push(
      [
        section,
        String(depth),
        spreadsheetText(path.join(' > ')),
        spreadsheetText(number ?? ''),
        spreadsheetText(name),
        kind,
        ...ids.map((id) => amount(balances[id] ?? null)),
      ]
        .map(csvField)
        .join(','),
    );
  for (const s of sheet.sections) {
    row(s.label, 0, [s.label], null, s.label, 'section', s.balances);
    const walk = (n: BalanceSheetNode, depth: number, path: string[]) => {
      if (depth > maxDepth) return;
      const p = [...path, n.name];
      row(s.label, depth, p, n.account_number, n.name, n.account_kind, n.balances);
      for (const c of n.children) walk(c, depth + 1, p);
    };
    for (const c of s.children) walk(c, 1, [s.label]);
  }
  return lines.join('\n') + '\n';
}
