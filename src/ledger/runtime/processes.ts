import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Processes } from '../../domain/rebuild.js';

/** A process's start time in clock ticks since boot (Linux), or null where it cannot be read. */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22, counted after the command name, which is in parentheses and may hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** The processes of this machine, as a rebuild mark's owner is looked for among them. */
export const localProcesses: Processes = {
  host: hostname(),
  alive(pid, started) {
    try {
      process.kill(pid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
    }
    const current = startTime(pid);
    return !started || current === null || current === started;
  },
};

/**
 * This process as a rebuild mark names it: host, pid and the process's start time, so that a pid
 * reused by another process after a crash does not pass for the rebuild.
 */
export function thisProcess(): string {
  return `${hostname()}:${process.pid}:${startTime(process.pid) ?? ''}`;
}
