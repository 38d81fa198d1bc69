/** `group records` for humans: where the group's records are, then one table row a record. */
import type {GroupRecordsResult, RecordView} from '../core/records-view.js'
import {patternHint} from './hints.js'
import {formatTime, PLAIN, type Style} from './style.js'
import {renderTable} from './table.js'
import {forTerminalLine} from './terminal.js'

/** `width`: how much of a record's value to show (0: all); `style`: times, and the table's fit to the terminal. */
export function renderGroupRecords(r: GroupRecordsResult, width: number, unfiltered: number, style: Style = PLAIN): string {
  const lines: string[] = []
  // (a line break in the id shown as \n: it must not start a line of its own)
  const group = forTerminalLine(r.group)
  lines.push(
    `${group}: __consumer_offsets-${r.partition} (of ${r.partitionCount}, leader broker ${r.leader}), offsets ${r.logStartOffset}..${r.endOffset}, ${r.recordsScanned} records read`,
  )
  if (r.records.length === 0) {
    lines.push(
      unfiltered === 0
        ? `no record of group ${group} in __consumer_offsets-${r.partition}: it does not exist, or its records were deleted (compacted after the group expired).${patternHint(group)}`
        : `${unfiltered} record(s) of group ${group}, none matching the filters.`,
    )
  } else {
    lines.push(
      renderTable(
        ['offset', 'time', 'record', 'key', 'value'],
        r.records.map(v => [
          v.offset,
          formatTime(v.time, style),
          `${v.name ?? `type ${v.type}`}${v.version === undefined ? '' : ` v${v.version}`}`,
          keySummary(v),
          valueSummary(v, width),
        ]),
        ['right', 'left', 'left', 'left', 'left'],
        {width: style.width},
      ),
    )
  }
  const unknown = r.records.filter(v => v.unknown).length
  if (unknown > 0) lines.push(`${unknown} record(s) of unknown types or newer versions were reported and skipped.`)
  if (r.abortedTransactionalRecords > 0) lines.push(`${r.abortedTransactionalRecords} record(s) of aborted transactions in the partition were dropped.`)
  for (const e of r.decodeErrors) lines.push(`skipped malformed record: ${e.message}`)
  return lines.join('\n')
}

/** "MemberId=m1 RegularExpression=.*" — the key without the group id, for tables. */
export function keySummary(v: RecordView): string {
  if (!v.key) return ''
  return Object.entries(v.key)
    .filter(([k]) => k !== 'group' && k !== 'GroupId' && k !== 'groupId')
    .map(([k, x]) => `${k}=${typeof x === 'string' ? x : JSON.stringify(x)}`)
    .join(' ')
}

export function valueSummary(v: RecordView, width: number): string {
  if (v.unknown) return `(${v.unknown.replace('-', ' ')}${v.version === undefined ? '' : ` v${v.version}`}: reported and skipped)`
  if (v.tombstone) return '(tombstone)'
  const text = JSON.stringify(v.value)
  return width > 0 && text.length > width ? `${text.slice(0, width - 1)}…` : text
}
