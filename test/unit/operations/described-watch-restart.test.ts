/**
 * A describe-only watch started again after its own stop (a deploy, a reboot): the earlier watch's last polls, kept
 * in the history directory after each poll's prints, are what the first poll compares with, so an epoch that moved
 * while no watch ran is printed once, marked afterRestart, and said on stderr. Over the fake cluster that refuses
 * READ on __consumer_offsets; each DescribedWatch is one run of the watch.
 */
import {mkdtempSync, readdirSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {decodeDescribedWatchState, describedWatchStart, encodeDescribedWatchState} from '../../../src/core/audit/described-restart.js'
import type {WatchKind} from '../../../src/core/audit/restart.js'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {DescribedWatch} from '../../../src/operations/audit/described-watch.js'
import {describedWatchStateStore} from '../../../src/sources/watch-state.js'
import {describedMember as member, refusedDescribe} from '../../lib/describes.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {auditSettings, fakeSession} from '../../lib/operations.js'
import {T1} from '../../lib/records.js'

const G = 'orders-app'

function refusing(): FakeCluster {
  const md = parseMetadataDocument({
    clusterId: 'K-rs',
    brokers: [{id: 1, rack: 'rack-a'}],
    topics: [{name: 'orders', topicId: T1, partitions: [0, 1].map(p => ({partition: p, replicas: [1]}))}],
  })
  const fake = new FakeCluster(md, {offsetsPartitions: 1, logEnd: 0n})
  fake.describeGroup('consumer', describedAt(4, [member('m1', 4, [0, 1], [0, 1])]))
  fake.offsetsReadRefused = true
  return fake
}

const describedAt = (groupEpoch: number, members: unknown[]) => ({
  groupId: G,
  state: 'Stable',
  groupEpoch,
  assignmentEpoch: groupEpoch,
  assignorName: 'uniform',
  members,
})

/** The group's describe answered as `groupEpoch` with `members` from now on. */
const moveTo = (fake: FakeCluster, groupEpoch: number, members: unknown[]) =>
  fake.fullDescribes.set(G, {errorCode: 0, errorMessage: null, errorName: 'NONE', ...describedAt(groupEpoch, members)} as never)

/** One run of the watch: its polls (each printed, then marked printed), what it printed and said. */
async function run(fake: FakeCluster, historyDir: string, polls: number, o: {kind?: WatchKind; filters?: string; printed?: boolean} = {}) {
  const said: string[] = []
  const w = new DescribedWatch(fakeSession(fake, said), auditSettings(historyDir, {record: true}), {
    resume: {kind: o.kind ?? 'audit', filters: o.filters ?? ''},
  })
  const bumps = []
  for (let i = 0; i < polls; i++) {
    const r = await w.poll(Date.now())
    bumps.push(...r.bumps)
    if (o.printed !== false) w.printed(Date.now())
  }
  return {bumps, said}
}

const historyDir = () => mkdtempSync(join(tmpdir(), 'rd-dw-restart-'))

describe('a describe-only watch started again', () => {
  it('prints once, marked afterRestart, an epoch that moved while it was stopped; a first start and a second restart stay quiet', async () => {
    const fake = refusing()
    const dir = historyDir()
    const first = await run(fake, dir, 2)
    expect(first.bumps).toEqual([])
    expect(first.said.join('\n')).not.toMatch(/restarted/)
    // stopped: m2 joins
    moveTo(fake, 5, [member('m1', 5, [0], [0]), member('m2', 5, [1], [1])])
    const second = await run(fake, dir, 2)
    expect(second.bumps.map(e => [e.group, e.previousEpoch, e.epoch, e.afterRestart])).toEqual([[G, 4, 5, true]])
    expect(second.bumps[0].causes.map(c => [c.kind, (c.details as {memberId?: string}).memberId])).toEqual([['member-joined', 'm2']])
    expect(second.said.join('\n')).toMatch(
      /audit --watch restarted describe-only: 1 group whose epoch moved since the earlier watch's polls \(.*\), 1 printed \(marked after restart\)/,
    )
    // nothing printed twice by the next run
    const third = await run(fake, dir, 1)
    expect(third.bumps).toEqual([])
    expect(third.said.join('\n')).toMatch(/restarted describe-only: 0 groups whose epoch moved/)
  })

  it('a run killed between its print and the write of its polls prints that bump again (at least once, never lost)', async () => {
    const fake = refusing()
    const dir = historyDir()
    await run(fake, dir, 1)
    moveTo(fake, 5, [member('m1', 5, [0], [0]), member('m2', 5, [1], [1])])
    expect((await run(fake, dir, 1, {printed: false})).bumps).toHaveLength(1)
    expect((await run(fake, dir, 1)).bumps.map(e => [e.epoch, e.afterRestart])).toEqual([[5, true]])
  })

  it('the state of another watch (filters, kind), damaged or too old is not resumed: a first start, said why', async () => {
    const fake = refusing()
    const dir = historyDir()
    await run(fake, dir, 1, {filters: '--group orders-*'})
    moveTo(fake, 5, [member('m1', 5, [0, 1], [0, 1])])
    // another filter's state is another file: a first start, quiet
    const other = await run(fake, dir, 1, {filters: '--type consumer'})
    expect([other.bumps, other.said.filter(s => /restarted|watch state/.test(s))]).toEqual([[], []])
    const store = describedWatchStateStore(dir, 'K-rs', 'audit', '--group orders-*')
    expect(readdirSync(join(store.file, '..')).filter(f => f.endsWith('.described.json'))).toHaveLength(2)
    const saved = store.load()
    if (!saved || 'error' in saved) throw new Error(`not saved: ${JSON.stringify(saved)}`)
    const day = 24 * 3600_000
    expect(describedWatchStart(saved, {clusterId: 'K-rs', kind: 'audit', filters: '--group orders-*', at: saved.at + day})).toHaveProperty('restart')
    expect(describedWatchStart(saved, {clusterId: 'K-rs', kind: 'audit', filters: '--group orders-*', at: saved.at + day + 1})).toMatchObject({
      firstStart: true,
      why: expect.stringMatching(/last polled more than 24 h ago/),
    })
    expect(describedWatchStart(saved, {clusterId: 'K-other', kind: 'audit', filters: '--group orders-*', at: saved.at})).toMatchObject({
      why: expect.stringMatching(/another cluster \(K-rs\)/),
    })
    writeFileSync(store.file, '{"schema":"rebalance-doctor/described-watch-state-v1"')
    const damaged = await run(fake, dir, 1, {filters: '--group orders-*'})
    expect(damaged.bumps).toEqual([])
    expect(damaged.said.join('\n')).toMatch(/Warning: --watch: its describe-only watch state cannot be used: damaged .*: started as a first start/)
  })

  it('a group refused at every poll is warned of once per watch, not at every poll', async () => {
    const fake = refusing()
    fake.describeGroup('consumer', refusedDescribe('secret-app'))
    const {said} = await run(fake, historyDir(), 3)
    expect(said.filter(m => m.startsWith('describing group secret-app needs DESCRIBE on group secret-app'))).toHaveLength(1)
  })

  it('the state round-trips; a file whose snapshots lack what an observation reads is damaged, not half-compared', () => {
    const snapshot = {
      requestedAt: 1,
      at: 2,
      metadataHash: '-12',
      topics: {orders: {hash: '7', partitions: 2, topicId: 'x'}, gone: null},
      group: {group: G, type: 'consumer', state: 'Stable', groupEpoch: 4, assignmentEpoch: 4, assignor: null, members: [], topologyTopics: null},
    }
    const state = {clusterId: 'K', kind: 'group-explain' as const, filters: G, at: 3, snapshots: [snapshot as never]}
    expect(decodeDescribedWatchState(encodeDescribedWatchState(state))).toEqual(state)
    const broken = (over: object) => decodeDescribedWatchState(encodeDescribedWatchState({...state, snapshots: [{...snapshot, ...over} as never]}))
    for (const over of [
      {metadataHash: 'abc'},
      {topics: {orders: {hash: 7}}},
      {group: {...snapshot.group, members: [{memberId: 'm'}]}},
      {group: {...snapshot.group, groupEpoch: '4'}},
    ])
      expect(broken(over)).toEqual({error: 'damaged (fields missing or of the wrong type)'})
    expect(decodeDescribedWatchState('{"schema":"other"}')).toEqual({error: 'not a rebalance-doctor/described-watch-state-v1 file'})
  })
})
