/** `cluster history` for humans: the span of exact history the log holds, then one row a change. */
import type {HistoryRow} from '../core/metadata-log/history.js'
import {formatTime, PLAIN, type Style} from './style.js'
import {renderTable} from './table.js'

export function renderClusterHistory(source: {dir: string; lastOffset?: string | null; lastTime?: string | null}, start: {offset: bigint | string | number; timestamp: number | null}, changes: readonly HistoryRow[], style: Style = PLAIN): string {
  const head = `${source.dir}: exact history from offset ${start.offset}${start.timestamp === null ? '' : ` (${formatTime(start.timestamp, style)})`} to ${source.lastOffset ?? '-'} (${formatTime(source.lastTime, style)})`
  return `${head}\n${changes.length === 0 ? 'no matching changes' : renderTable(['time', 'offset', 'change'], changes.map(c => [formatTime(c.time, style), c.offset, printable(c.description) + (c.movesHash ? '' : ' (does not move a hash)')]), ['left', 'right', 'left'], {width: style.width})}`
}

/** Names from a log are untrusted: control characters are shown escaped, never sent to the terminal. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ch => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
