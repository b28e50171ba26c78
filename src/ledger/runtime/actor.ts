import { AsyncLocalStorage } from 'node:async_hooks';
import { userInfo } from 'node:os';
import type { Who } from '../../domain/audit.js';

/**
 * Who is changing the ledger, for its audit trail: set around a command at a terminal and around each
 * request `books serve` answers, read where the change is written. Carried by the async context, so
 * that the port's operations need no argument for it; a write queued for a group captures it when
 * it is asked (see journal/postGroup.ts).
 */
const current = new AsyncLocalStorage<Who>();

/** Runs fn as `who`. */
export function actingAs<T>(who: Who, fn: () => T): T {
  return current.run(who, fn);
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

/** Who is acting now: as set around the command or request, else the terminal's user. */
export function whoNow(): Who {
  return current.getStore() ?? { actor: terminalActor(), via: 'cli' };
}
