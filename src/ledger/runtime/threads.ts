import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { errors } from '../../domain/errors.js';

/**
 * Work that may take long (a rule's regular expression, an automatic match of thousands of lines)
 * runs on threads of its own, so that a server goes on answering every entity meanwhile: one thread
 * per core at once, a bounded queue behind them, and past it a refusal to retry (503 with
 * Retry-After over the API). One ledger (an entity) takes at most all threads but one, and a quarter
 * of the queue: another entity's work always finds room. Each thread has a time limit and a memory
 * limit; one that passes either is stopped.
 */
export const RUNNING = Math.max(2, availableParallelism());
export const WAITING = 32;
export const RUNNING_EACH = Math.max(1, RUNNING - 1);
export const WAITING_EACH = WAITING / 4;
/** The heap a thread may take; past it the work is refused (a match of 10,000 lines takes ~60 MB). */
const HEAP_MB = 512;

let running = 0;
const runningBy = new Map<object, number>();
const waitingBy = new Map<object, number>();
const queue: { owner: object; go: () => void }[] = [];
const add = (m: Map<object, number>, owner: object, n: number) => {
  const v = (m.get(owner) ?? 0) + n;
  if (v) m.set(owner, v);
  else m.delete(owner);
};

/** Runs `work` once a place is free for its owner (a ledger), or refuses at once when none can be. */
async function inPool<T>(owner: object, work: () => Promise<T>): Promise<T> {
  if (running < RUNNING && (runningBy.get(owner) ?? 0) < RUNNING_EACH) {
    running++;
    add(runningBy, owner, 1);
  } else {
    if (queue.length >= WAITING || (waitingBy.get(owner) ?? 0) >= WAITING_EACH)
      throw errors.unavailable(
        'too many rule runs and automatic matches are running or waiting ' +
          `(${RUNNING} at once, ${WAITING} waiting, ${WAITING_EACH} of them a ledger's); try again in a moment`,
        { retryable: true, retry_after: 1 },
      );
    add(waitingBy, owner, 1);
    // The place is given by the work that ends (started(), below, counts it).
    await new Promise<void>((go) => queue.push({ owner, go }));
  }
  try {
    return await work();
  } finally {
    running--;
    add(runningBy, owner, -1);
    startNext();
  }
}

/** Starts the first waiting work whose owner has a thread to spare, if a thread is free. */
function startNext(): void {
  if (running >= RUNNING) return;
  const i = queue.findIndex((w) => (runningBy.get(w.owner) ?? 0) < RUNNING_EACH);
  if (i < 0) return;
  const [w] = queue.splice(i, 1);
  running++;
  add(runningBy, w!.owner, 1);
  add(waitingBy, w!.owner, -1);
  w!.go();
}

/** What a thread's work says when it passes its limit, in words for the person who asked. */
export interface ThreadLimits {
  ms: number;
  tooSlow: () => Error;
  tooLarge: () => Error;
}

/**
 * Runs `code` (a script that reads `workerData` and posts one message) on a thread of the pool and
 * answers what it posts.
 */
export function onThread<T>(
  owner: object,
  code: string,
  data: unknown,
  limits: ThreadLimits,
): Promise<T> {
  return inPool(owner, async () => {
    const worker = new Worker(code, {
      eval: true,
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        new Promise<T>((resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', (e: Error & { code?: string }) =>
            reject(e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? limits.tooLarge() : e),
          );
          worker.once('exit', () => reject(limits.tooLarge()));
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(limits.tooSlow()), limits.ms);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      await worker.terminate();
    }
  });
}

/**
 * Calls an exported function of a built module on a thread of the pool. Running from the
 * TypeScript sources (the tests' in-process ledgers), where no built module is there to load, it
 * runs here instead.
 */
export async function callOnThread<A extends unknown[], T>(
  owner: object,
  module: URL,
  name: string,
  fn: (...args: A) => T,
  args: A,
  limits: ThreadLimits,
): Promise<T> {
  if (!module.pathname.endsWith('.js') || !existsSync(fileURLToPath(module)))
    return inPool(owner, async () => fn(...args));
  return onThread<T>(owner, CALL, { module: module.href, name, args }, limits);
}

const CALL = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.module).then((m) => parentPort.postMessage(m[workerData.name](...workerData.args)));
`;
