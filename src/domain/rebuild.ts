/** How long a rebuild mark from another machine (whose process cannot be asked) is believed. */
export const FOREIGN_MARK_MS = 10 * 60 * 1000;

/** A rebuild's mark on the entity: when it began, and the process that set it (`host:pid:start`). */
export interface RebuildMark {
  rebuild_started_at: string | null;
  rebuild_owner: string | null;
}

/** What can be learnt of the process that set a mark: on this machine it can be asked. */
export interface Processes {
  host: string;
  /** True while the process `pid` lives and, when `started` is given, started then. */
  alive(pid: number, started: string): boolean;
}

/**
 * True while a rebuild runs: the mark is there and the process that set it is alive. A rebuild that
 * was killed is known dead at once on its own machine (its pid is gone, or reused by a process that
 * started later), so its mark never blocks posting; a mark from another machine is believed for
 * FOREIGN_MARK_MS.
 */
export function rebuildRunning(mark: RebuildMark, nowMs: number, processes: Processes): boolean {
  const started = mark.rebuild_started_at;
  if (started === null) return false;
  const [host, pidText, since] = (mark.rebuild_owner ?? '').split(':');
  if (host !== processes.host) return nowMs - Date.parse(started) < FOREIGN_MARK_MS;
  return processes.alive(Number(pidText), since ?? '');
}
