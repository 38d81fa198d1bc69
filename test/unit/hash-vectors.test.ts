import {existsSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {TopicHasher} from '../../src/core/hash.js'
import {parseMetadataDocument} from '../../src/core/metadata.js'

const fixture = fileURLToPath(new URL('../fixtures/hash-vectors.json', import.meta.url))
const shared = fileURLToPath(new URL('../../../shared/test-vectors/hash-vectors.json', import.meta.url))
const vectors = JSON.parse(readFileSync(fixture, 'utf8')) as {
  cases: Array<{
    name: string
    metadata: unknown
    expect: {topics: Record<string, string>; groups: Array<{subscribed: string[]; hash: string}>}
  }>
}

describe('golden hash vectors (shared/test-vectors/hash-vectors.json)', () => {
  it.runIf(existsSync(shared))('the fixture copy equals the shared vectors', () => {
    expect(readFileSync(fixture, 'utf8')).toBe(readFileSync(shared, 'utf8'))
  })

  it('has cases', () => expect(vectors.cases.length).toBeGreaterThanOrEqual(14))

  for (const c of vectors.cases) {
    it(c.name, () => {
      const hasher = new TopicHasher(parseMetadataDocument(c.metadata, c.name))
      for (const [topic, hash] of Object.entries(c.expect.topics)) {
        expect(hasher.topicHash(topic).toString(), topic).toBe(hash)
      }
      for (const g of c.expect.groups) {
        expect(hasher.groupHash(g.subscribed).toString(), g.subscribed.join(',')).toBe(g.hash)
      }
    })
  }
})
