// The generator of bench/audit.bench.js: a partition's __consumer_offsets batches, byte for byte as the coordinator
// writes them (our encoder), encoded into one buffer. In a worker thread (workerData.auditGenerator) it answers each
// partition number with its encoded batches, on a heap of its own (see the bench).
import {isMainThread, parentPort, workerData} from 'node:worker_threads'
import {syntheticCluster} from './synthetic.js'

const dist = new URL('../dist/', import.meta.url)

/** The generator for GROUPS groups and about RECORDS records over PARTITIONS partitions, of TOPICS topics. */
export async function auditGenerator({groups: GROUPS, records: RECORDS, partitions: PARTITIONS, topics: TOPICS}) {
  const {encodeKey, encodeRecord, encodeValue} = await import(new URL('core/records/index.js', dist).href)
  const {parseMetadataDocument} = await import(new URL('core/metadata.js', dist).href)
  const {TopicHasher} = await import(new URL('core/hash.js', dist).href)
  const {encodeBatch} = await import(new URL('core/metadata-log/batch-writer.js', dist).href)

  const doc = syntheticCluster({topics: TOPICS, partitions: 12, rf: 3, brokers: 6, racks: 3})
  const md = parseMetadataDocument(doc)
  const stale = parseMetadataDocument({...doc, topics: doc.topics.map(t => ({...t, partitions: t.partitions.slice(0, 8)}))})
  const liveHasher = new TopicHasher(md)
  const staleHasher = new TopicHasher(stale)
  const topicIds = new Map(md.topics.map(t => [t.name, doc.topics.find(x => x.name === t.name).topicId]))

  function groupPlan(g) {
    const topics = [`bench-topic-${g % TOPICS}`, ...(g % 3 === 0 ? [`bench-topic-${(g * 7 + 1) % TOPICS}`] : [])]
    const drifted = g % 20 === 7
    return {id: `service-${g}-consumer`, topics, hash: (drifted ? staleHasher : liveHasher).groupHash(topics), members: 1 + (g % 3)}
  }

  // One group's writes, each a list of records (one batch per write); about RECORDS / GROUPS records per group,
  // ~60% of them offset commits. Records whose bytes do not change from one epoch to the next (keys, member
  // metadata, target assignments, offset commits) are encoded once per group and reused, so the generator's garbage
  // does not dominate the peak RSS and the scan's GC (same bytes as fresh encodings; the scan decodes each anew).
  function* groupWrites(plan, budget) {
    let epoch = 0
    let used = 0
    const tid = topicIds.get(plan.topics[0])
    const members = Array.from({length: plan.members}, (_, i) => `${plan.id}-member-${i}-0123456789abcdef`)
    const groupKey = type => encodeKey(type, {GroupId: plan.id})
    const keys = {3: groupKey(3), 6: groupKey(6)}
    const memberKeys = type => members.map(m => encodeKey(type, {GroupId: plan.id, MemberId: m}))
    const currentKeys = memberKeys(8)
    const joins = memberKeys(5).map(key => ({
      encoded: {
        key,
        value: encodeValue(5, {
          InstanceId: null,
          RackId: null,
          ClientId: 'c',
          ClientHost: '/10.0.0.1',
          SubscribedTopicNames: plan.topics,
          SubscribedTopicRegex: null,
          RebalanceTimeoutMs: 300000,
          ServerAssignor: null,
          ClassicMemberMetadata: null,
        }),
      },
    }))
    const targets = memberKeys(7).map((key, i) => ({encoded: {key, value: encodeValue(7, {TopicPartitions: [{TopicId: tid, Partitions: [i]}]})}}))
    while (used < budget) {
      epoch++
      const write = [
        joins[epoch % members.length],
        {encoded: {key: keys[3], value: encodeValue(3, {Epoch: epoch, MetadataHash: plan.hash})}},
        ...targets,
        {encoded: {key: keys[6], value: encodeValue(6, {AssignmentEpoch: epoch, AssignmentTimestamp: 0n})}},
      ]
      yield write
      used += write.length
      const cur = currentKeys.map((key, i) => ({
        encoded: {
          key,
          value: encodeValue(8, {
            MemberEpoch: epoch,
            PreviousMemberEpoch: epoch - 1,
            State: 0,
            AssignedPartitions: [{TopicId: tid, Partitions: [i], AssignmentEpochs: null}],
            PartitionsPendingRevocation: [],
          }),
        },
      }))
      yield cur
      used += cur.length
      const commits = Math.max(1, Math.round((write.length + cur.length) * 1.5))
      // offset commits: the audit skips them by key, never reading the value
      const oc = Array.from({length: commits}, (_, k) => commitOf(plan, k % 12, tid))
      yield oc
      used += oc.length
    }
  }

  function commitOf(plan, partition, tid) {
    plan.commits ??= []
    return (plan.commits[partition] ??= {
      encoded: encodeRecord({
        type: 1,
        version: 4,
        key: {group: plan.id, topic: plan.topics[0], partition},
        value: {offset: BigInt(1000 + partition), leaderEpoch: 0, metadata: '', commitTimestamp: 1n, topicId: tid},
      }),
    })
  }

  /** Batches of one partition: its groups' writes interleaved round-robin (as a busy coordinator appends). */
  function* partitionBatches(p) {
    const plans = []
    for (let g = p; g < GROUPS; g += PARTITIONS) plans.push(groupPlan(g))
    const iters = plans.map(pl => groupWrites(pl, RECORDS / GROUPS))
    let offset = 0n
    let time = 1_764_000_000_000
    let live = iters.length
    while (live > 0) {
      live = 0
      for (const it of iters) {
        const n = it.next()
        if (n.done) continue
        live++
        time += 1
        const base = offset
        const records = n.value.map(r => {
          const e = r.encoded ?? encodeRecord(r)
          return {offset: offset++, timestamp: BigInt(time), key: e.key, value: e.value}
        })
        yield {baseOffset: base, lastOffset: offset - 1n, producerId: -1n, isTransactional: false, isControl: false, records}
      }
    }
  }

  /**
   * A partition's batches encoded as the coordinator appends them (as a segment file or a fetch response holds them),
   * each copied into one buffer as soon as it is encoded (a list of them would survive into the old space).
   */
  function encodePartition(p) {
    let bytes = Buffer.allocUnsafe(1 << 20)
    let used = 0
    let records = 0
    for (const b of partitionBatches(p)) {
      const e = encodeBatch(
        b.baseOffset,
        Number(b.records[0].timestamp),
        b.records.map(r => [r.key, r.value]),
      )
      if (used + e.length > bytes.length) {
        const more = Buffer.allocUnsafe(Math.max(bytes.length * 2, used + e.length))
        bytes.copy(more, 0, 0, used)
        bytes = more
      }
      e.copy(bytes, used)
      used += e.length
      records += b.records.length
    }
    return {bytes: bytes.subarray(0, used), records}
  }

  return {partitionBatches, encodePartition}
}

/** The byte ranges of `bytes` (encoded batches) in pieces of whole batches of at most `max` bytes (one batch if larger). */
function pieces(bytes, max) {
  const out = []
  let start = 0
  let pos = 0
  while (pos < bytes.length) {
    const end = pos + 12 + bytes.readInt32BE(pos + 8)
    if (end - start > max && pos > start) {
      out.push([start, pos])
      start = pos
    }
    pos = end
  }
  if (pos > start) out.push([start, pos])
  return out
}

// In a worker: {partition} answers {pieces, records} (the partition generated and encoded), then {piece: i} answers
// {bytes}: its ith piece of at most 1 MiB of whole batches, as `audit` fetches them (OFFSETS_FETCH_BYTES), in a buffer
// of its own handed over to the main thread (a whole partition at once, 23 MB at 100,000 groups, would be external
// memory there, for which V8 runs full collections)
if (!isMainThread && workerData?.auditGenerator) {
  const {encodePartition} = await auditGenerator(workerData.auditGenerator)
  let bytes
  let ranges
  parentPort.on('message', m => {
    if (m.partition !== undefined) {
      const e = encodePartition(m.partition)
      bytes = e.bytes
      ranges = pieces(bytes, 1 << 20)
      // this heap's garbage collected before the scan's clock starts, so that its collector is idle while it runs
      globalThis.gc?.()
      return parentPort.postMessage({pieces: ranges.length, records: e.records})
    }
    const [start, end] = ranges[m.piece]
    const copy = new Uint8Array(bytes.subarray(start, end))
    parentPort.postMessage({bytes: copy.buffer}, [copy.buffer])
  })
}
