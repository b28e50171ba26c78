import type { Context } from '../cli/context.js';
import { BooksError } from '../domain/errors.js';
import { apiServer } from '../server/server.js';

export async function serve(
  ctx: Context,
  opts: { host: string; port: string; requestTimeout: string },
): Promise<void> {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new BooksError('usage', `--port '${opts.port}' is not a port number (0-65535)`);
  const seconds = Number(opts.requestTimeout);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600)
    throw new BooksError(
      'usage',
      `--request-timeout '${opts.requestTimeout}' is not a whole number of seconds from 1 to 3600`,
    );
  const ledger = await ctx.local('serve');
  const server = apiServer({
    ledger,
    keys: ledger,
    log: (line) => ctx.err(line),
    requestTimeoutMs: seconds * 1000,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new BooksError('usage', `cannot listen on ${opts.host}:${port}: ${e.code ?? e.message}`),
      ),
    );
    server.listen(port, opts.host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  ctx.out(`listening on http://${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${bound}`);
  // Serve until told to stop; finish the requests in flight, then close the ledger.
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      server.close(() => resolve());
      server.closeIdleConnections();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
