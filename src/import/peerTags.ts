import type { GlAccount } from '../domain/accounts.js';
import { COUNTERPARTY_TYPES } from '../domain/accounts.js';
import { peerAccountNames, readTags, userTagKey } from '../domain/peerJournal.js';
import type { Tags } from '../domain/tags.js';
import type { Field } from './presets.js';

type Cells = Partial<Record<Field, string>>;

const LINE_TAGS: ReadonlySet<string> = new Set([...COUNTERPARTY_TYPES, 'memo']);
const ENTRY_TAGS: ReadonlySet<string> = new Set(['je', 'memo', 'reason', 'adjusting']);

/**
 * A posting comment as books export hledger writes it: `customer: C001` (or vendor, employee) names
 * the counterparty, `memo: text` the line memo, and any other tag whose name is a tag key is one of
 * the line's tags (`project: alpha`; `tag-memo: x` is the tag `memo`, see peerTagName), values
 * decoded; other text of the comment (a journal written by hand) is the line memo.
 */
export function lineTags(comment: string): { cells: Cells; tags: Tags } {
  const all = readTags(comment, 'all');
  const tags: Tags = {};
  const rest: string[] = [];
  for (const [name, value] of all) {
    const key = name === '' ? null : userTagKey(name);
    if (key !== null) tags[key] = value;
    else if (!LINE_TAGS.has(name)) rest.push(name === '' ? value : `${name}: ${value}`);
  }
  const out: Cells = { line_memo: all.get('memo') ?? rest.join(', ') };
  for (const type of COUNTERPARTY_TYPES) {
    const id = all.get(type);
    if (id !== undefined) [out.counterparty_type, out.counterparty_external_id] = [type, id];
  }
  return { cells: out, tags };
}

/**
 * A transaction comment as books export hledger writes it: `je` (a JE number its code cannot
 * hold), `memo` (a memo its description cannot hold), `reason`, and `adjusting`. Only what the
 * comment says is returned: the code and description stand otherwise; `other` says the comment held
 * more (text books has no place for).
 */
export function entryTags(comment: string): { cells: Cells; other: boolean } {
  const tags = readTags(comment, ENTRY_TAGS);
  const out: Cells = {};
  if (tags.has('je')) out.je_number = tags.get('je')!;
  if (tags.has('memo')) out.memo = tags.get('memo')!;
  if (tags.has('reason')) out.manual_entry_reason = tags.get('reason')!;
  if (tags.has('adjusting')) out.is_adjusting = 'true';
  return { cells: out, other: tags.has('') };
}

/** The fields an entry's tags may fill, as columns of the native file. */
export const ENTRY_TAG_FIELDS: readonly Field[] = [
  'je_number',
  'memo',
  'manual_entry_reason',
  'is_adjusting',
];

/** The ledger's accounts by the names books export hledger gives them (unique by construction). */
export function exportedAccounts(chart: GlAccount[]): Map<string, GlAccount> {
  const byId = new Map(chart.map((a) => [a.id, a]));
  return new Map(
    [...peerAccountNames('hledger', chart)].map(([id, name]) => [name, byId.get(id)!]),
  );
}
