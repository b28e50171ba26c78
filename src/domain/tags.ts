import type { Problem } from './errors.js';

/**
 * Tags: an entry's and a line's `key: value` pairs (project, class, location), by which reports are
 * filtered (`--where`) and split (`--columns-by`). A line's effective tags are its entry's,
 * overridden key by key by its own; the ledger keeps the effective ones on each line.
 */
export type Tags = Record<string, string>;

export const TAG_KEY = /^[a-z][a-z0-9_-]{0,31}$/;
export const MAX_TAGS = 10;
/** Conditions of one `where`: a line holds at most 10 keys, so twice that says all there is to say. */
export const MAX_CONDITIONS = 20;
const MAX_VALUE = 64;

/** Whether a value is 1–64 characters of printable text (no control characters). */
function printable(v: string): boolean {
  // eslint-disable-next-line no-control-regex
  return v.length >= 1 && [...v].length <= MAX_VALUE && !/[\u0000-\u001f\u007f-\u009f]/.test(v);
}

/** Tags found good, by `key=value`: a journal repeats few of them (bounded, as a file may not). */
const good = new Set<string>();

/** Half of a character (UTF-16) that no store can keep as text. */
export const LONE_SURROGATE =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with one tag, or null. */
export function tagProblem(key: string, value: unknown): string | null {
  const pair = typeof value === 'string' ? `${key}\u0000${value}` : null;
  if (pair !== null && good.has(pair)) return null;
  const problem = checkTag(key, value);
  if (problem === null && pair !== null) {
    if (good.size >= 10_000) good.clear();
    good.add(pair);
  }
  return problem;
}

function checkTag(key: string, value: unknown): string | null {
  if (!TAG_KEY.test(key))
    return `tag key '${key}' is not lower-case letters, digits, '_' or '-', starting with a letter, at most 32`;
  if (typeof value !== 'string') return `tag '${key}' must have a string value`;
  if (!printable(value) || LONE_SURROGATE.test(value))
    return `tag '${key}' must be 1 to ${MAX_VALUE} characters of printable text`;
  // One rule on every way in: a value typed, imported or sent never begins or ends with a space,
  // so that what a file or a command line trims is what the ledger holds.
  if (value.trim() !== value) return `tag '${key}' must not begin or end with a space`;
  if (INVISIBLE.test(value))
    return `tag '${key}' holds an invisible character (a zero-width space, a line separator)`;
  if (value === NO_TAG)
    return `'${NO_TAG}' names the lines without a tag in --columns-by; use another value`;
  return null;
}

/** Characters that show as nothing, or break a line: two values would look the same. */
const INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}]/u;

/** A tag's value, or undefined: own keys only (a tag may be named `constructor`). */
export const tagOf = (tags: Tags, key: string): string | undefined =>
  Object.hasOwn(tags, key) ? tags[key] : undefined;

/**
 * Reads a `tags` field (absent or null: none) as CAPI33's `invalid_tag` problems at `path`, or the
 * tags in key order: the one frozen object of their set (see `interned`).
 */
export function readTags(raw: unknown, path: string, problems: Problem[]): Tags | null {
  if (raw === undefined || raw === null) return NONE;
  const bad = (p: string, message: string) =>
    problems.push({ path: p, reason: 'invalid_tag', message });
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    bad(path, 'tags must be an object of string keys to string values');
    return null;
  }
  const obj = raw as Record<string, unknown>;
  const known = givenBefore(obj);
  if (known) return known;
  const entries = Object.entries(obj);
  let ok = true;
  if (entries.length > MAX_TAGS) {
    bad(path, `at most ${MAX_TAGS} tags; ${entries.length} given`);
    ok = false;
  }
  for (const [k, v] of entries) {
    const problem = tagProblem(k, v);
    if (problem) {
      bad(`${path}.${k}`, problem);
      ok = false;
    }
  }
  if (!ok) return null;
  const tags = interned(sortedTags(Object.fromEntries(entries) as Tags));
  rememberGiven(entries as [string, string][], tags);
  return tags;
}

/** Stored text of each tags object met. */
const texts = new WeakMap<Tags, string | null>();

/**
 * Tag sets met, one frozen object per set: a journal repeats few sets, and what is derived from a
 * set (its text, its numbers in the totals by tag, its merge with an entry's) is then made once per
 * set rather than once per line. Bounded, as a file of ever new sets may not be.
 */
const byText = new Map<string, Tags>();
/** Per entry's tags, per line's own: the line's effective tags. */
const merged = new WeakMap<Tags, Map<Tags, Tags>>();
const MAX_SETS = 10_000;

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= MAX_SETS) map.clear();
  map.set(key, value);
}

/** The one object of a set of tags (given in key order), frozen, with its text already made. */
function interned(sorted: Tags): Tags {
  const text = JSON.stringify(sorted);
  let t = byText.get(text);
  if (t === undefined) {
    t = Object.freeze(sorted);
    texts.set(t, text);
    remember(byText, text, t);
  }
  return t;
}

/**
 * Good tags as given, keys in the order given: one node per key and value, so that a look-up of
 * tags met before makes nothing (a file's lines give a new object each, of a few sets).
 */
interface Given {
  tags?: Tags;
  next?: Map<string, Map<string, Given>>;
}
let givenRoot: Given = {};
let givenSets = 0;

/**
 * The tags of an object given before, or undefined. No tags are none: stored as nothing, as when
 * the field is absent.
 */
function givenBefore(raw: Record<string, unknown>): Tags | undefined {
  let node: Given | undefined = givenRoot;
  let n = 0;
  for (const k in raw) {
    if (!Object.hasOwn(raw, k)) continue;
    n++;
    const v = raw[k];
    if (typeof v !== 'string') return undefined;
    node = node?.next?.get(k)?.get(v);
  }
  return n === 0 ? NONE : node?.tags;
}

function rememberGiven(entries: [string, string][], tags: Tags): void {
  if (givenSets >= MAX_SETS) [givenRoot, givenSets] = [{}, 0];
  let node = givenRoot;
  for (const [k, v] of entries) {
    const values = (node.next ??= new Map()).get(k) ?? new Map<string, Given>();
    node.next.set(k, values);
    let child = values.get(v);
    if (!child) values.set(v, (child = {}));
    node = child;
  }
  if (!node.tags) givenSets++;
  node.tags = tags;
}

/** Tags in key order: one text for equal tags, whatever order they came in. */
export function sortedTags(t: Tags): Tags {
  const keys = Object.keys(t);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! < keys[i]!;
  if (sorted) return t;
  const out: Tags = {};
  for (const k of keys.sort()) out[k] = t[k]!;
  return out;
}

const NONE: Tags = Object.freeze({}) as Tags;

/**
 * A line's effective tags: the entry's, overridden key by key by its own. A line with none of its
 * own shares its entry's object; lines with the same sets share theirs.
 */
export function effectiveTags(entry: Tags, line: Tags): Tags {
  let own = false;
  for (const _ in line) {
    own = true;
    break;
  }
  if (!own) return entry;
  // Only sets that cannot change are remembered by identity.
  if (!Object.isFrozen(entry) || !Object.isFrozen(line)) return sortedTags({ ...entry, ...line });
  let lines = merged.get(entry);
  if (!lines) merged.set(entry, (lines = new Map()));
  let t = lines.get(line);
  if (t === undefined) {
    t = interned(sortedTags({ ...entry, ...line }));
    remember(lines, line, t);
  }
  return t;
}

/** A line's own tags as the entry's and its effective ones say: those it sets differently. */
export function ownTags(entry: Tags, effective: Tags): Tags {
  const out: Tags = {};
  for (const [k, v] of Object.entries(effective)) if (entry[k] !== v) out[k] = v;
  return out;
}

/**
 * Stored text of tags: canonical JSON, null for none (a ledger without tags stores nothing more);
 * made once per tags object (an entry's lines share theirs).
 */
export function tagsText(t: Tags | null | undefined): string | null {
  if (!t) return null;
  let text = texts.get(t);
  if (text === undefined) {
    text = Object.keys(t).length ? JSON.stringify(sortedTags(t)) : null;
    texts.set(t, text);
  }
  return text;
}

/** Tags from their stored text. */
export const tagsOf = (text: unknown): Tags =>
  typeof text === 'string' && text !== '' ? (JSON.parse(text) as Tags) : {};

/** One condition of `--where` / `where`: KEY=VALUE, KEY= (lines without KEY), KEY!=VALUE (others and without). */
export interface TagCondition {
  key: string;
  op: 'eq' | 'none' | 'ne';
  value: string | null;
}

/**
 * Reads a condition as typed (`project=alpha`, `project=`, `project!=alpha`) or as the API's
 * `project:alpha` (`sep` ':'), or says what is wrong with it.
 */
export function readCondition(text: string, sep: '=' | ':'): TagCondition | string {
  const ne = text.indexOf(`!${sep}`);
  const eq = text.indexOf(sep);
  if (eq < 0) return `'${text}' is not KEY${sep}VALUE, KEY${sep} or KEY!${sep}VALUE`;
  const isNe = ne >= 0 && ne < eq;
  const key = text.slice(0, isNe ? ne : eq).trim();
  const value = text.slice(eq + 1);
  if (!TAG_KEY.test(key)) return `'${key}' is not a tag key (lower-case, starting with a letter)`;
  if (value === '')
    return isNe ? `'${text}' needs a value after !${sep}` : { key, op: 'none', value: null };
  const problem = tagProblem(key, value);
  if (problem) return problem;
  return { key, op: isNe ? 'ne' : 'eq', value };
}

/** Whether a line's effective tags meet every condition. */
export function meets(tags: Tags, where: readonly TagCondition[]): boolean {
  return where.every((w) =>
    w.op === 'eq'
      ? tagOf(tags, w.key) === w.value
      : w.op === 'none'
        ? !Object.hasOwn(tags, w.key)
        : tagOf(tags, w.key) !== w.value,
  );
}

/** A condition as typed, for messages and the API's parameter. */
export const conditionText = (w: TagCondition, sep: '=' | ':' = '='): string =>
  w.op === 'none' ? `${w.key}${sep}` : `${w.key}${w.op === 'ne' ? '!' : ''}${sep}${w.value}`;

/**
 * Reads `#key=value` suffixes off a typed line (`rent=1200.00#location=nyc#project=alpha`), or says
 * why one is not KEY=VALUE; the keys and values themselves are the ledger's to check (CAPI33).
 */
export function splitTagSuffix(text: string): { rest: string; tags: Tags } | string {
  const hash = text.indexOf('#');
  if (hash < 0) return { rest: text, tags: {} };
  // No prototype: a key typed as `__proto__` is a key like any other, which the ledger refuses.
  const tags = Object.create(null) as Tags;
  for (const part of text.slice(hash + 1).split('#')) {
    const pair = tagPair(part);
    if (typeof pair === 'string') return pair;
    if (Object.hasOwn(tags, pair[0])) return `tag '${pair[0]}' is given twice`;
    tags[pair[0]] = pair[1];
  }
  return { rest: text.slice(0, hash), tags };
}

/** `key=value` as typed (`--tag`, a `#` suffix): its two sides trimmed, or why it is not one. */
export function tagPair(text: string): [string, string] | string {
  const eq = text.indexOf('=');
  if (eq <= 0) return `'${text}' is not KEY=VALUE`;
  return [text.slice(0, eq).trim(), text.slice(eq + 1).trim()];
}

/**
 * The conditions of a query's `where`: the API's repeated `key:value` (`key:` for lines without the
 * key, `key!:value` for the others), or conditions already read; each bad one a problem at `where`.
 */
export function whereOf(raw: unknown, problems: Problem[]): TagCondition[] {
  if (raw === undefined || raw === '') return [];
  const given = Array.isArray(raw) ? (raw as unknown[]) : [raw];
  if (given.length > MAX_CONDITIONS) {
    const message = `at most ${MAX_CONDITIONS} conditions; ${given.length} given`;
    problems.push({ path: 'where', reason: 'invalid_tag', message });
    return [];
  }
  const out: TagCondition[] = [];
  for (const g of given) {
    const read =
      typeof g === 'string'
        ? readCondition(g, ':')
        : isCondition(g)
          ? g
          : `'${String(g)}' is not a condition`;
    if (typeof read === 'string')
      problems.push({ path: 'where', reason: 'invalid_tag', message: read });
    else out.push(read);
  }
  return out;
}

const isCondition = (v: unknown): v is TagCondition =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as TagCondition).key === 'string' &&
  ['eq', 'none', 'ne'].includes((v as TagCondition).op) &&
  ((v as TagCondition).op === 'none') === ((v as TagCondition).value === null);

/** A query's `columns_by`: a tag key, or null for none; a bad one a problem. */
export function columnsByOf(raw: unknown, problems: Problem[]): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === 'string' && TAG_KEY.test(raw)) return raw;
  problems.push({
    path: 'columns_by',
    reason: 'invalid_tag',
    message: `columns_by '${String(raw)}' is not a tag key (lower-case, starting with a letter)`,
  });
  return null;
}

/** A query's tag parameters as the API's URL takes them. */
export function tagParams(
  params: URLSearchParams,
  q: { where?: TagCondition[]; columns_by?: string },
): URLSearchParams {
  for (const w of q.where ?? []) params.append('where', conditionText(w, ':'));
  if (q.columns_by) params.set('columns_by', q.columns_by);
  return params;
}

/** The label of the column of lines without the key, in `--columns-by`. */
export const NO_TAG = '(none)';

/** A tag key as `books tags list` and `GET /v1/tags` give it: its values and how many lines carry each. */
export interface TagSummary {
  key: string;
  lines: number;
  values: { value: string; lines: number }[];
}

/** Tag counts (key, value, lines) as the listing groups them: keys and values in order. */
export function tagSummaries(rows: { key: string; value: string; lines: number }[]): TagSummary[] {
  const byKey = new Map<string, TagSummary>();
  const sorted = [...rows].sort((a, b) =>
    a.key !== b.key ? (a.key < b.key ? -1 : 1) : a.value < b.value ? -1 : a.value > b.value ? 1 : 0,
  );
  for (const r of sorted) {
    if (r.lines === 0) continue;
    let s = byKey.get(r.key);
    if (!s) byKey.set(r.key, (s = { key: r.key, lines: 0, values: [] }));
    s.lines += r.lines;
    s.values.push({ value: r.value, lines: r.lines });
  }
  return [...byKey.values()];
}
