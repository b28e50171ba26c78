import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { idempotencyKeyProblem } from '../domain/entry.js';
import {
  BooksError,
  entryInvalid,
  errors,
  isBooksError,
  type ErrorCode,
} from '../domain/errors.js';
import { parseJsonBody, toJson } from '../domain/json.js';
import type { Permission } from '../domain/keys.js';
import { checkReportQuery } from '../domain/periods.js';
import type { Ledger } from '../ledger/port.js';

export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Who a bearer key is: its permissions, or null for a missing, unknown or revoked key. */
export interface KeyStore {
  authenticate(key: string): Permission[] | null;
}

export interface ServeOptions {
  ledger: Ledger;
  keys: KeyStore;
  /** One line per request, never with headers or bodies. */
  log: (line: string) => void;
  /** Time a client has to send a whole request; its headers get at most 10 s of it. */
  requestTimeoutMs?: number;
}

/** HTTP status of each error code (decisions.md); a duplicate idempotency key is a conflict, a missing one a bad request. */
export function statusOf(e: BooksError): number {
  const table: Record<ErrorCode, number> = {
    CAPI33: 400,
    CAPI34: 400,
    CAPI69: 400,
    invalid_parameters: 400,
    invalid_input: 400,
    usage: 400,
    CAPI11: 401,
    CAPI71: 403,
    not_found: 404,
    CAPI67: 409,
    CAPI73: 409,
    payload_too_large: 413,
    check_failed: 500,
    no_ledger: 500,
    unavailable: 503,
    cancelled: 500,
  };
  if (e.code === 'CAPI34' && e.errors.some((p) => p.reason === 'duplicate_idempotency_key'))
    return 409;
  return table[e.code];
}

const TITLES: Partial<Record<ErrorCode, string>> = {
  CAPI33: 'Entry is invalid',
  CAPI34: 'Idempotency key refused',
  CAPI67: 'No First Month of Books',
  CAPI69: 'Window too long',
  CAPI11: 'Unauthenticated',
  CAPI71: 'Forbidden',
  CAPI73: 'Accounting data is being rebuilt',
  invalid_parameters: 'Invalid parameters',
  payload_too_large: 'Payload too large',
  not_found: 'Not found',
};

class HttpError extends BooksError {}

/**
 * The API of accounting-api.md over any Ledger: POST /v1/journal-entries, POST /v1/journal-entries/{id}/reverse,
 * GET /v1/reports/balance-sheet and GET /v1/gl-accounts. Checks run in the order decisions.md gives:
 * authentication, permission, idempotency key, JSON shape, then the ledger's own (CAPI67, CAPI73,
 * duplicate key, entry content).
 */
export function apiServer(opts: ServeOptions): Server {
  const requestTimeout = opts.requestTimeoutMs ?? 30_000;
  const options = {
    maxHeaderSize: 16 * 1024,
    requestTimeout,
    headersTimeout: Math.min(10_000, requestTimeout),
    keepAliveTimeout: 5_000,
    // Node looks for requests past their time every 30 s by default; a slow client would hold its
    // connection that much longer than the limit says.
    connectionsCheckingInterval: Math.min(1_000, requestTimeout / 2),
  };
  const server = createServer(options, (req, res) => {
    const started = process.hrtime.bigint();
    handle(req, res, opts)
      .catch((e: unknown) => send(res, problemOf(e)))
      .finally(() => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const path = (req.url ?? '').split('?')[0];
        opts.log(
          `${new Date().toISOString()} ${req.method} ${path} ${res.statusCode} ${ms.toFixed(1)}ms`,
        );
      });
  });
  return server;
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  { ledger, keys }: ServeOptions,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname;
  const reverse = /^\/v1\/journal-entries\/([^/]+)\/reverse$/.exec(path);
  const route =
    path === '/v1/journal-entries'
      ? { method: 'POST', permission: 'customer_api:post_journal_entries' as const }
      : reverse
        ? { method: 'POST', permission: 'customer_api:post_journal_entries' as const }
        : path === '/v1/reports/balance-sheet'
          ? { method: 'GET', permission: 'customer_api:read' as const }
          : path === '/v1/gl-accounts'
            ? { method: 'GET', permission: 'customer_api:read' as const }
            : null;
  if (!route) throw new HttpError('not_found', `no route ${path}`);
  if (req.method !== route.method) {
    res.setHeader('Allow', route.method);
    return send(res, {
      status: 405,
      body: {
        type: 'about:blank',
        title: 'Method not allowed',
        status: 405,
        code: 'method_not_allowed',
        detail: `${path} takes ${route.method}`,
        retryable: false,
        errors: [],
      },
    });
  }
  // The scheme is case-insensitive (RFC 9110 11.1).
  const auth = /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? '');
  const permissions = auth ? keys.authenticate(auth[1]!) : null;
  if (!permissions) throw errors.unauthenticated();
  if (!permissions.includes(route.permission)) throw errors.forbidden(route.permission);

  if (route.method === 'GET') {
    if (path === '/v1/gl-accounts')
      return send(res, { status: 200, body: { object: 'list', data: await ledger.accounts() } });
    const q = url.searchParams;
    const twice = ['start_date', 'end_date', 'period_type'].filter(
      (name) => q.getAll(name).length > 1,
    );
    if (twice.length) {
      throw new BooksError(
        'invalid_parameters',
        `${twice.join(', ')} given more than once`,
        twice.map((name) => ({
          path: name,
          reason: 'repeated_parameter',
          message: `${name} is given more than once`,
        })),
      );
    }
    const raw = {
      start_date: q.get('start_date') ?? undefined,
      end_date: q.get('end_date') ?? undefined,
      period_type: q.get('period_type') ?? undefined,
    };
    const checked = checkReportQuery(raw);
    if ('problems' in checked)
      throw new BooksError(
        'invalid_parameters',
        checked.problems.map((p) => p.message).join('; '),
        checked.problems,
      );
    return send(res, { status: 200, body: await ledger.balanceSheet(checked.query) });
  }

  // Node joins a repeated header's values with commas; two keys for one request are refused instead.
  const given = req.headersDistinct['x-idempotency-key'];
  if (given && given.length > 1)
    throw errors.idempotencyKeyMissing('X-Idempotency-Key is given more than once');
  const keyText = given?.[0];
  const keyProblem = idempotencyKeyProblem(keyText);
  if (keyProblem) throw errors.idempotencyKeyMissing(keyProblem);
  const body = await readJson(req);
  if (reverse) {
    const date = (body as { entry_date?: unknown } | null)?.entry_date;
    const extra =
      body && typeof body === 'object' ? Object.keys(body).filter((k) => k !== 'entry_date') : [];
    if (
      body === null ||
      typeof body !== 'object' ||
      Array.isArray(body) ||
      extra.length ||
      (date !== undefined && typeof date !== 'string')
    ) {
      throw entryInvalid([
        {
          path: extra[0] ?? 'entry_date',
          reason: 'invalid_body',
          message: 'the body is {"entry_date": "YYYY-MM-DD"} (entry_date optional)',
        },
      ]);
    }
    const entry = await ledger.reverse(entryId(reverse[1]!), {
      idempotencyKey: keyText!,
      ...(typeof date === 'string' ? { entryDate: date } : {}),
    });
    return send(res, { status: 201, body: entry });
  }
  return send(res, {
    status: 201,
    body: await ledger.post(body, { idempotencyKey: keyText!, source: 'manual_api' }),
  });
}

/** Reads a JSON body of at most 2 MiB; a larger one is 413, a malformed one CAPI33. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES)
    throw new HttpError('payload_too_large', `the body is over ${MAX_BODY_BYTES} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY_BYTES)
      throw new HttpError('payload_too_large', `the body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(c as Buffer);
  }
  if (type !== 'application/json') {
    throw entryInvalid([
      {
        path: 'Content-Type',
        reason: 'invalid_content_type',
        message: `Content-Type must be application/json, not '${type || 'missing'}'`,
      },
    ]);
  }
  let text: string;
  try {
    text = utf8.decode(Buffer.concat(chunks));
  } catch {
    throw entryInvalid([
      { path: '', reason: 'invalid_json', message: 'the body is not valid UTF-8' },
    ]);
  }
  const parsed = parseJsonBody(text);
  if (!parsed.ok)
    throw entryInvalid([
      {
        path: '',
        reason: 'invalid_json',
        message: `the body is not valid JSON: ${parsed.message}`,
      },
    ]);
  return parsed.value;
}

/** JSON text must be UTF-8 (RFC 8259); a body that is not is refused, never read with replacement characters. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The entry id or number of a reversal path; a malformed percent-encoding names no entry. */
function entryId(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError('not_found', `no journal entry '${segment}'`);
  }
}

interface Reply {
  status: number;
  body: unknown;
}

/** An error as problem+json (RFC 9457 plus code, retryable, errors); never a stack trace. */
export function problemOf(e: unknown): Reply {
  const err = isBooksError(e) ? e : new BooksError('unavailable', 'internal error');
  const status = statusOf(err);
  const {
    retry_after,
    retryable: _r,
    ...details
  } = err.details as { retry_after?: number; retryable?: boolean } & Record<string, unknown>;
  return {
    status,
    body: {
      type: 'about:blank',
      title: TITLES[err.code] ?? 'Error',
      status,
      code: err.code,
      detail: err.errors.length > 1 ? `${err.errors.length} problems` : err.message,
      retryable: err.code === 'CAPI73',
      errors: err.errors.map(({ path, reason, message }) => ({ path, reason, message })),
      ...details,
      ...(retry_after !== undefined ? { retry_after } : {}),
    },
  };
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent) return;
  const body = reply.body as { code?: string; retry_after?: number } | null;
  const isProblem = reply.status >= 400;
  res.statusCode = reply.status;
  res.setHeader('Content-Type', isProblem ? 'application/problem+json' : 'application/json');
  if (reply.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
  if (body?.code === 'CAPI73') res.setHeader('Retry-After', String(body.retry_after ?? 5));
  if (reply.status === 413) res.setHeader('Connection', 'close');
  res.end(toJson(reply.body, 0));
}
