/**
 * A new streams group: the coordinator creates the topology's internal topics, then validates the topology; the
 * hash of that bump covers topics that did not exist at the first one. Seen on a real 4.4.0 broker: two internal
 * topics (repartition and changelog) made it unexplained (the pair search left out two absences).
 */
import {describe, expect, it} from 'vitest'
import {explainGroup} from '../../../src/core/explain/explain.js'
import {TopicHasher} from '../../../src/core/hash.js'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {replayGroup} from '../../../src/core/replay/index.js'
import type {RecordToEncode} from '../../../src/core/records/index.js'
import {Log, streams as st, T1, T2, T3} from '../../lib/records.js'

const G = 'app'
const T4 = 'AAAAAAAAAAAAAAAAAAAABA'
const topic = (name: string, topicId: string) => ({name, topicId, partitions: [0, 1].map(p => ({partition: p, replicas: [1]}))})
const internal = (n: number) => ['app-a-changelog', 'app-a-repartition', 'app-b-changelog'].slice(0, n)

/** Subtopology 0 reads `in` and writes the repartition topic; 1 reads it and keeps the changelogs. */
function topology(internals: string[]): RecordToEncode {
  const [changelog, repartition, changelog2] = internals
  const base = st.topology(G, 0, ['in'])
  return {
    ...base,
    value: {
      Epoch: 0,
      Subtopologies: [
        {
          SubtopologyId: '0',
          SourceTopics: ['in'],
          SourceTopicRegex: [],
          RepartitionSinkTopics: [repartition],
          RepartitionSourceTopics: [],
          CopartitionGroups: [],
          StateChangelogTopics: [],
        },
        {
          SubtopologyId: '1',
          SourceTopics: [],
          SourceTopicRegex: [],
          RepartitionSinkTopics: [],
          RepartitionSourceTopics: [{Name: repartition, Partitions: 0, ReplicationFactor: 0, TopicConfigs: []}],
          CopartitionGroups: [],
          StateChangelogTopics: [changelog, changelog2]
            .filter(x => x !== undefined)
            .map(Name => ({Name, Partitions: 0, ReplicationFactor: 0, TopicConfigs: []})),
        },
      ],
    },
  }
}

describe('a streams group created: its internal topics did not exist at the first bump', () => {
  for (const n of [2, 3]) {
    it(`${n} internal topics created together: attributed, not unexplained`, () => {
      const ids = [T2, T3, T4]
      const names = ['in', ...internal(n)]
      const before = parseMetadataDocument({brokers: [{id: 1, rack: null}], topics: [topic('in', T1)]})
      const after = parseMetadataDocument({brokers: [{id: 1, rack: null}], topics: [topic('in', T1), ...internal(n).map((x, i) => topic(x, ids[i]))]})
      const log = new Log()
      log.write([st.member(G, 'k1', 0), topology(internal(n)), st.metadata(G, 2, new TopicHasher(before).groupHash(names)), st.targetMetadata(G, 2)])
      log.write([st.metadata(G, 3, new TopicHasher(after).groupHash(names), {ValidatedTopologyEpoch: 0}), st.targetMetadata(G, 3)])
      const r = explainGroup(G, replayGroup(G, log.records), {live: after, now: log.time + 1000})
      const cause = r.timeline[1].causes.find(c => c.kind === 'metadata-hash-changed')!
      expect(cause.confidence).toBe('inferred-unique')
      expect(cause.details.changes).toEqual([
        expect.objectContaining({kind: 'combined', parts: internal(n).map(t => expect.objectContaining({kind: 'topic-absent', topic: t}))}),
      ])
    })
  }
})
