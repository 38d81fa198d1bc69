/** `cluster history` for humans: the span of exact history the log holds, then one row a change. */
import type {ChangeRow} from '../core/metadata-log/changes.js'
import {formatTime, PLAIN, type Style} from './style.js'
import {renderTable} from './table.js'

interface Damage {
  file: string
  byte: number
  offset: string
  reason: string
}

export function renderClusterHistory(
  source: {
    dir: string
    lastOffset?: string | null
    lastTime?: string | null
    damage?: Damage | null
    partialTail?: {file: string; byte: number; bytes: number} | null
  },
  start: {offset: bigint | string | number; timestamp: number | null},
  changes: readonly ChangeRow[],
  style: Style = PLAIN,
): string {
  let head = `${printable(source.dir)}: exact history from offset ${start.offset}${start.timestamp === null ? '' : ` (${formatTime(start.timestamp, style)})`} to ${source.lastOffset ?? '-'} (${formatTime(source.lastTime, style)})`
  // where and why the exact history ends early: never a list that looks complete when it is not
  const d = source.damage
  if (d)
    head += `\nDAMAGED at offset ${d.offset}: ${printable(d.file)} byte ${d.byte}: ${printable(d.reason)}. Exact history ends at offset ${source.lastOffset ?? '-'}; nothing after it was read.`
  const t = source.partialTail
  if (t) head += `\nincomplete last batch: ${printable(t.file)}, ${t.bytes} bytes from byte ${t.byte} (a file being written when copied, or damage): not read.`
  return `${head}\n${
    changes.length === 0
      ? 'no matching changes'
      : renderTable(
          ['time', 'offset', 'change'],
          changes.map(c => [formatTime(c.time, style), c.offset, printable(c.description) + (c.movesHash ? '' : ' (does not move a hash)')]),
          ['left', 'right', 'left'],
          {width: style.width},
        )
  }`
}

/** Names from a log are untrusted: control characters are shown escaped, never sent to the terminal. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ch => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
