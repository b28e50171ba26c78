import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { atomsToDecimal } from '../domain/money.js';

/** A small deterministic PRNG (mulberry32), so every run benchmarks the same ledger. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES = [
  'bank',
  'accounts_receivable',
  'other_current_asset',
  'fixed_asset',
  'other_asset',
  'accounts_payable',
  'credit_card',
  'other_current_liability',
  'long_term_liability',
  'equity',
  'income',
  'cost_of_goods_sold',
  'expense',
] as const;

/** The account most entries touch: the general ledger's benchmark reads it. */
export const BUSY_ACCOUNT = 'bank-0-0';

export interface Shape {
  lines: number;
  startYear: number;
  years: number;
  /** Another seed makes other entries over the same chart (default 20260101). */
  seed?: number;
  /** The entries file's name (default entries.csv) and the prefix of its entry keys and memos. */
  file?: string;
  prefix?: string;
}

/**
 * Writes a chart (195 accounts nested three deep: type header → group header → 12 leaves per type),
 * 300 counterparties and entries of 2-4 lines over `years` years with AR/AP counterparties, a quarter
 * of them through one bank account, until the file holds exactly `lines` journal lines. Returns the number of entries.
 */
export async function generate(
  dir: string,
  shape: Shape,
): Promise<{ entries: number; accounts: number }> {
  const rand = rng(shape.seed ?? 20260101);
  const prefix = shape.prefix ?? 'E';
  const memo = prefix === 'E' ? 'entry ' : `${prefix} entry `;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const chart = [
    'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency',
  ];
  const leaves: { id: string; type: string }[] = [];
  TYPES.forEach((type, t) => {
    const top = `${type}-top`;
    chart.push(`${top},${1000 + t * 100},${type} header,${type},,false,true,`);
    for (let g = 0; g < 2; g++) {
      const group = `${type}-g${g}`;
      chart.push(
        `${group},${1000 + t * 100 + (g + 1) * 10},${type} group ${g},${type},${top},false,true,`,
      );
      for (let l = 0; l < 6; l++) {
        const id = `${type}-${g}-${l}`;
        chart.push(
          `${id},${1000 + t * 100 + (g + 1) * 10 + l + 1},${type} account ${g}.${l},${type},${group},true,true,`,
        );
        leaves.push({ id, type });
      }
    }
  });
  const counterparties = ['counterparty_type,external_id,name,is_active'];
  for (let i = 1; i <= 200; i++) counterparties.push(`customer,C${i},Customer ${i},true`);
  for (let i = 1; i <= 100; i++) counterparties.push(`vendor,V${i},Vendor ${i},true`);
  await write(`${dir}/accounts.csv`, chart.join('\n') + '\n');
  await write(`${dir}/counterparties.csv`, counterparties.join('\n') + '\n');

  const out = createWriteStream(`${dir}/${shape.file ?? 'entries.csv'}`);
  out.write(
    'entry,entry_date,gl_account_id,line_type,amount,counterparty_type,counterparty_external_id,memo\n',
  );
  const days = shape.years * 365;
  const entriesEstimate = Math.round(shape.lines / 2.65);
  let written = 0;
  let entry = 0;
  let chunk = '';
  const counterparty = (type: string) =>
    type === 'accounts_receivable'
      ? `customer,C${1 + Math.floor(rand() * 200)}`
      : type === 'accounts_payable'
        ? `vendor,V${1 + Math.floor(rand() * 100)}`
        : ',';
  while (written < shape.lines) {
    const left = shape.lines - written;
    const r = rand();
    let n = r < 0.55 ? 2 : r < 0.8 ? 3 : 4;
    if (left - n === 1 || left < n) n = left;
    entry++;
    const day = Math.min(days - 1, Math.floor((entry / entriesEstimate) * days));
    const d = new Date(Date.UTC(shape.startYear, 0, 1 + day)).toISOString().slice(0, 10);
    const amounts = Array.from({ length: n - 1 }, () => 1 + Math.floor(rand() * 500_000));
    const total = amounts.reduce((s, a) => s + a, 0);
    const rows: [string, string, number][] = amounts.map((a) => [pick(leaves).id, 'debit', a]);
    // An operating account takes a quarter of the entries, as a business's main bank account does.
    rows.push([rand() < 0.25 ? BUSY_ACCOUNT : pick(leaves).id, 'credit', total]);
    if (rand() < 0.5) rows.forEach((row) => (row[1] = row[1] === 'debit' ? 'credit' : 'debit'));
    for (const [account, side, atoms] of rows) {
      const type = leaves.find((l) => l.id === account)!.type;
      const amount = atomsToDecimal(atoms, 2);
      chunk += `${prefix}${entry},${d},${account},${side},${amount},${counterparty(type)},${memo}${entry}\n`;
    }
    written += n;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  return { entries: entry, accounts: chart.length - 1 };
}

async function write(path: string, text: string): Promise<void> {
  const s = createWriteStream(path);
  s.end(text);
  await once(s, 'finish');
}

/**
 * The same entries as QuickBooks Online writes a journal import: Journal No., US dates, accounts by
 * name, Debits and Credits, counterparties by name. For the preset's cost against the native file.
 */
export async function toQbo(
  dir: string,
  from = 'entries.csv',
  to = 'entries-qbo.csv',
  numbered = 'entries-numbered.csv',
): Promise<void> {
  const { createReadStream } = await import('node:fs');
  const { createInterface } = await import('node:readline');
  const names = new Map<string, string>();
  for (const line of (await import('node:fs'))
    .readFileSync(`${dir}/accounts.csv`, 'utf8')
    .split('\n')
    .slice(1)) {
    const [id, , name] = line.split(',');
    if (id) names.set(id, name!);
  }
  const out = createWriteStream(`${dir}/${to}`);
  out.write('Journal No.,Journal Date,Memo,Account Name,Debits,Credits,Description,Name,Class\n');
  // The same journal in the native format with the JE numbers QuickBooks' Journal No. gives.
  const native = createWriteStream(`${dir}/${numbered}`);
  let nativeChunk = '';
  let first = true;
  let chunk = '';
  for await (const line of createInterface({ input: createReadStream(`${dir}/${from}`) })) {
    if (first) {
      first = false;
      native.write(`${line},je_number\n`);
      continue;
    }
    nativeChunk += `${line},${line.slice(0, line.indexOf(','))}\n`;
    const [entry, date, account, side, amount, cpType, cpId, memo] = line.split(',');
    const us = `${date!.slice(5, 7)}/${date!.slice(8, 10)}/${date!.slice(0, 4)}`;
    const party =
      cpType === 'customer'
        ? `Customer ${cpId!.slice(1)}`
        : cpType === 'vendor'
          ? `Vendor ${cpId!.slice(1)}`
          : '';
    const [dr, cr] = side === 'debit' ? [amount, ''] : ['', amount];
    chunk += `${entry},${us},${memo},${names.get(account!)},${dr},${cr},,${party},\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      if (!native.write(nativeChunk)) await once(native, 'drain');
      [chunk, nativeChunk] = ['', ''];
    }
  }
  out.end(chunk);
  native.end(nativeChunk);
  await Promise.all([once(out, 'finish'), once(native, 'finish')]);
}
