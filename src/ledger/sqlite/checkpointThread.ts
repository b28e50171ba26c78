import { parentPort, workerData } from 'node:worker_threads';
import { connect } from './connection.js';

/**
 * A served ledger's checkpoints (Checkpointer), on a connection and a thread of their own: asked,
 * it copies what the WAL holds into the file and says so. PASSIVE waits for no lock and makes no
 * writer or reader wait; a checkpoint that cannot finish now is finished by a later one.
 */
const db = connect((workerData as { path: string }).path);
parentPort!.on('message', (m: 'checkpoint' | 'close') => {
  if (m === 'close') {
    // Closed as any connection: the server's own, closed last, then checkpoints and removes the WAL.
    db.close();
    parentPort!.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // The next checkpoint copies what this one could not, or the server's own at its limit.
  }
  parentPort!.postMessage('done');
});
