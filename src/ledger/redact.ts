/** A database URL for messages: any password in it replaced (books refuses one; a message never shows it). */
export function redacted(location: string): string {
  return location.replace(/^([a-z]+:\/\/[^:@/?#]*):[^@/?#]*@/i, '$1:***@');
}
