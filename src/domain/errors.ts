/** One problem found in input: where it is, a stable machine reason, and a sentence for people. */
export interface Problem {
  path: string;
  reason: string;
  message: string;
  /** Spreadsheet row (header = 1) when the problem comes from a CSV file. */
  row?: number;
  file?: string;
  /** Code of the problem when it differs from the error's own (a CSV error inside a CAPI33 batch). */
  code?: string;
}

/**
 * Codes of the API (CAPI*) plus the command line's own. The exit code and HTTP status of each are
 * decided in one table each (src/cli/exit.ts, src/server), never at the place that raises it.
 */
export type ErrorCode =
  | 'CAPI11' // bearer key missing or invalid
  | 'CAPI33' // entry content invalid
  | 'CAPI34' // idempotency key missing, malformed or already used
  | 'CAPI67' // no applied First Month of Books
  | 'CAPI69' // report window over 5 years
  | 'CAPI71' // key lacks the permission
  | 'CAPI73' // accounting data being rebuilt
  | 'invalid_parameters' // bad query parameter
  | 'invalid_input' // bad data file (CSV, JSON) that is not an entry's content
  | 'payload_too_large'
  | 'not_found'
  | 'reconcile_refused' // refused by reconciliation's rules (a difference, a finished month, ...)
  | 'check_failed'
  | 'damaged' // the ledger file is malformed: nothing more is written to it
  | 'usage'
  | 'no_ledger'
  | 'database_auth' // the database refused the login (password, role) or a privilege
  | 'unavailable'
  | 'cancelled';

/** An error as a value: a code, one sentence, and every problem behind it. */
export class BooksError extends Error {
  readonly code: ErrorCode;
  readonly errors: Problem[];
  /** Extra machine-readable facts (existing_journal_entry_id, retry_after, ...). */
  readonly details: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    errors: Problem[] = [],
    details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'BooksError';
    this.code = code;
    this.errors = errors;
    this.details = details;
  }
}

/** True for BooksError values, also across module copies. */
export function isBooksError(e: unknown): e is BooksError {
  if (e instanceof BooksError) return true;
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'BooksError';
}

/** CAPI33 carrying every problem of the entry; the message is the first problem when there is one. */
export function entryInvalid(problems: Problem[]): BooksError {
  const first = problems[0];
  const message =
    problems.length === 1 && first
      ? first.message
      : `entry is invalid: ${problems.length} problems`;
  return new BooksError('CAPI33', message, problems);
}

/** A refusal of a request's data or parameters, its message every problem's. */
export const refusal = (code: 'invalid_input' | 'invalid_parameters', problems: Problem[]) =>
  new BooksError(code, problems.map((p) => p.message).join('; '), problems);

/** Where an idempotency key came from, as messages name it. */
export const IDEMPOTENCY_KEY_PATH = 'idempotency_key';

export const errors = {
  idempotencyKeyRefused: (
    problem: { reason: string; message: string },
    path = IDEMPOTENCY_KEY_PATH,
  ) => new BooksError('CAPI34', problem.message, [{ path, ...problem }]),
  /**
   * A key already used within the hour: by `existing`, for this same request (`same`) or another.
   * Only a repeat of the same request carries the entry's id, which clients take as "already posted".
   */
  idempotencyKeyUsed: (existing: { id: string; je_number: string }, same: boolean) => {
    const message = same
      ? `idempotency key already used within the hour: it posted ${existing.je_number}`
      : `idempotency key already used within the hour by ${existing.je_number}, for a different ` +
        'request; give this entry a key of its own';
    return new BooksError(
      'CAPI34',
      message,
      [{ path: IDEMPOTENCY_KEY_PATH, reason: 'duplicate_idempotency_key', message }],
      same
        ? { existing_journal_entry_id: existing.id, existing_je_number: existing.je_number }
        : {},
    );
  },
  noBooksStart: () =>
    new BooksError(
      'CAPI67',
      'the entity has no applied First Month of Books, so nothing can post ' +
        '(set it with `books books-start YYYY-MM`)',
    ),
  rebuilding: (retryAfterSeconds: number) =>
    new BooksError(
      'CAPI73',
      'accounting data is being rebuilt; retry once the rebuild finishes',
      [],
      { retryable: true, retry_after: retryAfterSeconds },
    ),
  windowTooLong: (start: string, end: string) =>
    new BooksError('CAPI69', `the window ${start}..${end} spans more than 5 years`, [
      {
        path: 'end_date',
        reason: 'window_too_long',
        message: 'end_date must be before start_date + 5 years',
      },
    ]),
  unauthenticated: () => new BooksError('CAPI11', 'bearer API key missing or invalid'),
  forbidden: (permission: string) =>
    new BooksError('CAPI71', `the API key lacks the permission ${permission}`, [
      { path: 'Authorization', reason: 'missing_permission', message: `needs ${permission}` },
    ]),
  usage: (message: string, problems: Problem[] = []) => new BooksError('usage', message, problems),
  notFound: (message: string) => new BooksError('not_found', message),
  /** An operation the store behind a profile does not offer (exit 2, as docs/cli.md says). */
  notOffered: (operation: string, location: string) =>
    new BooksError('usage', `${operation} is not offered by this profile (${location})`),
  cancelled: (message = 'cancelled; nothing was posted') => new BooksError('cancelled', message),
  unavailable: (message: string, details: Record<string, unknown> = {}) =>
    new BooksError('unavailable', message, [], details),
  locked: () =>
    new BooksError('unavailable', 'the ledger is locked by another writer; try again shortly'),
  /** A derived total (an account's or a tag's, for a month) past what the stores keep exactly. */
  totalOutOfRange: (where = "an account's total for a month") => {
    const message = `${where} would pass ${INT64_MAX} atoms, the most a total is kept to; nothing was posted`;
    return entryInvalid([{ path: 'lines', reason: 'total_out_of_range', message }]);
  },
};

/** The largest derived total the stores keep (a 64-bit integer, signed): 2^63 - 1 atoms. */
export const INT64_MAX = 9_223_372_036_854_775_807n;

/** Whether a derived total is one the stores keep: within 2^63 - 1 either way. */
export const storable = (total: bigint): boolean => total <= INT64_MAX && total >= -INT64_MAX;

/** `total` as it is written, or a refusal where a store could not keep it exactly. */
export function storableTotal(total: bigint, where?: string): bigint {
  if (!storable(total)) throw errors.totalOutOfRange(where);
  return total;
}
