/**
 * Tables for humans (cli-table3): plain borders, so output pastes well into tickets. Every cell is terminal-safe
 * (control characters escaped, see terminal.ts) before its width is measured; colour, when asked for, is added
 * after that (cli-table3 measures text without its colour sequences).
 *
 * With a width (the terminal's columns, or COLUMNS), a table that would be wider is fitted: columns share the room,
 * the narrow ones keep their natural width, the wide ones wrap inside their cells at spaces. Nothing is cut and no
 * word is split: when some word (an id, a host) is wider than its column would be, the table is drawn instead as one
 * record per row (`psql \x`): `COLUMN | value` lines, values wrapped at spaces. Without a width (0 or unknown: a
 * pipe without COLUMNS, a file, a terminal that reports 0 columns) a table keeps its natural width.
 */
import {createRequire} from 'node:module'
import type TableClass from 'cli-table3'
import {forTerminal} from './terminal.js'

// cli-table3 (with string-width and its regexes) is loaded on the first table drawn: a command importing a
// renderer for its text output does not pay for it under --json (start-up)
const require = createRequire(import.meta.url)
let cliTable3: {Table: typeof TableClass; strlen: (text: string) => number} | undefined
const tables = () =>
  (cliTable3 ??= {
    Table: require('cli-table3') as typeof TableClass,
    strlen: (require('cli-table3/src/utils.js') as {strlen: (text: string) => number}).strlen,
  })

export interface TableOptions {
  /** Columns of the whole table, borders included; 0 or absent: no limit. */
  width?: number
  /** Colour for a cell's (already escaped) text: returns the text with SGR sequences. */
  paint?: (column: number, text: string, row: number) => string
  /** Rows per cli-table3 table (tests; default 200). */
  blockRows?: number
}

/** Narrowest a fitted column gets (its content; padding and border come on top). */
const MIN_COLUMN = 6

export function renderTable(head: string[], rows: Array<Array<string | number>>, align?: Array<'left' | 'right'>, options: TableOptions = {}): string {
  const safeHead = head.map(forTerminal)
  let cells = rows.map(r => r.map(c => forTerminal(String(c))))
  const width = options.width ?? 0
  const widths = fitWidths(safeHead, cells, width)
  if (widths) {
    // a word wider than its column would have to be split: a record per row instead
    if (!wordsFit(widths, safeHead, cells, width)) return renderRecords(safeHead, cells, width, options.paint)
    cells = cells.map(r => r.map((c, i) => wrap(c, widths[i])))
  }
  const tableHead = widths ? safeHead.map((h, i) => wrap(h, widths[i])) : safeHead
  const paint = options.paint
  // A cell of several lines is given to cli-table3 as that many rows of one line each (the same text: compact
  // tables draw no line between rows): its own multi-line cells cost time cubic in their lines (a cell of 40
  // lines, e.g. a group's stuck members wrapped to a terminal, took 2.9 s; 39 such rows over 4 minutes).
  const body: string[][] = []
  for (const [ri, r] of cells.entries()) {
    const lines = r.map((c, i) => c.split('\n').map(line => (paint && line ? paint(i, line, ri) : line)))
    const height = Math.max(1, ...lines.map(l => l.length))
    for (let k = 0; k < height; k++) body.push(lines.map(l => l[k] ?? ''))
  }
  const plain = paint ? undefined : drawPlain(tableHead, body, align)
  if (plain !== undefined) return plain
  const {Table} = tables()
  const make = (head: string[], colWidths?: number[]) =>
    new Table({
      head,
      style: {head: [], border: [], compact: true},
      ...(align ? {colAligns: align} : {}),
      ...(colWidths ? {colWidths} : {}),
      chars: {mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': ''},
    })
  const block = options.blockRows ?? BLOCK_ROWS
  if (body.length <= block) {
    const table = make(tableHead)
    table.push(...body)
    return table.toString()
  }
  // cli-table3 lays out a table in time quadratic in its rows (every cell is checked against the rows above it for
  // spans: 4,000 rows took 4 s, an `audit --all` of 10,000 groups far longer), so a long table is drawn in blocks
  // of the same column widths (measured as cli-table3 measures) and joined: the same text as one table.
  const colWidths = tableHead.map((h, i) => PADDING + widest(strlen(h), body, r => strlen(r[i])))
  const out: string[] = []
  for (let k = 0; k < body.length; k += block) {
    const table = make(k === 0 ? tableHead : [], colWidths)
    table.push(...body.slice(k, k + block))
    const lines = table.toString().split('\n')
    // the first block keeps its top border and head, the last its bottom border
    out.push(...lines.slice(k === 0 ? 0 : 1, k + block < body.length ? -1 : undefined))
  }
  return out.join('\n')
}

/**
 * Characters cli-table3 measures one column wide each (ASCII and the few symbols our tables print: ×, →, …, ·, –,
 * —, ≤, ≥); no colour sequence, no line break. The tests check the fast drawer against cli-table3 over them.
 */
const NARROW = /^[\x20-\x7e×→…·–—≤≥]*$/

/**
 * The table cli-table3 draws (compact, no lines between rows, one space of padding), drawn directly when every
 * cell is one line of NARROW characters, so that a width is a length: cli-table3's layout measures every cell with
 * string-width and checks it for spans, ~0.1 ms a cell (a 130-row `group records` table: ~100 ms of CPU). Else
 * undefined, and cli-table3 draws it.
 */
export function drawPlain(head: readonly string[], body: readonly string[][], align?: ReadonlyArray<'left' | 'right'>): string | undefined {
  const n = head.length > 0 ? head.length : (body[0]?.length ?? 0)
  if (n === 0 || body.some(r => r.length !== n)) return undefined
  if (!head.every(c => NARROW.test(c)) || !body.every(r => r.every(c => NARROW.test(c)))) return undefined
  const widths = Array.from({length: n}, (_, i) => widest(head[i]?.length ?? 0, body, r => r[i].length))
  const rule = (left: string, mid: string, right: string) => left + widths.map(w => '─'.repeat(w + PADDING)).join(mid) + right
  const line = (r: readonly string[]) => `│${r.map((c, i) => (align?.[i] === 'right' ? ` ${c.padStart(widths[i])} ` : ` ${c.padEnd(widths[i])} `)).join('│')}│`
  return [rule('┌', '┬', '┐'), ...(head.length > 0 ? [line(head)] : []), ...body.map(line), rule('└', '┴', '┘')].join('\n')
}

/** Rows drawn by one cli-table3 table (see renderTable). */
const BLOCK_ROWS = 200
/** cli-table3's padding of a cell: one space each side. */
const PADDING = 2
/** The width cli-table3 gives a text (its own measure: colour sequences left out, wide characters count two). */
const strlen = (text: string): number => tables().strlen(text)

const len = (s: string) => [...s].length

/** The largest of `first` and measure(row) over the rows, in a loop (spreading 100,000 rows into Math.max throws). */
function widest<T>(first: number, rows: readonly T[], measure: (row: T) => number): number {
  let w = first
  for (const r of rows) w = Math.max(w, measure(r))
  return w
}

function natural(text: string): number {
  return Math.max(0, ...text.split('\n').map(len))
}

/**
 * The content width of each column when the natural table is wider than `width`, else undefined. Water-filling:
 * columns narrower than an equal share of what is left keep their width; the rest split the remainder.
 */
export function fitWidths(head: readonly string[], rows: readonly string[][], width: number): number[] | undefined {
  if (!(width > 0)) return undefined
  const n = head.length
  const want = head.map((h, i) => widest(natural(h), rows, r => natural(r[i] ?? '')))
  const overhead = n + 1 + 2 * n // borders, and one space of padding each side
  if (want.reduce((a, b) => a + b, 0) + overhead <= width) return undefined
  let room = Math.max(width - overhead, n * MIN_COLUMN)
  const out = new Array<number>(n)
  const order = want.map((w, i) => [w, i] as const).sort((a, b) => a[0] - b[0])
  for (const [k, [w, i]] of order.entries()) {
    const share = Math.floor(room / (n - k))
    out[i] = Math.max(Math.min(w, share), Math.min(w, MIN_COLUMN))
    room -= out[i]
  }
  return out
}

/** Each line of the cell within `width`: at spaces where it can, words longer than the line broken. */
export function wrap(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap(line => {
      if (len(line) <= width) return [line]
      const out: string[] = []
      let cur = ''
      for (const word of line.split(/ +/)) {
        let w = word
        if (cur && len(cur) + 1 + len(w) <= width) {
          cur += ` ${w}`
          continue
        }
        if (cur) out.push(cur)
        cur = ''
        while (len(w) > width) {
          const chars = [...w]
          out.push(chars.slice(0, width).join(''))
          w = chars.slice(width).join('')
        }
        cur = w
      }
      if (cur) out.push(cur)
      return out
    })
    .join('\n')
}

/** Prose for a terminal `width` wide (0: as it is): wrapped at spaces, continuation lines indented by `indent`. */
export function wrapProse(text: string, width: number, indent = 0): string {
  if (!(width > 0)) return text
  const room = Math.max(MIN_COLUMN, width - indent - 1)
  return text
    .split('\n')
    .map(line => {
      if (len(line) < width) return line
      const lead = line.match(/^ */)![0].length
      const [first, ...rest] = wrap(line.slice(lead), Math.max(MIN_COLUMN, width - lead - 1)).split('\n')
      return [
        ' '.repeat(lead) + first,
        ...wrap(rest.join(' '), room)
          .split('\n')
          .map(l => ' '.repeat(indent) + l),
      ]
        .filter(l => l.trim() !== '')
        .join('\n')
    })
    .join('\n')
}

/** The widest word (text between spaces and line breaks) of a cell. */
function longestWord(text: string): number {
  let w = 0
  for (const word of text.split(/[ \n]+/)) w = Math.max(w, len(word))
  return w
}

/** The fitted widths hold the table in `width` and every word of every cell (head included) in its column. */
function wordsFit(widths: readonly number[], head: readonly string[], rows: readonly string[][], width: number): boolean {
  if (widths.reduce((a, b) => a + b, 0) + 3 * widths.length + 1 > width) return false
  return widths.every((w, i) => longestWord(head[i]) <= w && rows.every(r => longestWord(r[i] ?? '') <= w))
}

/**
 * One record per row, as `psql \x` prints them: a `-[ RECORD n ]` line, then `COLUMN | value` per column, values
 * wrapped at spaces within `width` (continuation lines under the value). A word too wide for the value's room
 * (a long id) gets a line of its own from the first column, whole; only a word wider than the terminal is split.
 */
export function renderRecords(head: readonly string[], rows: readonly string[][], width: number, paint?: TableOptions['paint']): string {
  const keyWidth = Math.max(...head.map(len))
  const room = Math.max(MIN_COLUMN, width - keyWidth - 3)
  const out: string[] = []
  for (const [ri, r] of rows.entries()) {
    const title = `-[ RECORD ${ri + 1} ]`
    out.push(title + '-'.repeat(Math.max(0, Math.min(width, 40) - len(title))))
    for (const [i, h] of head.entries()) {
      const key = h + ' '.repeat(keyWidth - len(h))
      const lines = valueLines(r[i] ?? '', room, width)
      if (lines[0].own) out.push(`${key} |`)
      lines.forEach((l, k) => {
        const text = paint && l.text ? paint(i, l.text, ri) : l.text
        out.push(l.own ? text : `${k === 0 ? key : ' '.repeat(keyWidth)} | ${text}`.trimEnd())
      })
    }
  }
  return out.join('\n')
}

/** A value's lines in `room` columns, split at spaces; a word wider than `room` alone on its line (own: from column 0). */
function valueLines(text: string, room: number, width: number): Array<{text: string; own: boolean}> {
  const out: Array<{text: string; own: boolean}> = []
  for (const line of text.split('\n')) {
    let cur = ''
    const flush = () => {
      if (cur) out.push({text: cur, own: false})
      cur = ''
    }
    for (const word of line.split(/ +/)) {
      if (len(word) > room) {
        flush()
        // whole on a line of its own; split only when wider than the terminal itself
        for (const piece of wrap(word, Math.max(MIN_COLUMN, width)).split('\n')) out.push({text: piece, own: true})
        continue
      }
      if (cur && len(cur) + 1 + len(word) <= room) cur += ` ${word}`
      else {
        flush()
        cur = word
      }
    }
    flush()
  }
  return out.length > 0 ? out : [{text: '', own: false}]
}
