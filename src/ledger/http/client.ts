import { BooksError, entryInvalid, type ErrorCode, type Problem } from '../../domain/errors.js';
import { parseJsonBody, toJson } from '../../domain/json.js';

export interface ClientOptions {
  baseUrl: string;
  apiKey: string | undefined;
  /** Name of the variable the key comes from, for messages (never the key). */
  apiKeyEnv: string;
  /** Attempts for a retryable failure (CAPI73, network): at least 1. */
  attempts?: number;
  /** First back-off; doubled each time, Retry-After wins when the server sends one. */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const KNOWN: ReadonlySet<string> = new Set([
  'CAPI11',
  'CAPI33',
  'CAPI34',
  'CAPI67',
  'CAPI69',
  'CAPI71',
  'CAPI73',
  'invalid_parameters',
  'payload_too_large',
  'not_found',
  'invalid_input',
  'reconcile_refused',
]);

/**
 * The accounting API over HTTP with a bearer key. Every status and code maps to the same BooksError
 * values as the local ledger raises. CAPI73 and network failures are retried with bounded back-off
 * (honouring Retry-After) under the same idempotency key; a CAPI34 duplicate on a retry means the
 * first attempt posted, and is raised with `already_posted` so callers can count it as done. Answers
 * are read exactly: an integer beyond 2^53 arrives as a bigint, never rounded.
 */
export class ApiClient {
  readonly location: string;
  private readonly opts: Required<Omit<ClientOptions, 'apiKey'>> & { apiKey: string | undefined };

  constructor(options: ClientOptions) {
    this.location = options.baseUrl.replace(/\/+$/, '');
    this.opts = {
      attempts: 5,
      backoffMs: 250,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      ...options,
    };
  }

  async request(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    idempotencyKey?: string,
    extra: Record<string, string> = {},
  ): Promise<unknown> {
    if (!this.opts.apiKey)
      throw new BooksError('CAPI11', `no API key: set ${this.opts.apiKeyEnv} for ${this.location}`);
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.opts.apiKey}`,
      Accept: 'application/json',
      ...extra,
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (idempotencyKey !== undefined) headers['X-Idempotency-Key'] = idempotencyKey;
    const init = { method, headers, ...(body !== undefined ? { body: toJson(body, 0) } : {}) };
    let delay = this.opts.backoffMs;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.once(path, init, attempt);
      if ('value' in outcome) return outcome.value;
      if (!outcome.retry || attempt >= this.opts.attempts) throw outcome.error;
      await this.opts.sleep(outcome.after ?? delay);
      delay *= 2;
    }
  }

  /** One attempt: the answer, or the error with whether (and when) to try again. */
  private async once(
    path: string,
    init: RequestInit,
    attempt: number,
  ): Promise<{ value: unknown } | { error: BooksError; retry: boolean; after?: number }> {
    let res: Response;
    try {
      res = await fetch(this.location + path, { ...init, signal: AbortSignal.timeout(60_000) });
    } catch (e) {
      const cause =
        (e as Error).cause instanceof Error
          ? ((e as Error).cause as Error).message
          : (e as Error).message;
      return {
        error: new BooksError('unavailable', `cannot reach ${this.location}: ${cause}`),
        retry: true,
      };
    }
    const text = await res.text();
    if (res.ok) return { value: parseAnswer(text, this.location) };
    const err = toError(res.status, text, this.location);
    if (
      err.code === 'CAPI34' &&
      attempt > 1 &&
      err.errors.some((p) => p.reason === 'duplicate_idempotency_key')
    ) {
      // Our own earlier attempt went through before its answer was lost.
      const id = err.details.existing_je_number ?? err.details.existing_journal_entry_id;
      const message = `already posted${id ? ` as ${String(id)}` : ''}`;
      return {
        error: new BooksError('CAPI34', message, err.errors, {
          ...err.details,
          already_posted: true,
        }),
        retry: false,
      };
    }
    const retry =
      err.code === 'CAPI73' || res.status === 502 || res.status === 503 || res.status === 504;
    const after = Number(res.headers.get('retry-after'));
    return {
      error: err,
      retry,
      ...(Number.isFinite(after) && after > 0 ? { after: Math.min(after * 1000, 30_000) } : {}),
    };
  }
}

function parseAnswer(text: string, where: string): unknown {
  const parsed = parseJsonBody(text);
  if (!parsed.ok)
    throw new BooksError('unavailable', `${where} answered with something that is not JSON`);
  return parsed.value;
}

/** A problem+json answer as the BooksError the local ledger would raise. */
function toError(status: number, text: string, where: string): BooksError {
  const parsed = parseJsonBody(text);
  // Not problem+json (a proxy's page): judged by status alone below.
  const p = (parsed.ok && parsed.value && typeof parsed.value === 'object' ? parsed.value : {}) as {
    code?: unknown;
    detail?: unknown;
    errors?: unknown;
  } & Record<string, unknown>;
  const byStatus: Record<number, ErrorCode> = {
    401: 'CAPI11',
    403: 'CAPI71',
    404: 'not_found',
    413: 'payload_too_large',
  };
  const code =
    typeof p.code === 'string' && KNOWN.has(p.code)
      ? (p.code as ErrorCode)
      : (byStatus[status] ?? 'unavailable');
  const problems = Array.isArray(p.errors) ? (p.errors as Problem[]) : [];
  const {
    type: _t,
    title: _ti,
    status: _s,
    code: _c,
    detail: _d,
    errors: _e,
    retryable,
    ...rest
  } = p;
  const details = retryable === true ? { retryable: true, ...rest } : rest;
  // Built as the local ledger builds them, so that both print the same.
  if (code === 'CAPI33' && problems.length)
    return new BooksError(code, entryInvalid(problems).message, problems, details);
  const message =
    typeof p.detail === 'string' && p.detail
      ? p.detail
      : (problems[0]?.message ?? `${where} answered ${status}`);
  return new BooksError(code, message, problems, details);
}
