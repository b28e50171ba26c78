/** A password as a URL's user information (`user:pw@`) or as its query parameter (`password=`). */
const IN_USER_INFO = /^([a-z]+:\/\/[^:@/?#]*):[^@/?#]*@/i;
const IN_QUERY = /([?&]password=)[^&#]*/gi;

/** Whether a database URL holds a password (books refuses one: shell history, the config file). */
export function holdsPassword(location: string): boolean {
  IN_QUERY.lastIndex = 0;
  return IN_USER_INFO.test(location) || IN_QUERY.test(location);
}

/** A database URL for messages: a password in it replaced (books refuses such a URL; a message never shows one). */
export function redacted(location: string): string {
  return location.replace(IN_USER_INFO, '$1:***@').replace(IN_QUERY, '$1***');
}
