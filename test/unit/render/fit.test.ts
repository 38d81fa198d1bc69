import {describe, expect, it} from 'vitest'
import {renderExplain} from '../../../src/render/explain.js'
import {createRequire} from 'node:module'
import type TableClass from 'cli-table3'
import {drawPlain, fitWidths, renderRecords, renderTable, wrap, wrapProse} from '../../../src/render/table.js'
import {explainGroup} from '../../../src/core/explain/explain.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {consumer} from '../../lib/records.js'
import {A, B, C, fixtureReport, G, live, settledA} from './fixture.js'

const lines = (text: string) => text.split('\n')
const longest = (text: string) => Math.max(...lines(text).map(l => [...l].length))

describe('tables that fit the terminal', () => {
  it('cells wrap at spaces (wrap breaks a word only wider than the width: a table never asks it to)', () => {
    expect(wrap('member joined: a b c', 8)).toBe('member\njoined:\na b c')
    expect(wrap('abcdefghij', 4)).toBe('abcd\nefgh\nij')
    expect(wrapProse('  - CODE: one two three four five', 16, 4)).toBe('  - CODE: one\n    two three\n    four five')
  })

  it('water-fills the columns: narrow ones keep their width, wide ones share the rest', () => {
    expect(fitWidths(['a', 'b'], [['x'.repeat(10), 'y'.repeat(10)]], 100)).toBeUndefined()
    expect(fitWidths(['a', 'b'], [['x'.repeat(10), 'y'.repeat(10)]], 0)).toBeUndefined()
    const w = fitWidths(['n', 'text'], [['12', 'z'.repeat(200)]], 60)!
    expect(w[0]).toBe(2)
    expect(w[0] + w[1] + 3 + 4).toBe(60)
  })

  it('without a width a table keeps its natural width (no limit, one finite string)', () => {
    const t = renderTable(['a'], [['x'.repeat(500)]], undefined, {width: 0})
    expect(longest(t)).toBe(504)
  })

  it('group explain at 80, 120 and 200 columns: every table line fits; prose wraps', () => {
    const {report, log} = fixtureReport()
    for (const width of [80, 120, 200]) {
      const text = renderExplain(report, {time: 'utc', now: log.time, color: false, width})
      expect(longest(text), `at ${width}`).toBeLessThanOrEqual(width)
    }
    // unknown width: nothing wrapped or cut
    const natural = renderExplain(report, {time: 'utc', now: log.time, color: false, width: 0})
    expect(natural).toContain(A)
    expect(longest(natural)).toBeGreaterThan(200)
  })

  it('at 80 columns a member table whose ids cannot fit becomes a record per row, ids whole; at 200 a table', () => {
    const {report, log} = fixtureReport()
    const at80 = renderExplain(report, {time: 'utc', now: log.time, color: false, width: 80})
    expect(at80).toMatch(/^-\[ RECORD 1 \]-+$/m)
    expect(at80).toMatch(new RegExp(`^member +\\| ${A}$`, 'm'))
    expect(at80).not.toMatch(/consumer-orders-s\S*…/)
    expect(longest(at80)).toBeLessThanOrEqual(80)
    const at200 = renderExplain(report, {time: 'utc', now: log.time, color: false, width: 200})
    expect(at200).toContain(`│ ${A} │`)
    expect(at200).not.toMatch(/RECORD/)
  })

  it('a table with a word wider than its column would be: a record per row, values wrapped at spaces, never split', () => {
    const id = 'clickstream-sessionizer-streams-app-analytics-prod'
    const t = renderTable(['GROUP', 'DETAILS'], [[id, 'drift, consistent with: topic orders had 3 partitions then (5 now)']], undefined, {width: 56})
    expect(t.split('\n')).toEqual([
      '-[ RECORD 1 ]---------------------------',
      'GROUP   |',
      id,
      'DETAILS | drift, consistent with: topic orders had 3',
      '        | partitions then (5 now)',
    ])
    // an id that fits the value's room stays beside its key
    expect(renderRecords(['GROUP'], [['orders']], 40)).toBe('-[ RECORD 1 ]---------------------------\nGROUP | orders')
  })

  it('at 120 columns an ordinary timeline row (member joined) is one line; cause first, detail after', () => {
    const {report, log} = fixtureReport()
    const text = renderExplain(report, {time: 'utc', now: log.time, color: false, width: 120})
    const timeline = lines(text.slice(text.lastIndexOf('│ epoch │')))
    const row = timeline.findIndex(l => l.includes('│ 3 → 4 │'))
    expect(timeline[row]).toMatch(new RegExp(`│ member joined: ${B.slice(0, 11)}… \\(client client-Yj4c…\\), subscribed to orders\\s+│$`))
    // the next line is the next row, not a continuation of this one
    expect(timeline[row + 1]).toMatch(/^└/)
    // a leave the records cannot tell: one line too, ids cut shorter
    const leave = timeline.findIndex(l => l.includes('│ 2 → 3 │'))
    expect(timeline[leave]).toMatch(/│ member left: q7ZbW1x… \(client client-…\); leave, session or rebalance timeout\s*│$/)
    expect(timeline[leave + 1]).toMatch(/│ 3 → 4 │/)
    for (const l of timeline.filter(x => x.startsWith('│') && !x.startsWith('│       │'))) expect([...l].length).toBeLessThanOrEqual(120)
  })

  it('at 120 columns an ordinary "member left" row with its last state is one line too, in short words; wider, the whole reason', () => {
    const log = settledA()
    log.write(
      [
        consumer.member(G, C, {names: ['orders']}),
        consumer.metadata(G, 2),
        consumer.targetMetadata(G, 2),
        consumer.target(G, C, []),
        consumer.current(G, C, 2, []),
      ],
      {gap: 60_000},
    )
    log.write([consumer.memberTombstone(G, C), consumer.targetTombstone(G, C), consumer.currentTombstone(G, C), consumer.metadata(G, 3)], {gap: 8_000})
    const report = explainGroup(G, replayGroup(G, log.records), {live, now: log.time + 180_000})
    const rows = (width: number) => {
      const text = renderExplain(report, {time: 'utc', now: log.time, color: false, width})
      return lines(text.slice(text.lastIndexOf('│ epoch │')))
    }
    const narrow = rows(120)
    const leave = narrow.findIndex(l => l.includes('│ 2 → 3 │'))
    expect(narrow[leave]).toMatch(/│ member left: q7ZbW1x… \(client client-…\); leave or timeout; last state STABLE 8 s\s*│$/)
    expect(narrow[leave + 1]).toMatch(/^└/)
    for (const l of narrow) expect([...l].length).toBeLessThanOrEqual(120)
    expect(rows(200).join('\n')).toContain(`member left: ${C} (client client-${C}); leave, session or rebalance timeout; last state STABLE for 8 s`)
  })

  it('a long table is drawn in blocks that join into the text of one table (tall cells, wide characters, colour)', () => {
    const long = (n: number) => Array.from({length: n}, (_, i) => `member-${i} (client-${i}@/10.0.0.${i}) waits 組`).join('; ')
    const rows = [
      ['g1', 'consumer', 5, long(8)],
      ['group-with-a-very-long-id-that-is-cut-somewhere', 'share', 12345, 'short'],
      ['g3', '', 0, `two\nlines ${long(3)}`],
      ['', 'x', 1, ''],
      ['組み合わせ', 'y', 2, 'z'],
    ]
    const paint = (c: number, t: string) => (c === 1 ? `\u001b[31m${t}\u001b[39m` : t)
    for (const width of [0, 60, 120]) {
      for (const options of [{}, {paint}]) {
        const one = renderTable(['GROUP', 'TYPE', 'N', 'DETAILS'], rows, ['left', 'left', 'right', 'left'], {width, ...options})
        expect(one.split('\n').length).toBeGreaterThan(8)
        for (const blockRows of [1, 2, 5])
          expect(
            renderTable(['GROUP', 'TYPE', 'N', 'DETAILS'], rows, ['left', 'left', 'right', 'left'], {width, ...options, blockRows}),
            `${width} ${blockRows}`,
          ).toBe(one)
      }
    }
  })

  it('column widths of a table longer than a function call can take as arguments (300,000 rows)', () => {
    const rows = Array.from({length: 300_000}, (_, i) => [`g${i}`, 'x'.repeat(50)])
    expect(fitWidths(['A', 'B'], rows, 40)).toEqual([7, 26])
  })

  it('a table of one-line cells in ASCII and ×→…·–—≤≥ is drawn directly, as cli-table3 draws it; others are left to cli-table3', () => {
    const Table = createRequire(import.meta.url)('cli-table3') as typeof TableClass
    const reference = (head: string[], body: string[][], align: Array<'left' | 'right'>) => {
      const t = new Table({
        head,
        style: {head: [], border: [], compact: true},
        colAligns: align,
        chars: {mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': ''},
      })
      t.push(...body)
      return t.toString()
    }
    const alphabet = ['a', 'Z', '0', ' ', '-', '|', '×', '→', '…', '·', '–', '—', '≤', '≥', '%', '"']
    let seed = 7
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const cell = () => Array.from({length: next(12)}, () => alphabet[next(alphabet.length)]).join('')
    for (let k = 0; k < 300; k++) {
      const columns = 1 + next(5)
      const head = k % 7 === 0 ? [] : Array.from({length: columns}, cell)
      const body = Array.from({length: next(6) + (head.length === 0 ? 1 : 0)}, () => Array.from({length: columns}, cell))
      const align = Array.from({length: columns}, () => (next(2) === 0 ? 'left' : 'right') as 'left' | 'right')
      expect(drawPlain(head, body, align), JSON.stringify({head, body, align})).toBe(reference(head, body, align))
    }
    // what cli-table3 measures otherwise (wide characters, colour, tall cells) or lays out otherwise (ragged rows)
    for (const odd of ['組', '\u001b[31mx\u001b[39m', 'two\nlines', 'é']) expect(drawPlain(['A'], [[odd]]), odd).toBeUndefined()
    expect(drawPlain(['A', 'B'], [['x']])).toBeUndefined()
  })
})
