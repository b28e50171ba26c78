declare module 'pgpass' {
  /** libpq's password file (~/.pgpass, PGPASSFILE): the password of a connection, or undefined. */
  export default function pgpass(
    connInfo: { host?: string; port?: number; database?: string; user?: string },
    cb: (password: string | undefined) => void,
  ): void;
}
