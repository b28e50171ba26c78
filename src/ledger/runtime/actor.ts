import { AsyncLocalStorage } from 'node:async_hooks';
import { userInfo } from 'node:os';
import type { Who } from '../../domain/audit.js';

/**
 * Who is changing the ledger, for its audit trail: set around a command at a terminal and around each
 * request `books serve` answers, read where the change is written. Carried by the async context, so
 * that the port's operations need no argument for it; a write captures it when it is asked (see
 * journal/postGroup.ts). A post may give it explicitly instead (PostOptions.who).
 */
const current = new AsyncLocalStorage<Who>();

/**
 * Calls of actingAs not yet ended. At none, the async context is switched off: while it is on, Node 20
 * runs a hook on every promise made anywhere in the process (measured: 5% of a served post's time).
 * `books serve` enters it only around requests that do not give their actor explicitly (a post does).
 */
let inside = 0;

const leave = () => {
  if (--inside === 0) current.disable();
};

/** Runs fn as `who` (until the promise fn returns settles). */
export function actingAs<T>(who: Who, fn: () => T): T {
  inside++;
  let result: T;
  try {
    result = current.run(who, fn);
  } catch (e) {
    leave();
    throw e;
  }
  if (result instanceof Promise) return result.finally(leave) as T;
  leave();
  return result;
}

let osUser: string | null = null;

/** The operating system's user, for a change made at a terminal. */
function terminalUser(): string {
  if (osUser === null) {
    try {
      osUser = userInfo().username;
    } catch {
      osUser = process.env.USER ?? process.env.USERNAME ?? 'unknown';
    }
  }
  return osUser;
}

/** The actor of a change made at a terminal: `cli:` and the operating system's user. */
export const terminalActor = (): string => `cli:${terminalUser()}`;

/** Who acts in a command run at a terminal: its user, through `cli PATH`. */
export const terminalWho = (path: string): Who => ({ actor: terminalActor(), via: `cli ${path}` });

/** Who is acting now: as set around the command or request, else the terminal's user. */
export function whoNow(): Who {
  return current.getStore() ?? { actor: terminalActor(), via: 'cli' };
}
