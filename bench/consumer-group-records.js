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

/**
 * The group's life through `bumps` bumps, a member joining or one leaving in turn, written with `write(records, gapMs)`
 * as the coordinator writes them: the bump (the joiner's metadata or the leaver's tombstones, the group epoch, the
 * changed targets, the assignment epoch, the joiner's first current assignment) `bumpGapMs` after the last write,
 * each revoker's UNREVOKED_PARTITIONS then (200 ms later) its STABLE record, then the other members' move to the new
 * epoch — in one batch, or one batch each with `membersApart`. `afterBump()` runs after each (e.g. offset commits).
 */
export function joinLeaveLog(r, {members: count, bumps, write, bumpGapMs = 50, membersApart = false, afterBump = () => {}}) {
  const {member, current, target, epochRecord, targetEpoch, tombstones, balance} = r
  let members = Array.from({length: count}, (_, i) => `m${i}`)
  let owned = balance(new Map(), members)
  let epoch = 1
  write([...members.map(member), epochRecord(epoch), ...members.map(m => target(m, owned.get(m))), targetEpoch(epoch)])
  write(members.map(m => current(m, epoch, 0, 0, owned.get(m))))
  let nextId = count
  for (let b = 0; b < bumps; b++) {
    const previous = epoch++
    const joining = b % 2 === 0
    const leaver = joining ? undefined : members[(b * 7) % members.length]
    const joiner = joining ? `m${nextId++}` : undefined
    const before = new Map(owned)
    members = joining ? [...members, joiner] : members.filter(m => m !== leaver)
    if (leaver) before.delete(leaver)
    const tgt = balance(before, members)
    const changed = members.filter(m => String(tgt.get(m)) !== String(before.get(m) ?? ''))
    const head = joining ? [member(joiner)] : tombstones(leaver)
    const first = joining ? [current(joiner, epoch, 0, 2, [])] : []
    write([...head, epochRecord(epoch), ...changed.map(m => target(m, tgt.get(m))), targetEpoch(epoch), ...first], bumpGapMs)
    // revokers hold back what they lose, then release it
    const revokers = members.filter(m => before.has(m) && before.get(m).some(p => !tgt.get(m).includes(p)))
    const kept = m => before.get(m).filter(p => tgt.get(m).includes(p))
    const lost = m => before.get(m).filter(p => !tgt.get(m).includes(p))
    for (const m of revokers) write([current(m, previous, previous, 1, kept(m), lost(m))])
    for (const m of revokers) write([current(m, epoch, previous, 0, tgt.get(m))], 200)
    const settled = members.filter(m => !revokers.includes(m)).map(m => current(m, epoch, m === joiner ? epoch : previous, 0, tgt.get(m)))
    if (membersApart) for (const c of settled) write([c])
    else write(settled)
    owned = tgt
    afterBump()
  }
}
