import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/**
 * The path of a program (hledger, PostgreSQL's binaries), looked for in `dirs` and on the PATH.
 * Without it, what needs it fails saying how to install it: never a silent skip.
 */
export function requireTool(name: string, install: string, dirs: string[] = []): string {
  for (const dir of [...dirs, ...(process.env.PATH ?? '').split(delimiter)]) {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  throw new Error(`${name} is needed here and is not installed: ${install}`);
}

const INSTALL = 'apt-get install postgresql (Debian; .ci/run does it)';

/** The newest PostgreSQL server binaries of the machine (Debian keeps them off the PATH). */
function pgBin(name: string): string {
  const root = '/usr/lib/postgresql';
  let versions: string[] = [];
  try {
    versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  } catch {
    // none there: the PATH may have them
  }
  return requireTool(
    name,
    INSTALL,
    versions.map((v) => join(root, v, 'bin')),
  );
}

/** The psql client, to create databases. */
export const psqlPath = () => requireTool('psql', INSTALL);

/**
 * Runs a server binary as an unprivileged user when this process is root (PostgreSQL refuses to run
 * as root, and CI runs as root): Debian's `postgres` user.
 */
function asServer(bin: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  const [cmd, argv] = root ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`${bin} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
}

/** A private PostgreSQL cluster in a temporary folder, listening on a unix socket only. */
export interface Cluster {
  dir: string;
  user: string;
  /** The URL of a database of the cluster. */
  url(database: string): string;
  createDatabase(name: string): void;
  stop(): void;
}

/**
 * Starts a private cluster: initdb into a temporary folder, no TCP port, trust for local
 * connections. `durable: false` trades durability for speed (tests kill clients, never the server);
 * a benchmark keeps PostgreSQL's defaults.
 */
export function startCluster(options: { durable: boolean }): Cluster {
  const [initdb, pgCtl] = [pgBin('initdb'), pgBin('pg_ctl')];
  const psql = psqlPath();
  const dir = mkdtempSync(join(tmpdir(), 'books-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const root = process.getuid?.() === 0;
  if (root) execFileSync('chown', ['postgres', dir]);
  const user = root ? 'postgres' : (process.env.USER ?? 'postgres');
  asServer(initdb, [
    '-D',
    data,
    '-A',
    'trust',
    '-U',
    user,
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  const settings = [`-k ${dir}`, "-c listen_addresses=''", '-c max_connections=200'];
  // Tests also read which transaction wrote a row (pg_xact_commit_timestamp: rows written in savepoints
  // carry their own xids, and the commit's time tells their transactions apart).
  if (!options.durable)
    settings.push(
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c track_commit_timestamp=on',
    );
  asServer(pgCtl, ['-D', data, '-l', join(dir, 'log'), '-o', settings.join(' '), '-w', 'start']);
  watch(process.pid, pgCtl, data, dir);
  const url = (database: string) =>
    `postgresql://${user}@/${database}?host=${encodeURIComponent(dir)}`;
  return {
    dir,
    user,
    url,
    createDatabase: (name) => createDatabase(psql, url('postgres'), name),
    stop() {
      try {
        asServer(pgCtl, ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Stops the cluster and removes its folder once this process is gone, however it ended: a run that is
 * killed (a time limit, ^C twice) never reaches its teardown, and would leave a server running.
 */
function watch(pid: number, pgCtl: string, data: string, dir: string): void {
  const root = process.getuid?.() === 0;
  const stop = `${root ? 'runuser -u postgres -- ' : ''}${pgCtl} -D '${data}' -m immediate stop`;
  const script = `while kill -0 ${pid} 2>/dev/null; do sleep 2; done; [ -d '${data}' ] && ${stop}; rm -rf '${dir}'`;
  spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' }).unref();
}

/** Creates a database in a running cluster (given its `postgres` database's URL). */
export function createDatabase(psql: string, adminUrl: string, name: string): void {
  execFileSync(psql, [adminUrl, '-qc', `CREATE DATABASE "${name}"`]);
}
