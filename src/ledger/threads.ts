import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { errors } from '../domain/errors.js';

/**
 * Work that may take long (a rule's regular expression, an automatic match of thousands of lines)
 * runs on threads of its own, so that a server goes on answering every entity meanwhile: one thread
 * per core at once, a bounded queue behind them, and past it a refusal to retry (503 with
 * Retry-After over the API). Each thread has a time limit and a memory limit; one that passes either
 * is stopped.
 */
export const RUNNING = Math.max(1, availableParallelism());
export const WAITING = 32;
/** The heap a thread may take; past it the work is refused (a statement of 100,000 lines takes ~200 MB). */
const HEAP_MB = 1024;

let running = 0;
const queue: (() => void)[] = [];

/** Runs `work` once a place is free, or refuses at once when the queue is full. */
async function inPool<T>(work: () => Promise<T>): Promise<T> {
  if (running < RUNNING) running++;
  else {
    if (queue.length >= WAITING)
      throw errors.unavailable(
        `${RUNNING + WAITING} rule runs and automatic matches are running or waiting; ` +
          'try again in a moment',
        { retryable: true, retry_after: 1 },
      );
    // The place is handed over by the work that ends (running stays counted).
    await new Promise<void>((resolve) => queue.push(resolve));
  }
  try {
    return await work();
  } finally {
    const next = queue.shift();
    if (next) next();
    else running--;
  }
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
export function onThread<T>(code: string, data: unknown, limits: ThreadLimits): Promise<T> {
  return inPool(async () => {
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
  module: URL,
  name: string,
  fn: (...args: A) => T,
  args: A,
  limits: ThreadLimits,
): Promise<T> {
  if (!module.pathname.endsWith('.js') || !existsSync(fileURLToPath(module)))
    return inPool(async () => fn(...args));
  return onThread<T>(CALL, { module: module.href, name, args }, limits);
}

const CALL = `
const { parentPort, workerData } = require('node:worker_threads');
import(workerData.module).then((m) => parentPort.postMessage(m[workerData.name](...workerData.args)));
`;
