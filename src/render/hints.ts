/** Hints added to messages for humans. */

/** A group id with glob characters was probably meant as a pattern (group ids are literal, and may hold them). */
export function patternHint(group: string): string {
  return /[*?[\]]/.test(group) ? ` Group ids are literal: for a pattern use \`audit --group '${group}'\`.` : ''
}
