import { command, str } from '../cli/command.js';
import { wholeFlag } from '../cli/flags.js';
import { BooksError, errors } from '../domain/errors.js';
import { oneEntity, SERVER_POOL } from '../ledger/open.js';
import { actingAs, terminalWho } from '../ledger/runtime/actor.js';

export default command({
  flags: [
    { flags: '--host <host>', description: 'address to bind', default: '127.0.0.1' },
    { flags: '--port <port>', description: 'port (0 picks a free one)', default: '8080' },
    {
      flags: '--request-timeout <seconds>',
      description: 'time a client has to send a whole request (its headers: at most 10 s)',
      default: '30',
    },
  ],
  help: `Prints "listening on http://HOST:PORT" when ready and one line per request on standard error (never
keys or bodies). Requests carry "Authorization: Bearer KEY" (books keys create). Bodies are limited
to 2 MiB and headers to 16 KiB; a client that is slower than the time limits is answered 408 and
disconnected. Stops on SIGINT or SIGTERM after the requests in flight. Over a database, every entity's
keys are served; with --entity SLUG (or BOOKS_ENTITY) that entity's alone.`,
  examples: ['books serve --port 8080'],
  options: (raw) => ({
    host: str(raw, 'host')!,
    port: wholeFlag('--port', str(raw, 'port'), 0, 65535)!,
    requestTimeoutSeconds: wholeFlag('--request-timeout', str(raw, 'requestTimeout'), 1, 3600)!,
  }),
  // Opening the store (which may bring its schema up to date) is the terminal user's; each request is
  // its key's, set around the request by the server.
  setsActor: true,
  async run(ctx, opts) {
    const target = ctx.target();
    const store = await actingAs(terminalWho('serve'), async () => {
      const all = await ctx.store();
      if (!all) throw errors.notOffered('serve', target.kind === 'remote' ? target.url : '');
      // --entity (or BOOKS_ENTITY) serves that entity alone: a key of another entity is refused as
      // unknown (401). Without it, every entity of the database is served.
      const slug = target.kind === 'database' ? target.entity : undefined;
      const one = slug === undefined ? all : await oneEntity(all, slug);
      for (const p of await one.verify())
        ctx.err(`${p.message}: writes are refused, reads may fail`);
      one.serving?.();
      return one;
    });
    const { apiServer } = await import('../server/server.js');
    const log = linesPerTurn((text) => ctx.err(text));
    const server = apiServer({
      store,
      log: log.line,
      requestTimeoutMs: opts.requestTimeoutSeconds * 1000,
      // A database's entities share its connections: no entity takes them all.
      ...(target.kind === 'database' ? { perEntity: SERVER_POOL - 1 } : {}),
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) =>
        reject(listenError(e, opts.host, opts.port)),
      );
      server.listen(opts.port, opts.host, () => resolve());
    });
    const address = server.address();
    const bound = typeof address === 'object' && address ? address.port : opts.port;
    // Serve until told to stop; finish the requests in flight, then close the ledger. The handlers
    // are in place before "listening" is said: a stop sent the moment it is read is a clean stop.
    const stopped = new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        server.close(() => resolve());
        server.closeIdleConnections();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    ctx.out(
      `listening on http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${bound}`,
    );
    await stopped;
    log.flush();
  },
});

/**
 * Request log lines gathered in one turn of the event loop and written at its end, in one write: a
 * write to stderr is synchronous, and one per request cost a post 3–4 µs of a server's time.
 */
function linesPerTurn(write: (text: string) => void): { line(text: string): void; flush(): void } {
  let lines: string[] = [];
  const flush = () => {
    if (lines.length > 0) write(lines.join('\n'));
    lines = [];
  };
  return {
    line: (text) => {
      if (lines.push(text) === 1) setImmediate(flush);
    },
    flush,
  };
}

function listenError(e: NodeJS.ErrnoException, host: string, port: number): BooksError {
  if (e.code === 'EADDRINUSE') {
    return errors.unavailable(
      `port ${port} on ${host} is already in use by another program: stop it, or choose another port with --port`,
    );
  }
  if (e.code === 'EACCES')
    return errors.usage(
      `port ${port} on ${host} needs privileges this user lacks: choose a port above 1023 with --port`,
    );
  if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND')
    return errors.usage(`--host ${host} is not an address of this machine`);
  return errors.usage(`cannot listen on ${host}:${port}: ${e.code ?? e.message}`);
}
