import { keyId } from '../domain/keys.js';
import { actingAs } from '../ledger/runtime/actor.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  BooksError,
  entryInvalid,
  errors,
  isBooksError,
  type ErrorCode,
} from '../domain/errors.js';
import { MAX_BODY_BYTES, parseJsonBody, toJson } from '../domain/json.js';
import type { Ledger, LedgerStore } from '../ledger/port.js';
import { ROUTES, type Reply, type Route } from './routes.js';

export { MAX_BODY_BYTES };

export interface ServeOptions {
  /** Where the ledgers are: each request acts on the ledger of its key's entity. */
  store: LedgerStore;
  /** One line per request, never with headers or bodies. */
  log: (line: string) => void;
  /** Time a client has to send a whole request; its headers get at most 10 s of it. */
  requestTimeoutMs?: number;
  /**
   * Requests of one entity handled at once, when the store holds many (the rest wait their turn):
   * fewer than the store's connections, so that one entity's burst never holds them all.
   */
  perEntity?: number;
}

/** Requests of one entity waiting for their turn, past which one is answered 503 to retry. */
const WAITING_PER_ENTITY = 256;

/** Turns per entity: at most `limit` requests of one ledger at once, the others in order behind. */
class Turns {
  private readonly held = new Map<Ledger, { n: number; waiting: (() => void)[] }>();

  constructor(private readonly limit: number) {}

  async take(ledger: Ledger): Promise<() => void> {
    let t = this.held.get(ledger);
    if (!t) this.held.set(ledger, (t = { n: 0, waiting: [] }));
    if (t.n < this.limit) t.n++;
    else {
      if (t.waiting.length >= WAITING_PER_ENTITY)
        throw errors.unavailable(
          `this entity has ${this.limit} requests under way and ${WAITING_PER_ENTITY} waiting; ` +
            'try again in a moment',
        );
      // The turn is handed over by the request that ends (n stays counted).
      await new Promise<void>((go) => t!.waiting.push(go));
    }
    return () => {
      const next = t!.waiting.shift();
      if (next) return next();
      if (--t!.n === 0) this.held.delete(ledger);
    };
  }
}

const STATUS: Record<ErrorCode, number> = {
  CAPI33: 400,
  CAPI34: 400,
  CAPI69: 400,
  invalid_parameters: 400,
  invalid_input: 400,
  usage: 400,
  CAPI11: 401,
  CAPI71: 403,
  not_found: 404,
  reconcile_refused: 422,
  CAPI67: 409,
  CAPI73: 409,
  payload_too_large: 413,
  check_failed: 500,
  damaged: 500,
  no_ledger: 503,
  database_auth: 503,
  unavailable: 503,
  cancelled: 500,
};

/**
 * HTTP status of each error code (docs/api.md, "Decisions"): a duplicate idempotency key is a
 * conflict, a missing one bad.
 */
export function statusOf(e: BooksError): number {
  if (e.code === 'CAPI34' && e.errors.some((p) => p.reason === 'duplicate_idempotency_key'))
    return 409;
  return STATUS[e.code];
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
  unavailable: 'Unavailable',
  damaged: 'Ledger damaged',
};

/**
 * The API of docs/api.md over any Ledger (ROUTES). Authentication and permission are checked
 * before a route's handler runs; bodies are limited to 2 MiB and headers to 16 KiB; a client slower
 * than the time limits is answered 408.
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
  const turns = opts.perEntity ? new Turns(opts.perEntity) : null;
  const server = createServer(options, (req, res) => {
    const started = process.hrtime.bigint();
    handle(req, res, opts.store, turns)
      .catch((e: unknown) => send(res, problemOf(e)))
      .finally(() => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const path = (req.url ?? '').split('?')[0];
        opts.log(
          `${new Date().toISOString()} ${req.method} ${path} ${res.statusCode} ${ms.toFixed(1)}ms`,
        );
      });
  });
  // A client that sends its request and closes its side (a raw socket, `nc -N`) still gets the answer,
  // however long the store takes to give it (a database's are never at once).
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  return server;
}

function match(path: string): { route: Route; params: string[] }[] {
  const known = MATCHED.get(path);
  if (known) return known;
  const found = ROUTES.flatMap((route) => {
    const m = route.pattern.exec(path);
    return m ? [{ route, params: m.slice(1) }] : [];
  });
  // A route's own path (no parameter in it) is kept with what it matched: posting asks it each time.
  if (STATIC_PATHS.has(path)) MATCHED.set(path, found);
  return found;
}

const STATIC_PATHS = new Set(ROUTES.filter((r) => !r.path.includes('{')).map((r) => r.path));
const MATCHED = new Map<string, { route: Route; params: string[] }[]>();

/** What a route open to all is given for a ledger: any use of it is a mistake of the route's. */
const NO_LEDGER = new Proxy({} as Ledger, {
  get: () => {
    throw new Error('a route open to all has no ledger');
  },
});

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  store: LedgerStore,
  turns: Turns | null,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const found = match(url.pathname);
  if (found.length === 0) throw errors.notFound(`no route ${url.pathname}`);
  const hit = found.find((f) => f.route.method === req.method);
  if (!hit) {
    const allowed = [...new Set(found.map((f) => f.route.method))].join(', ');
    res.setHeader('Allow', allowed);
    const body = {
      type: 'about:blank',
      title: 'Method not allowed',
      status: 405,
      code: 'method_not_allowed',
      detail: `${url.pathname} takes ${allowed}`,
      retryable: false,
      errors: [],
    };
    return send(res, { status: 405, body });
  }
  const needed = hit.route.permission;
  let ledger: Ledger | null = null;
  // The audit trail's actor: the key's id and name.
  let actor = 'key:none';
  let keyToVerify: string | undefined;
  let presented = '';
  /** Whether the key presented is no longer valid, read afresh (a failure to read is not a no). */
  const revoked = async () =>
    (await store.authenticate(presented, false).catch(() => undefined)) === null;
  if (needed) {
    // The scheme is case-insensitive (RFC 9110 11.1).
    const auth = /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? '');
    presented = auth?.[1] ?? '';
    const granted = auth ? await store.authenticate(presented, hit.route.checksKey) : null;
    if (!granted) throw errors.unauthenticated();
    if (!granted.permissions.includes(needed)) {
      // A remembered grant may be of a key revoked since: a refusal names the key first.
      if (hit.route.checksKey && (await revoked())) throw errors.unauthenticated();
      throw errors.forbidden(needed);
    }
    ledger = granted.ledger;
    const id = keyId(auth![1]!)!;
    // A write that reads the key again does so whether or not the grant was remembered: a request
    // whose body arrives after a revocation is refused all the same.
    if (hit.route.checksKey) keyToVerify = id;
    actor = `key:${id}${granted.name ? ` ${granted.name}` : ''}`;
  }
  const done = ledger && turns ? await turns.take(ledger) : null;
  const who = { actor, via: `${hit.route.method} ${hit.route.path}` };
  try {
    const handle = () =>
      hit.route.handle({
        req,
        url,
        params: hit.params,
        // A route open to all (the API's description) acts on no entity: it has none to use.
        ledger: ledger ?? NO_LEDGER,
        body: () => readJson(req),
        who,
        ...(keyToVerify ? { keyToVerify } : {}),
      });
    send(res, await (hit.route.givesActor ? handle() : actingAs(who, handle)));
  } catch (e) {
    // A remembered key is read again by the write; a request refused before it (its body, its
    // headers) is told first that its key was revoked, as it would have been without the memory.
    if (keyToVerify && !(isBooksError(e) && e.code === 'CAPI11') && (await revoked()))
      throw errors.unauthenticated();
    throw e;
  } finally {
    done?.();
  }
}

/** Reads a JSON body of at most 2 MiB; a larger one is 413, a malformed one CAPI33. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const tooLarge = () =>
    new BooksError('payload_too_large', `the body is over ${MAX_BODY_BYTES} bytes`);
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(c as Buffer);
  }
  if (type !== 'application/json') {
    const message = `Content-Type must be application/json, not '${type || 'missing'}'`;
    throw entryInvalid([{ path: 'Content-Type', reason: 'invalid_content_type', message }]);
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
  res.statusCode = reply.status;
  res.setHeader(
    'Content-Type',
    reply.status >= 400 ? 'application/problem+json' : 'application/json',
  );
  if (reply.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
  if (body?.code === 'CAPI73') res.setHeader('Retry-After', String(body.retry_after ?? 5));
  if (reply.status === 503) res.setHeader('Retry-After', '1');
  if (reply.status === 413) res.setHeader('Connection', 'close');
  res.end(toJson(reply.body, 0));
}
