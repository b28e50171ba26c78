import { BooksError, errors, isBooksError } from '../../domain/errors.js';
import { redacted } from '../runtime/redact.js';

/** What pg says, without a code, of a connection the server or the network ended. */
const LOST = /^(Client has encountered a connection error|Connection terminated)/;

/** Connection failures worth retrying: the network, a server starting, stopping or full. */
const UNREACHABLE = [
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOENT',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
];

/**
 * A database error as the ledger's errors say it, by SQLSTATE: what is worth retrying (exit 4), what
 * the login or a privilege refuses (exit 3), a database that cannot hold or write books here (exit 2),
 * bad text (exit 1); anything else as it is (a defect: "internal error").
 */
export function dbError(e: unknown, location: string): unknown {
  if (isBooksError(e)) return e;
  const code = String((e as { code?: unknown }).code ?? '');
  const message = (e as Error).message;
  const where = redacted(location);
  if (UNREACHABLE.includes(code) || code.startsWith('08') || LOST.test(message ?? ''))
    return errors.unavailable(`cannot reach the database at ${where}: ${message}`);
  // The ledger was closed while a write waited for a connection: nothing of it was written.
  if (/^Cannot use a pool after calling end/.test(message ?? ''))
    return errors.unavailable(
      `the ledger at ${where} was closed before this write; nothing was written`,
    );
  if (code === '28P01' || code === '28000')
    return new BooksError(
      'database_auth',
      `the database at ${where} refused the login: ${message}`,
    );
  if (code === '42501')
    return new BooksError(
      'database_auth',
      `the database at ${where} refused: ${message} (grant the role the use of books' tables)`,
    );
  if (code === '3D000') return new BooksError('no_ledger', `cannot open ${where}: ${message}`);
  if (code === '25006')
    return new BooksError(
      'no_ledger',
      `cannot write ${where}: the database is read-only (a standby, or default_transaction_read_only ` +
        'is on); point the ledger at the primary to write',
    );
  if (code === '3F000')
    return new BooksError(
      'no_ledger',
      `${where} has no books tables where its search_path looks (${message}); ` +
        'set search_path to the schema that holds them (or create them with books init)',
    );
  if (code === '55P03') return errors.locked();
  if (code === '40001' || code === '40P01')
    return errors.unavailable(`the database gave up a transaction (${code}); try again`);
  if (code === '53100' || code === '53200')
    return errors.unavailable(
      `the database at ${where} is out of resources (${message}); nothing was written`,
    );
  if (code === '54000') {
    const said = `a value is too long for the database to keep (${message})`;
    return new BooksError('invalid_input', said, [{ path: '', reason: 'too_long', message: said }]);
  }
  // What the scan of parameters could not see (inside a value the server decodes): bad data.
  if (code === '22021' || code === '22P05') {
    const said =
      'a text holds a character the database cannot keep (a NUL, or bytes that are not UTF-8)';
    return new BooksError('invalid_input', said, [
      { path: '', reason: 'invalid_text', message: said },
    ]);
  }
  // Amounts are checked before they are written: only a derived total's sum passes a bigint.
  if (code === '22003') return errors.totalOutOfRange();
  if (code === 'ERR_INVALID_URL') return errors.usage(`the database URL '${where}' cannot be read`);
  return e;
}
