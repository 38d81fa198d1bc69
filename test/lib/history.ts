/** Audit history for tests: a full moment as an audit records it, from a cluster's metadata. */
import type {ClusterMetadata} from '../../src/core/metadata.js'
import {observeTopics} from '../../src/history/store.js'

/** A full history moment of `m` at time `t` (cluster `cid`, no group), as `audit` writes one. */
export const historyMoment = (m: ClusterMetadata, t: number) => ({
  v: 1,
  clusterId: 'cid',
  deletedTopics: [],
  at: new Date(t).toISOString(),
  full: true,
  brokers: m.brokers.map(b => ({id: b.id, rack: b.rack})),
  topics: Object.fromEntries(observeTopics(m)),
  groups: {},
})
