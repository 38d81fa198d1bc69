// A KIP-848 consumer group's records as the coordinator writes them (member metadata, group epoch, target
// assignments, assignment epoch, current assignments, a leaver's tombstones), for one topic, and a sticky balance of
// its partitions over the members: shared by the benches that replay a group through its bumps (cost, html).

/** The record builders of group `group` over topic `topicId` with `partitions` partitions. */
export function consumerGroupRecords({group, topicId, partitions}) {
  const tps = ps => (ps.length ? [{TopicId: topicId, Partitions: [...ps].sort((a, b) => a - b)}] : [])
  const member = m => ({
    type: 5,
    key: {GroupId: group, MemberId: m},
    value: {
      InstanceId: null,
      RackId: null,
      ClientId: `client-${m}`,
      ClientHost: '/10.0.0.1',
      SubscribedTopicNames: ['orders'],
      SubscribedTopicRegex: null,
      RebalanceTimeoutMs: 300000,
      ServerAssignor: null,
      ClassicMemberMetadata: null,
    },
  })
  const current = (m, epoch, previous, state, assigned, pending = []) => ({
    type: 8,
    key: {GroupId: group, MemberId: m},
    value: {
      MemberEpoch: epoch,
      PreviousMemberEpoch: previous,
      State: state,
      AssignedPartitions: tps(assigned).map(x => ({...x, AssignmentEpochs: null})),
      PartitionsPendingRevocation: tps(pending).map(x => ({...x, AssignmentEpochs: null})),
    },
  })
  const target = (m, ps) => ({type: 7, key: {GroupId: group, MemberId: m}, value: {TopicPartitions: tps(ps)}})
  const epochRecord = e => ({type: 3, key: {GroupId: group}, value: {Epoch: e, MetadataHash: 0n}})
  const targetEpoch = e => ({type: 6, key: {GroupId: group}, value: {AssignmentEpoch: e, AssignmentTimestamp: 0n}})
  const tombstones = m => [8, 7, 5].map(type => ({type, key: {GroupId: group, MemberId: m}, value: null}))

  /** Sticky balance: members keep up to their quota, freed partitions go to the members under it. */
  function balance(owned, members) {
    const quota = i => Math.floor(partitions / members.length) + (i < partitions % members.length ? 1 : 0)
    const next = new Map()
    const taken = new Set()
    members.forEach((m, i) => {
      const keep = (owned.get(m) ?? []).slice(0, quota(i))
      next.set(m, keep)
      for (const p of keep) taken.add(p)
    })
    const free = []
    for (let p = 0; p < partitions; p++) if (!taken.has(p)) free.push(p)
    members.forEach((m, i) => {
      const list = next.get(m)
      while (list.length < quota(i)) list.push(free.pop())
    })
    return next
  }

  return {tps, member, current, target, epochRecord, targetEpoch, tombstones, balance}
}
