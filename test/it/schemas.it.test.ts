/**
 * The schemas the tool decodes against the message JSON in the jars of the Kafka version under test
 * (.kafka-libs/<version>, from kafka-it/cluster.sh libs): every __consumer_offsets record type
 * (src/core/records/schemas.ts) against kafka-group-coordinator's common/message/*.json, every KRaft metadata record
 * the tool reads (src/core/metadata-log/schemas.ts) against kafka-metadata's common/metadata/*.json, every request
 * and response body (src/kafka/messages) against kafka-clients' common/message/*.json. Fields, types, nullability,
 * versions, flexible versions and tags are compared at each version both sides know, so the day Kafka adds a field,
 * this test says so. Needs no cluster; runs with the integration suite of every Kafka version.
 */
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {RECORD_TYPES} from '../../src/core/records/schemas.js'
import {METADATA_RECORDS} from '../../src/core/metadata-log/schemas.js'
import {inRange, type MessageSpec, parseVersions} from '../../src/core/records/spec.js'
import * as requests from '../../src/kafka/messages/requests.js'
import * as responses from '../../src/kafka/messages/responses.js'
import {REPO_ROOT} from './lib/cluster.js'
import {compareMessage, compareReleases, jarMessages, type KafkaJson} from './lib/kafka-schemas.js'

const version = process.env.KAFKA_VERSION ?? '4.4.0'
const libs = process.env.KAFKA_IT_LIBS || join(REPO_ROOT, '.kafka-libs', version)

/** Key fields by name and type (4.0's key files use the record type as their version; 4.1+ use 0). */
function keyProblems(ours: MessageSpec, theirs: KafkaJson): string[] {
  const v = (spec: {validVersions: string}) => parseVersions(spec.validVersions).min
  const at = (fields: readonly {name: string; type: string; versions?: string}[], version: number) =>
    fields.filter(f => inRange(parseVersions(f.versions ?? '0+'), version)).map(f => `${f.name}:${f.type}`)
  const a = at(ours.fields, v(ours))
  const b = at(theirs.fields, v(theirs))
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [`key fields ${a.join(',')} (tool) vs ${b.join(',')} (Kafka)`]
}

describe(`message schemas vs Kafka ${version}'s jars`, () => {
  it('__consumer_offsets records: every type Kafka defines is in the table, and each matches', () => {
    const kafka = jarMessages(libs, 'kafka-group-coordinator-', 'common/message')
    const problems: string[] = []
    const notes: string[] = []
    for (const rec of RECORD_TYPES) {
      const value = kafka.get(`${rec.name}Value`)
      const key = kafka.get(`${rec.name}Key`)
      if (!value || !key) {
        notes.push(`type ${rec.type} ${rec.name}: not in Kafka ${version}${rec.legacy ? ` (${rec.legacy})` : ''}`)
        continue
      }
      if (value.apiKey !== undefined && value.apiKey !== rec.type) problems.push(`${rec.name}: apiKey ${value.apiKey} in Kafka, type ${rec.type} in the tool`)
      const ours = rec.olderLayouts?.find(o => compareReleases(o.release, version) === 0)?.value ?? rec.value
      const r = compareMessage(ours, value, version)
      if (r.versions.length === 0) problems.push(`${rec.name}Value: no version in common (tool ${ours.validVersions}, Kafka ${value.validVersions})`)
      problems.push(...r.problems.map(p => `${rec.name}Value ${p}`), ...keyProblems(rec.key, key).map(p => `${rec.name}Key ${p}`))
    }
    const ourNames = new Set(RECORD_TYPES.map(r => r.name))
    for (const name of kafka.keys()) {
      if (name.endsWith('Value') && kafka.has(`${name.slice(0, -5)}Key`) && !ourNames.has(name.slice(0, -5)))
        problems.push(`${name.slice(0, -5)}: a record type of Kafka ${version} the tool does not know`)
    }
    console.log(`[schemas] Kafka ${version}: ${RECORD_TYPES.length - notes.length} record types compared; ${notes.join('; ')}`)
    expect(problems).toEqual([])
  })

  it('KRaft metadata records the tool reads', () => {
    const kafka = jarMessages(libs, 'kafka-metadata-', 'common/metadata')
    const problems: string[] = []
    for (const rec of METADATA_RECORDS) {
      const theirs = kafka.get(rec.spec.name)
      if (!theirs) {
        problems.push(`${rec.spec.name}: not in Kafka ${version}'s kafka-metadata jar`)
        continue
      }
      if (theirs.apiKey !== rec.type) problems.push(`${rec.spec.name}: apiKey ${theirs.apiKey} in Kafka, ${rec.type} in the tool`)
      problems.push(...compareMessage(rec.spec, theirs, version).problems.map(p => `${rec.spec.name} ${p}`))
    }
    expect(problems).toEqual([])
  })

  it('request and response bodies (at the versions the tool uses)', () => {
    const kafka = jarMessages(libs, 'kafka-clients-', 'common/message')
    const problems: string[] = []
    const notes: string[] = []
    const specs = [...Object.values(requests), ...Object.values(responses)].filter(
      (m): m is MessageSpec => typeof m === 'object' && m !== null && 'validVersions' in m && 'fields' in m,
    )
    expect(specs.length).toBeGreaterThan(10)
    for (const spec of specs) {
      const theirs = kafka.get(spec.name)
      if (!theirs) {
        // an API this version does not have (StreamsGroupDescribe before 4.1): its brokers do not advertise it
        notes.push(`${spec.name}: not in this version`)
        continue
      }
      const r = compareMessage(spec, theirs, version, {allowMissingTagged: true})
      // a version the broker does not have is negotiated away (ApiVersions); what both have must match
      if (r.versions.length === 0) notes.push(`${spec.name}: tool ${spec.validVersions}, Kafka ${theirs.validVersions}`)
      problems.push(...r.problems.map(p => `${spec.name} ${p}`))
    }
    if (notes.length > 0) console.log(`[schemas] Kafka ${version}: APIs without a version in common (negotiated by ApiVersions): ${notes.join('; ')}`)
    expect(problems).toEqual([])
  })
})
