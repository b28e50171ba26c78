/**
 * A database URL for messages: a password in it, as user information or as a query parameter,
 * replaced (books refuses such a URL; a message never shows one).
 */
export function redacted(location: string): string {
  return location
    .replace(/^([a-z]+:\/\/[^:@/?#]*):[^@/?#]*@/i, '$1:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***');
}
