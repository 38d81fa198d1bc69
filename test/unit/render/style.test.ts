import {describe, expect, it} from 'vitest'
import {renderAuditTable} from '../../../src/render/audit.js'
import {renderClusterHistory} from '../../../src/render/cluster-history.js'
import {renderExplain, verdictLine} from '../../../src/render/explain.js'
import {colorWanted, formatTime, localIso, relative, retime, type Style} from '../../../src/render/style.js'
import {fixtureReport} from './fixture.js'
import {PLAIN} from '../../../src/render/style.js'
import {explainGroup} from '../../../src/core/explain/explain.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import {classic, consumer, Log, T1, settledConsumer} from '../../lib/records.js'
import {cluster} from '../../lib/fixtures.js'

const T = Date.parse('2026-11-30T13:36:05.123Z')
const ESC = '\u001b['

describe('times: UTC ISO by default, the local zone with its offset, or relative', () => {
  it('formats one time three ways', () => {
    expect(formatTime(T, {time: 'utc', now: 0})).toBe('2026-11-30T13:36:05.123Z')
    expect(formatTime('2026-11-30T13:36:05.123Z', {time: 'local', now: 0, timeZone: 'Europe/Paris'})).toBe('2026-11-30T14:36:05.123+01:00')
    expect(localIso(Date.parse('2026-07-01T00:00:00Z'), 'America/New_York')).toBe('2026-06-30T20:00:00.000-04:00')
    expect(localIso(T, 'UTC')).toBe('2026-11-30T13:36:05.123+00:00')
    expect(formatTime(T, {time: 'relative', now: T + 3 * 60_000 + 5000})).toBe('3m ago')
    expect(relative(T, T + 45_000)).toBe('45s ago')
    expect(relative(T, T + 5 * 3_600_000)).toBe('5h ago')
    expect(relative(T, T + 3 * 86_400_000)).toBe('3d ago')
    expect(relative(T + 120_000, T)).toBe('in 2m')
    expect(formatTime(null, {time: 'local', now: 0})).toBe('-')
  })

  it('rewrites the ISO times inside messages, and nothing else', () => {
    const s = {time: 'relative', now: T + 600_000} as const
    expect(retime('since 2026-11-30T13:36:05.123Z, epoch 2026', s)).toBe('since 10m ago, epoch 2026')
    expect(retime('since 2026-11-30T13:36:05.123Z', {time: 'utc', now: 0})).toBe('since 2026-11-30T13:36:05.123Z')
  })

  it('group explain: the timeline and reconciling times in the style; the report (JSON) keeps UTC ISO', () => {
    const {report, log} = fixtureReport()
    const before = JSON.stringify(report)
    const local = renderExplain(report, {time: 'local', timeZone: 'Asia/Kolkata', now: log.time, color: false})
    expect(local).toContain(`${localIso(report.timeline[0].timestamp, 'Asia/Kolkata')}`)
    expect(local).toMatch(/\+05:30/)
    expect(local).not.toMatch(/\d{2}:\d{2}:\d{2}\.\d{3}Z/)
    const rel = renderExplain(report, {time: 'relative', now: log.time + 180_000, color: false})
    expect(rel).toMatch(/│ 3 → 4 │ 3m ago\s+│/)
    expect(rel).toContain('reconciling since 3m ago')
    expect(rel).toContain('since 3m ago') // in the finding's message too
    expect(JSON.stringify(report)).toBe(before)
    expect(report.timeline[0].time).toMatch(/Z$/)
    expect(renderExplain(report)).toContain(report.timeline[0].time)
  })

  it('cluster history and audit use the style too', () => {
    const text = renderClusterHistory(
      {dir: 'd', lastOffset: '9', lastTime: '2026-11-30T13:36:05.123Z'},
      {offset: 0, timestamp: T},
      [{time: '2026-11-30T13:36:05.123Z', offset: '5', description: 'x', movesHash: true} as never],
      {time: 'relative', now: T + 60_000, color: false},
    )
    expect(text).toContain('(1m ago)')
    expect(text).toMatch(/│ 1m ago │/)
    const row = {
      group: 'g',
      type: 'consumer',
      verdict: {code: 'RECONCILING', message: '', pending: true},
      groupEpoch: 2,
      assignmentEpoch: 2,
      inSync: true,
      members: 1,
      membersReconciling: 1,
      findings: [{kind: 'stuck'}],
      drift: [],
      assignmentPending: false,
      stuckMembers: [
        {memberId: 'm', since: '2026-11-30T13:36:05.123Z', clientId: null, clientHost: null, memberEpoch: 1, state: null, waitingOn: [], blocking: []},
      ],
      missingTopics: [],
      unknownRecords: 0,
      reassignments: [],
    }
    expect(renderAuditTable([row as never], {}, {time: 'relative', now: T + 120_000, color: false})).toContain('stuck: m since 2m ago')
  })
})

describe('colour: verdicts and findings, on a terminal only', () => {
  it('is wanted only on a TTY without NO_COLOR, TERM=dumb or --no-color', () => {
    expect(colorWanted(false, {}, {isTTY: true})).toBe(true)
    expect(colorWanted(false, {}, {isTTY: false})).toBe(false)
    expect(colorWanted(false, {}, {})).toBe(false)
    expect(colorWanted(true, {}, {isTTY: true})).toBe(false)
    expect(colorWanted(false, {NO_COLOR: '1'}, {isTTY: true})).toBe(false)
    expect(colorWanted(false, {NO_COLOR: ''}, {isTTY: true})).toBe(true)
    expect(colorWanted(false, {TERM: 'dumb'}, {isTTY: true})).toBe(false)
  })

  it('colours the verdict and finding codes, and data never carries its own sequences', () => {
    const {report, log} = fixtureReport()
    const style: Style = {time: 'utc', now: log.time, color: true}
    const coloured = renderExplain(report, style)
    expect(coloured).toContain(`verdict: ${ESC}`)
    expect(coloured).toMatch(/- \u001b\[33mMEMBER_RECONCILING\u001b\[39m: /)
    const plain = renderExplain(report, {...style, color: false})
    expect(plain).not.toContain('\u001b')
    expect(coloured.replace(/\u001b\[[0-9;]*m/g, '')).toBe(plain)
    // an id with an escape sequence stays escaped even when the text is coloured
    const evil = {...report, group: 'g\u001b[2J', members: report.members.map(m => ({...m, clientId: 'c\u001b]0;x\u0007'}))}
    const text = renderExplain(evil, style)
    expect(text).toContain('g\\x1b[2J')
    expect(text.replace(/\u001b\[[0-9;]*m/g, '')).not.toContain('\u001b')
  })

  it('audit colours the verdict column only when asked', () => {
    const row = {
      group: 'g',
      type: 'consumer',
      verdict: {code: 'REBALANCE_PENDING', message: '', pending: true},
      groupEpoch: 2,
      assignmentEpoch: 2,
      inSync: false,
      members: 1,
      membersReconciling: 0,
      findings: [{kind: 'pending'}],
      drift: [],
      assignmentPending: false,
      stuckMembers: [],
      missingTopics: [],
      unknownRecords: 0,
      reassignments: [],
    }
    expect(renderAuditTable([row as never], {}, {time: 'utc', now: 0, color: true})).toContain(`${ESC}31m${ESC}1mREBALANCE_PENDING`)
    expect(renderAuditTable([row as never])).not.toContain('\u001b')
  })
})

describe('the verdict line says each thing once', () => {
  const words = (line: string) =>
    line
      .toLowerCase()
      .replace(/\u001b\[[0-9;]*m/g, '')
      .split(/[^a-z]+/)
      .filter(w => w.length > 3)
  it.each([
    ['IN_SYNC', 'in sync: the stored metadata hash equals the hash of the live metadata (2 topics); no rebalance pending'],
    [
      'REBALANCE_PENDING',
      'a rebalance is coming: the live metadata differs from what the stored hash covers, topic orders gained partitions. The coordinator recomputes the hash on the next heartbeat',
    ],
    ['EMPTY_GROUP', 'the group has no members; its stored metadata hash matches live metadata, and nothing rebalances until a member joins'],
    ['ASSIGNMENT_PENDING', 'metadata hash in sync, but the target for epoch 5 is not computed yet'],
    ['RECONCILING', 'metadata hash in sync; a rebalance is in progress: 2 member(s) not yet at epoch 5'],
  ])('%s', (code, message) => {
    const line = verdictLine(code, message)
    const codeWords = code
      .toLowerCase()
      .split('_')
      .filter(w => w.length > 3)
    const rest = words(line.slice(`verdict: ${code}`.length))
    for (const w of codeWords) expect(rest).not.toContain(w)
    expect(line.startsWith(`verdict: ${code}: `)).toBe(true)
  })
})

describe('no verdict line repeats a word twice in a row, nor opens by restating its code', () => {
  const tokens = (line: string) =>
    line
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean)
  const log = () => new Log()
  const settled = (l: Log, g: string) => l.write(settledConsumer(g, 'm1', ['orders'], 0n, [[T1, [0]]]))
  const cases: Array<[string, Log]> = []
  {
    const l = log()
    settled(l, 'g')
    l.write([consumer.targetTombstone('g', 'm1'), consumer.memberTombstone('g', 'm1'), consumer.metadataTombstone('g')])
    cases.push(['GROUP_DELETED (consumer)', l])
  }
  {
    const l = log()
    l.write([classic.group('g', 3, ['c1'])])
    cases.push(['CLASSIC_GROUP', l])
    const gone = log()
    gone.write([classic.group('g', 3, ['c1'])])
    gone.write([classic.tombstone('g')])
    cases.push(['GROUP_DELETED (classic)', gone])
  }
  {
    const l = log()
    settled(l, 'g')
    cases.push(['a consumer group', l])
    const empty = log()
    empty.write([consumer.metadata('g', 1, 0n), consumer.targetMetadata('g', 1)])
    cases.push(['an empty group', empty])
    cases.push(['NOT_FOUND', log()])
  }
  it.each(cases)('%s', (_what, l) => {
    const r = explainGroup('g', replayGroup('g', l.records), {live: cluster(), now: l.time})
    for (const width of [0, 80]) {
      const line = verdictLine(r.verdict.code, r.verdict.message, PLAIN, width).replaceAll('\n', ' ')
      const t = tokens(line)
      for (let i = 1; i < t.length; i++) expect(t[i], line).not.toBe(t[i - 1])
      // the words right after the code are not the code again ("GROUP_DELETED: the consumer group was deleted")
      const codeWords = r.verdict.code.toLowerCase().split('_')
      const after = tokens(line.slice(`verdict: ${r.verdict.code}`.length)).slice(0, 4)
      expect(
        codeWords.every(w => after.includes(w)),
        line,
      ).toBe(false)
    }
  })

  it('the deleted and classic lines in full', () => {
    const l = log()
    settled(l, 'g')
    l.write([consumer.targetTombstone('g', 'm1'), consumer.memberTombstone('g', 'm1'), consumer.metadataTombstone('g')])
    const r = explainGroup('g', replayGroup('g', l.records), {})
    expect(verdictLine(r.verdict.code, r.verdict.message)).toMatch(
      /^verdict: GROUP_DELETED: consumer records tombstoned after epoch 1\. The coordinator deletes/,
    )
    const c = log()
    c.write([classic.group('g', 3, ['c1'])])
    const rc = explainGroup('g', replayGroup('g', c.records), {})
    expect(verdictLine(rc.verdict.code, rc.verdict.message)).toBe(
      'verdict: CLASSIC_GROUP: generation 3: the protocol keeps no metadata hash; clients rejoin on metadata changes themselves',
    )
  })
})
