/** `topic-hash compute` and `topic-hash bytes` for humans. */
import type {TopicHashReport, TopicHashRow} from '../core/topic-report.js'
import {renderTable} from './table.js'

/** `width`: the terminal's columns (0: natural width), see renderTable. */
export function renderTopicHashReport(r: TopicHashReport, width = 0): string {
  const lines: string[] = []
  if (r.topics.length > 0) {
    lines.push(
      renderTable(
        ['topic', 'topic id', 'partitions', 'replica racks', 'topic hash'],
        r.topics.map(t => [t.name, t.topicId, t.partitions, rackSummary(t), t.hash]),
        ['left', 'left', 'right', 'left', 'right'],
        {width},
      ),
    )
  }
  lines.push(`group hash over ${r.topics.length} existing topic${r.topics.length === 1 ? '' : 's'}: ${r.groupHash}`)
  if (r.missing.length > 0) lines.push(`missing (not in the metadata, left out of the group hash): ${r.missing.join(', ')}`)
  return lines.join('\n')
}

/** "rack-a×4 rack-b×2, 1 without rack" */
export function rackSummary(r: TopicHashRow): string {
  const parts = Object.entries(r.replicaRacks).map(([rack, n]) => `${rack === '' ? '""' : rack}×${n}`)
  const extra: string[] = []
  if (r.replicasWithoutRack) extra.push(`${r.replicasWithoutRack} without rack`)
  if (r.replicasOnUnknownBrokers) extra.push(`${r.replicasOnUnknownBrokers} on unregistered brokers`)
  const main = parts.length > 0 ? parts.join(' ') : 'no racks'
  return extra.length > 0 ? `${main}, ${extra.join(', ')}` : main
}

/**
 * The annotated bytes of one topic's hash input, then its length and hashes. `width`: the terminal's columns (0:
 * natural width); below 100 columns a row shows 8 bytes, not 16, so the meaning keeps room beside them.
 */
export function renderTopicHashBytes(
  r: {
    length: number
    hash: string
    hashHex: string
    segments: ReadonlyArray<{offset: number; hex: string; note: string}>
  },
  width = 0,
): string {
  const perLine = width > 0 && width < 100 ? 8 : 16
  return `${renderTable(
    ['offset', 'bytes', 'meaning'],
    r.segments.map(s => [s.offset, spaced(s.hex, perLine), s.note]),
    ['right', 'left', 'left'],
    {width},
  )}\n${r.length} bytes; XXH3-64 = 0x${r.hashHex}; topic hash = ${r.hash}`
}

/** "6f0072" → "6f 00 72", wrapped every `perLine` bytes. */
function spaced(hex: string, perLine: number): string {
  const pairs = hex.match(/../g) ?? []
  const lines: string[] = []
  for (let i = 0; i < pairs.length; i += perLine) lines.push(pairs.slice(i, i + perLine).join(' '))
  return lines.join('\n')
}
