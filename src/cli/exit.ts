import type { ErrorCode } from '../domain/errors.js';

export const EXIT = {
  ok: 0,
  refused: 1,
  usage: 2,
  auth: 3,
  unavailable: 4,
  cancelled: 130,
} as const;

/** The one table from error code to exit code (docs/cli.md). */
export function exitCodeFor(code: ErrorCode): number {
  switch (code) {
    case 'CAPI33':
    case 'CAPI34':
    case 'CAPI67':
    case 'CAPI69':
    case 'invalid_input':
    case 'not_found':
    case 'reconcile_refused':
    case 'check_failed':
    case 'damaged':
    case 'payload_too_large':
      return EXIT.refused;
    case 'CAPI11':
    case 'CAPI71':
    case 'database_auth':
      return EXIT.auth;
    case 'CAPI73':
    case 'unavailable':
      return EXIT.unavailable;
    case 'cancelled':
      return EXIT.cancelled;
    case 'usage':
    case 'no_ledger':
    case 'invalid_parameters':
      return EXIT.usage;
  }
}
