import {describe, expect, it} from 'vitest'
import {KAFKA_ERRORS, kafkaErrorName} from '../../../src/kafka/error-codes.js'

describe('Kafka protocol error codes (our table, generated from Kafka 4.4.0 Errors)', () => {
  it("names codes, including those newer than @platformatic/kafka 1.35's table (128..136)", () => {
    expect(kafkaErrorName(29)).toBe('TOPIC_AUTHORIZATION_FAILED')
    expect(kafkaErrorName(-1)).toBe('UNKNOWN_SERVER_ERROR')
    expect(kafkaErrorName(128)).toBe('INVALID_REGULAR_EXPRESSION')
    expect(kafkaErrorName(136)).toBe('CONTROLLER_ID_NOT_REGISTERED')
    expect(kafkaErrorName(9999)).toBe('error code 9999')
  })

  it("covers -1..136 without a gap, with Kafka's retriable flags", () => {
    expect([...KAFKA_ERRORS.keys()]).toEqual(Array.from({length: 138}, (_, i) => i - 1))
    expect(KAFKA_ERRORS.get(6)).toEqual({name: 'NOT_LEADER_OR_FOLLOWER', retriable: true})
    expect(KAFKA_ERRORS.get(14)).toEqual({name: 'COORDINATOR_LOAD_IN_PROGRESS', retriable: true})
    expect(KAFKA_ERRORS.get(29)?.retriable).toBe(false)
  })
})
