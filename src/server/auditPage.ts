import type { AuditEvent } from '../domain/audit.js';
import { isIsoDate } from '../domain/dates.js';
import { refusal, type Problem } from '../domain/errors.js';
import type { AuditFilter, AuditOps } from '../ledger/port.js';

export const MAX_AUDIT_LIMIT = 1000;

/** A page of the trail as the API answers it, and the cursor of the rest (null at the end). */
export interface AuditPage {
  object: 'list';
  data: AuditEvent[];
  next_cursor: string | null;
}

/**
 * The cursor after an event: its seq, opaque. Events are only appended, so a cursor stays good; the
 * filter is the query's own, asked again with each page.
 */
const cursorOf = (seq: number) => Buffer.from(`audit:${seq}`).toString('base64url');

function seqOf(cursor: string): number | null {
  const m = /^audit:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return m ? Number(m[1]) : null;
}

/** `GET /v1/audit-events`: the query read and checked, and its page. */
export async function auditPage(
  audit: AuditOps,
  q: Record<string, string | undefined>,
): Promise<AuditPage> {
  const problems: Problem[] = [];
  const bad = (path: string, message: string) =>
    problems.push({ path, reason: 'invalid_parameters', message });
  for (const k of ['since', 'until'] as const)
    if (q[k] !== undefined && !isIsoDate(q[k])) bad(k, `${k} must be a date (YYYY-MM-DD)`);
  const limit = q.limit === undefined ? 100 : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT_LIMIT)
    bad('limit', `limit must be a whole number from 1 to ${MAX_AUDIT_LIMIT}`);
  const after = q.cursor === undefined ? 0 : seqOf(q.cursor);
  if (after === null) bad('cursor', 'cursor is not one this API gave');
  if (problems.length) throw refusal('invalid_parameters', problems);
  const filter: AuditFilter = {
    since: q.since,
    until: q.until,
    actor: q.actor,
    action: q.action,
    object: q.object,
  };
  const data = await audit.page(filter, after!, limit + 1);
  const more = data.length > limit;
  const page = more ? data.slice(0, limit) : data;
  return {
    object: 'list',
    data: page,
    next_cursor: more ? cursorOf(page[page.length - 1]!.seq) : null,
  };
}

/** The cursor a client sends for the events after `seq` (0: from the first). */
export const auditCursor = (seq: number): string | undefined =>
  seq === 0 ? undefined : cursorOf(seq);
