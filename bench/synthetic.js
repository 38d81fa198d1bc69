// Deterministic synthetic cluster: TOPICS x PARTITIONS, replication factor RF, brokers spread over RACKS racks.
// Shared by the JS benchmark and (through the JSON file it writes) the JVM reference.
export function syntheticCluster({topics = 10_000, partitions = 100, rf = 3, brokers = 12, racks = 6} = {}) {
  const doc = {
    brokers: Array.from({length: brokers}, (_, i) => ({id: i + 1, rack: `rack-${i % racks}`, fenced: false})),
    topics: [],
  }
  let seed = 42
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return seed
  }
  for (let t = 0; t < topics; t++) {
    const id = Buffer.alloc(16)
    for (let i = 0; i < 16; i += 4) id.writeUInt32BE(next(), i)
    const parts = []
    for (let p = 0; p < partitions; p++) {
      const first = (t + p) % brokers
      parts.push({partition: p, replicas: Array.from({length: rf}, (_, r) => ((first + r * 5) % brokers) + 1)})
    }
    doc.topics.push({name: `bench-topic-${t}`, topicId: id.toString('base64url'), partitions: parts})
  }
  return doc
}
