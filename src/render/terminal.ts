/**
 * Text for a terminal from untrusted data. Group, member, client and instance ids, client hosts and racks come
 * from any client through __consumer_offsets; file contents from anyone. Control characters in them could clear
 * the screen, retitle the terminal or reorder text (bidi overrides), so every string a human sees is passed
 * through here and shows them escaped: C0 (except newline and tab, which renderers use for layout), DEL, C1, and
 * the bidi controls (LRM/RLM/ALM, embeddings, overrides, isolates) and line/paragraph separators.
 * JSON keeps its exact values: `terminalSafeJson` only writes those characters as \uXXXX escapes.
 */

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
// eslint-disable-next-line no-control-regex
const UNSAFE_OR_NEWLINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

function escapeChar(c: string): string {
  const code = c.charCodeAt(0)
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/** Escapes control characters visibly (`\x1b`, `\u202e`); keeps newlines and tabs. */
export function forTerminal(text: string): string {
  return text.replace(UNSAFE, escapeChar)
}

/** As forTerminal, and newlines too: for one value that must stay on one line. */
export function forTerminalLine(text: string): string {
  return text.replace(UNSAFE_OR_NEWLINE, c => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : escapeChar(c)))
}

// eslint-disable-next-line no-control-regex
const NOT_PLAIN_ASCII = /[^\t\n\x20-\x7e]/

/** JSON text with the characters JSON.stringify leaves raw (DEL, C1, bidi, separators) as \uXXXX: same value. */
export function terminalSafeJson(json: string): string {
  // printable ASCII, tab and newline only (nearly always): nothing to escape; this check is ~10x faster than the
  // replace on an audit's 6 MB of JSON
  if (!NOT_PLAIN_ASCII.test(json)) return json
  return json.replace(UNSAFE, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** True when the text holds a character forTerminal would escape (tests, assertions). */
export function hasUnsafeControl(text: string): boolean {
  UNSAFE.lastIndex = 0
  return new RegExp(UNSAFE.source).test(text)
}
