/** Which release a broker runs from its ApiVersions (core/broker-release.ts), and what that means for a group. */
import {describe, expect, it} from 'vitest'
import {clusterReleases, releaseOf} from '../../src/core/broker-release.js'

/** The newest versions each release advertises for the APIs that tell them apart (kafka-clients jars' JSON). */
const ADVERTISED: Record<string, Record<number, number>> = {
  '4.0.2': {0: 12, 1: 17, 2: 10, 35: 4, 18: 4, 42: 2, 28: 5, 68: 1},
  '4.1.0': {0: 13, 1: 18, 2: 10, 35: 4, 18: 4, 42: 2, 28: 5, 68: 1},
  '4.2.2': {0: 13, 1: 18, 2: 11, 35: 4, 18: 4, 42: 2, 28: 5, 68: 1},
  '4.3.1': {0: 13, 1: 18, 2: 11, 35: 5, 18: 4, 42: 2, 28: 5, 68: 1},
  '4.4.0': {0: 13, 1: 18, 2: 11, 35: 5, 18: 5, 42: 3, 28: 6, 68: 1},
}
const apis = (v: string) => new Map(Object.entries(ADVERTISED[v]).map(([k, max]) => [Number(k), {min: 0, max}]))

describe('releaseOf', () => {
  it.each([
    ['4.0.2', '4.0'],
    ['4.1.0', '4.1'],
    ['4.2.2', '4.2'],
    ['4.3.1', '4.3'],
    ['4.4.0', '4.4'],
  ])('%s → %s', (v, minor) => expect(releaseOf(apis(v)).atLeast).toBe(minor))

  it('without ConsumerGroupHeartbeat: older than 4.0', () => expect(releaseOf(new Map([[0, {min: 0, max: 9}]])).atLeast).toBeNull())
})

describe('clusterReleases', () => {
  it("names the coordinator's release; brokers on different releases are a rolling upgrade; 4.0-rules groups under a 4.1+ coordinator bump again", () => {
    const r = clusterReleases(
      [
        {nodeId: 1, apis: apis('4.0.2'), error: null},
        {nodeId: 2, apis: apis('4.4.0'), error: null},
        {nodeId: 3, apis: null, error: 'connection refused'},
      ],
      2,
      '4.0',
    )
    expect(r.coordinator).toEqual({nodeId: 2, atLeast: '4.4'})
    expect(r.mixed).toBe(true)
    expect(r.notes.join('\n')).toContain('its coordinator, broker 2, runs Kafka 4.4 or later')
    expect(r.notes.join('\n')).toContain('the brokers run different releases (1: 4.0, 2: 4.4): a rolling upgrade')
    expect(r.notes.join('\n')).toContain('its next recomputation stores a metadata hash and bumps the epoch once more')
    // a 4.1 coordinator: the patch release matters for one case and cannot be told
    expect(clusterReleases([{nodeId: 1, apis: apis('4.1.0'), error: null}], 1).notes.join()).toContain('KAFKA-19899')
    // the coordinator did not answer: said so
    expect(clusterReleases([{nodeId: 3, apis: null, error: 'connection refused'}], 3).notes[0]).toContain('cannot be told')
  })

  it("the cluster's finalized features, from the coordinator first; a group type whose feature is below 1 is said", () => {
    const f = (m: Record<string, number>) => new Map(Object.entries(m))
    const brokers = [
      {nodeId: 1, apis: apis('4.1.0'), features: f({'share.version': 0, 'group.version': 1}), error: null},
      {nodeId: 2, apis: apis('4.1.0'), features: f({'group.version': 1, 'share.version': 1}), error: null},
    ]
    // (sorted by name, as the coordinator reports them)
    expect(clusterReleases(brokers, 2).features).toEqual({'group.version': 1, 'share.version': 1})
    const share = clusterReleases(brokers, 1, null, 'share')
    expect(share.features).toEqual({'group.version': 1, 'share.version': 0})
    expect(share.notes.join('\n')).toContain(
      "the cluster's finalized share.version is 0 (broker 1's ApiVersions): share groups cannot be used until it is raised",
    )
    expect(clusterReleases(brokers, 1, null, 'consumer').notes.join()).not.toContain('finalized')
    expect(clusterReleases([{nodeId: 1, apis: apis('4.4.0'), features: null, error: null}], 1).features).toBeNull()
    // 4.0 has no share.version: its share groups are early access, enabled by broker configs
    const share40 = clusterReleases([{nodeId: 1, apis: apis('4.0.2'), features: f({'group.version': 1}), error: null}], 1, '4.0', 'share')
    expect(share40.notes.join('\n')).toContain("Kafka 4.0's share groups are early access")
    expect(share40.notes.join('\n')).not.toContain('finalized share.version')
  })
})
