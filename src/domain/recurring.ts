import { createHash } from 'node:crypto';
import {
  addMonths,
  dateOfDay,
  dayNumber,
  daysInMonth,
  isIsoDate,
  isoDate,
  parts,
} from './dates.js';
import type { Problem } from './errors.js';
import { isObj } from './rules.js';

export type Every = 'month' | 'quarter' | 'year' | 'week';
export const EVERY: readonly Every[] = ['month', 'quarter', 'year', 'week'];

/** A recurring entry as the ledger keeps it (docs/close.md, "Recurring entries"). */
export interface RecurringTemplate {
  name: string;
  every: Every;
  /** Day of the month (1–31; a shorter month uses its last day), or of the week (1 Monday – 7 Sunday). */
  day: number | null;
  start_date: string;
  end_date: string | null;
  /** The entry as `POST /v1/journal-entries` takes it, without its date. */
  entry: Record<string, unknown>;
  created_at: string;
}

/** A template as it is asked for: everything but when it was made. */
export type TemplateRequest = Omit<RecurringTemplate, 'created_at'>;

const MONTHS: Record<Exclude<Every, 'week'>, number> = { month: 1, quarter: 3, year: 12 };

/** Reads a template request, or every problem with it (paths name the fields). */
export function checkTemplate(
  raw: unknown,
): { template: TemplateRequest } | { problems: Problem[] } {
  const problems: Problem[] = [];
  const add = (path: string, reason: string, message: string) =>
    problems.push({ path, reason, message });
  if (!isObj(raw))
    return { problems: [{ path: '', reason: 'invalid_body', message: 'not an object' }] };
  const { name, every, day, start_date: start, end_date: end, entry } = raw;
  if (typeof name !== 'string' || !name.trim() || name.length > 100)
    add('name', 'invalid_name', 'name is a text of 1 to 100 characters');
  else if (name.includes('\u0000'))
    add('name', 'invalid_text', 'name holds a NUL character (U+0000), which a ledger cannot keep');
  if (!EVERY.includes(every as Every))
    add('every', 'invalid_every', `every '${String(every)}' is not one of ${EVERY.join(', ')}`);
  const maxDay = every === 'week' ? 7 : 31;
  if (
    day !== undefined &&
    day !== null &&
    !(Number.isInteger(day) && (day as number) >= 1 && (day as number) <= maxDay)
  )
    add('day', 'invalid_day', `day '${String(day)}' is not a whole number from 1 to ${maxDay}`);
  if (!isIsoDate(start))
    add('start_date', 'invalid_date', `start '${String(start)}' is not a date (YYYY-MM-DD)`);
  if (end !== undefined && end !== null) {
    if (!isIsoDate(end))
      add('end_date', 'invalid_date', `end '${String(end)}' is not a date (YYYY-MM-DD)`);
    else if (isIsoDate(start) && end < start)
      add('end_date', 'end_before_start', `end ${end} is before start ${start}`);
  }
  if (!isObj(entry))
    add('entry', 'invalid_body', 'entry is a journal entry (an object with lines)');
  else if ('entry_date' in entry)
    add(
      'entry.entry_date',
      'unknown_field',
      'a template has no entry_date: its occurrences give it',
    );
  else if ('je_number' in entry || 'auto_reverse_on' in entry)
    add('entry', 'unknown_field', 'a template gives neither je_number nor auto_reverse_on');
  if (problems.length) return { problems };
  return {
    template: {
      name: (name as string).trim(),
      every: every as Every,
      day: day === undefined || day === null ? null : (day as number),
      start_date: start as string,
      end_date: (end as string | null | undefined) ?? null,
      entry: entry as Record<string, unknown>,
    },
  };
}

/**
 * The dates of a template's occurrences from its start through `through` (and its end): every
 * month, quarter or year from the start's month on the day asked for (the start's own day by
 * default; a shorter month uses its last day), or every week on a weekday.
 */
export function occurrences(
  t: Omit<RecurringTemplate, 'entry' | 'created_at'>,
  through: string,
): string[] {
  return [...occurrenceDates(t, through)];
}

/** The same dates, one at a time: a template run far ahead has as many as its weeks. */
export function* occurrenceDates(
  t: Omit<RecurringTemplate, 'entry' | 'created_at'>,
  through: string,
): Generator<string> {
  const last = t.end_date !== null && t.end_date < through ? t.end_date : through;
  if (t.every === 'week') {
    let n = dayNumber(t.start_date);
    const weekday = ((new Date(n * 86_400_000).getUTCDay() + 6) % 7) + 1;
    n += ((t.day ?? weekday) - weekday + 7) % 7;
    for (; dateOfDay(n) <= last; n += 7) yield dateOfDay(n);
    return;
  }
  const [sy, sm, sd] = parts(t.start_date);
  const day = t.day ?? sd;
  for (let k = 0; ; k++) {
    const [y, m] = addMonths(sy, sm, k * MONTHS[t.every]);
    const date = isoDate(y, m, Math.min(day, daysInMonth(y, m)));
    if (date > last) return;
    if (date >= t.start_date) yield date;
  }
}

/**
 * The most occurrences one run posts or skips (those posted before are not counted): a run is one
 * transaction holding the ledger's write lock, and a date far ahead (`--through 9999-12-31`) would
 * hold it for hundreds of thousands of entries.
 */
export const MAX_RUN_OCCURRENCES = 10_000;

/** A run's refusal when its templates have more occurrences due than it takes. */
export function tooManyOccurrences(
  through: string,
  t: Pick<RecurringTemplate, 'name' | 'every' | 'start_date'>,
): Problem {
  const max = MAX_RUN_OCCURRENCES.toLocaleString('en-US');
  return {
    path: 'through',
    reason: 'too_many_occurrences',
    message:
      `through ${through} the recurring entries have more than ${max} occurrences not posted yet ` +
      `(${t.name} every ${t.every} from ${t.start_date}); one run takes at most ${max}: run ` +
      'through an earlier date',
  };
}

/** An occurrence's stable identity: what finds it posted, whichever process ran it. */
export function occurrenceFingerprint(name: string, date: string): string {
  return `recurring:${createHash('sha256').update(`${name}\u0000${date}`).digest('hex')}`;
}

/** The idempotency key an occurrence posts under (ASCII, short). */
export function occurrenceKey(name: string, date: string): string {
  return occurrenceFingerprint(name, date).slice(0, 60);
}
