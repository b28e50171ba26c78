import pg from 'pg';
import { clientConfig } from './config.js';
import { transactionOn, type Conn, type PgDb, type Transaction } from './db.js';

/**
 * A connection of its own, in pipeline mode, for a large import's transaction: each statement is
 * written to the server as it is queued, without waiting for the one before to answer. Otherwise the
 * server idled between a window's inserts until the client's event loop turned, read the answer and
 * sent the next (a 1M-line import's writer was idle a third of the time).
 */
export async function pipelined(db: PgDb): Promise<Transaction> {
  const client = new pg.Client({ ...clientConfig(db.location), pipeline: true });
  // A connection the server ends (a terminated backend) fails its queries; without a listener its
  // 'error' event would end the process.
  client.on('error', () => {});
  const end = () => void client.end().catch(() => {});
  try {
    await client.connect();
  } catch (e) {
    end();
    throw db.error(e);
  }
  const conn: Conn = { pipelined: true, query: (c) => client.query(c), release: end };
  return transactionOn(conn, db);
}
