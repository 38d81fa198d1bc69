/**
 * The protocol error table (src/kafka/error-codes.ts, generated from Kafka 4.4.0) against the Errors enum of the
 * Kafka version under test, printed by the same generator (scripts/KafkaErrorCodes.java) from that version's jars:
 * every code it knows has the same name and retriable flag in ours. Needs the jars only, no broker.
 */
import {execFileSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {KAFKA_ERRORS} from '../../src/kafka/error-codes.js'
import {readClusterEnv, REPO_ROOT} from './lib/cluster.js'

describe('Kafka error codes', () => {
  it('equal the Errors enum of the Kafka version under test', () => {
    const env = readClusterEnv()
    const out = execFileSync('java', ['-cp', `${env.libs}/*`, 'scripts/KafkaErrorCodes.java', env.kafkaVersion], {cwd: REPO_ROOT, encoding: 'utf8'})
    const theirs = [...out.matchAll(/^ {2}\[(-?\d+), \{name: '(\w+)', retriable: (true|false)\}\],$/gm)].map(m => [Number(m[1]), m[2], m[3] === 'true'])
    expect(theirs.length).toBeGreaterThan(130)
    expect(theirs.map(([code]) => [code, KAFKA_ERRORS.get(code as number)?.name, KAFKA_ERRORS.get(code as number)?.retriable])).toEqual(theirs)
  }, 120_000)
})
