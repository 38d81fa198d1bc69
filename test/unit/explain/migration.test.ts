/** The road to KIP-848 of a classic group: what the records tell, what the broker configs must allow. */
import {describe, expect, it} from 'vitest'
import {downgradeReadiness, migrationReadiness} from '../../../src/core/explain/report/migration.js'
import {TopicHasher} from '../../../src/core/hash.js'
import type {GroupMetadataValue} from '../../../src/core/replay/values.js'
import {cluster} from '../../lib/fixtures.js'

const member = (id: string, topics: string[]) => ({
  memberId: id,
  groupInstanceId: null,
  clientId: 'c',
  clientHost: '/h',
  rebalanceTimeout: 300_000,
  sessionTimeout: 45_000,
  subscription: new Uint8Array(),
  assignment: new Uint8Array(),
  subscriptionDecoded: {ok: true, value: {Topics: topics}},
})
const value = (protocolType: string, members: ReturnType<typeof member>[]): GroupMetadataValue => ({
  protocolType,
  generation: 7,
  protocol: 'range',
  leader: members[0]?.memberId ?? null,
  currentStateTimestamp: 1n,
  members,
})

describe('migrationReadiness', () => {
  it('a consumer-protocol group: possible under two broker conditions; the hash it will store over its topics', () => {
    const md = cluster()
    const r = migrationReadiness(value('consumer', [member('a', ['orders']), member('b', ['orders', 'payments'])]), md)
    expect(r).toMatchObject({upgrade: 'possible', blockers: [], metadataHash: new TopicHasher(md).groupHash(['orders', 'payments']).toString()})
    expect(r.conditions.join('; ')).toMatch(/group.consumer.migration.policy allows upgrades .*; group.consumer.max.size is at least 2/)
    expect(r.firstMember).toContain('converted')
    // without live metadata (audit: cache-safe) no hash
    expect(migrationReadiness(value('consumer', [member('a', ['orders'])])).metadataHash).toBeNull()
  })

  it('Connect (another embedded protocol) is blocked; an empty group is replaced, not converted', () => {
    expect(migrationReadiness(value('connect', [member('w1', [])]))).toMatchObject({upgrade: 'blocked', conditions: [], metadataHash: null})
    expect(migrationReadiness(value('connect', [member('w1', [])])).blockers[0]).toContain('"connect" is not the consumer embedded protocol')
    expect(migrationReadiness(value('consumer', []))).toMatchObject({upgrade: 'replaced', blockers: []})
  })
})

describe('downgradeReadiness', () => {
  it('a consumer group with classic-protocol members goes back when its last consumer-protocol member leaves; none: undefined', () => {
    const classic = {ClassicMemberMetadata: {SessionTimeoutMs: 45_000, SupportedProtocols: []}}
    const modern = {ClassicMemberMetadata: null}
    expect(downgradeReadiness([classic, classic, modern])).toMatchObject({
      classicMembers: 2,
      consumerMembers: 1,
      when: expect.stringContaining('when the last of its 1 consumer-protocol member leaves'),
      conditions: [expect.stringContaining('allows downgrades'), 'group.classic.max.size is at least 2 (default 2147483647)'],
    })
    expect(downgradeReadiness([modern, modern])).toBeUndefined()
  })
})
