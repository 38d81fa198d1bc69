import {describe, expect, it} from 'vitest'
import {run, tempFile, WORKED} from '../helpers.js'

describe('topic-hash compute (metadata file)', () => {
  const file = tempFile('worked.json', WORKED)

  it('prints a table, the group hash and the missing topics', async () => {
    const {stdout, error} = await run(['topic-hash:compute', 'orders', 'absent', '--metadata-file', file])
    expect(error).toBeUndefined()
    expect(stdout).toMatch(/orders\s+│\s+AAECAwQFBgcICQoLDA0ODw\s+│\s+3\s+│\s+rack-a×3 rack-b×2, 1 without rack\s+│\s+-1384072001678043178/)
    expect(stdout).toContain('group hash over 1 existing topic: 1818785425108894055')
    expect(stdout).toContain('missing (not in the metadata, left out of the group hash): absent')
  })

  it('--json prints the documented shape', async () => {
    const {stdout, exitCode} = await run(['topic-hash:compute', 'orders', 'absent', '-f', file, '--json'])
    expect(exitCode).toBe(0)
    const out = JSON.parse(stdout)
    expect(out).toMatchObject({
      topics: [{name: 'orders', topicId: 'AAECAwQFBgcICQoLDA0ODw', partitions: 3, hash: '-1384072001678043178'}],
      missing: ['absent'],
      groupHash: '1818785425108894055',
    })
  })

  it('no topic means every topic; only missing topics gives group hash 0', async () => {
    const all = JSON.parse((await run(['topic-hash:compute', '-f', file, '--json'])).stdout)
    expect(all.topics.map((t: {name: string}) => t.name)).toEqual(['orders'])
    const none = JSON.parse((await run(['topic-hash:compute', 'x', 'y', '-f', file, '--json'])).stdout)
    expect(none).toEqual({schema: {name: 'rebalance-doctor/topic-hash-compute', version: 1}, topics: [], missing: ['x', 'y'], groupHash: '0', warnings: []})
    expect(Object.keys(none)).toEqual(['schema', 'topics', 'missing', 'groupHash', 'warnings'])
  })

  const bad: Array<[string, string | object, RegExp]> = [
    ['malformed JSON', '{\n"brokers": [}', /not valid JSON: Unexpected token/],
    ['a wrong field type', {brokers: [{id: '1', rack: 'a'}], topics: []}, /\$\.brokers\[0\]\.id: expected a broker id/],
    [
      'duplicate broker ids',
      {
        brokers: [
          {id: 1, rack: 'a'},
          {id: 1, rack: 'b'},
        ],
        topics: [],
      },
      /\$\.brokers\[1\]\.id: duplicate broker id 1/,
    ],
    [
      'duplicate topic names',
      {brokers: [], topics: [WORKED.topics[0], {...WORKED.topics[0], topicId: 'AAECAwQFBgcICQoLDA0OEA'}]},
      /\$\.topics\[1\]\.name: duplicate topic name "orders"/,
    ],
    [
      'a topic id that is not 16 bytes',
      {brokers: [], topics: [{...WORKED.topics[0], topicId: 'AAECAwQFBgcICQoLDA0O'}]},
      /\$\.topics\[0\]\.topicId: "AAECAwQFBgcICQoLDA0O" expected 22 base64url/,
    ],
    [
      'a dashed hex topic id',
      {brokers: [], topics: [{...WORKED.topics[0], topicId: '00010203-0405-0607-0809-0a0b0c0d0e0f'}]},
      /looks like a dashed hex UUID.*"AAECAwQFBgcICQoLDA0ODw"/,
    ],
    [
      'partition ids not 0..n-1',
      {
        brokers: [],
        topics: [
          {
            ...WORKED.topics[0],
            partitions: [
              {partition: 0, replicas: [1]},
              {partition: 2, replicas: [1]},
            ],
          },
        ],
      },
      /partitions\[1\]\.partition: partition id 2 is out of range: the topic lists 2 partitions, ids 0\.\.1/,
    ],
    [
      'a duplicate partition id',
      {
        brokers: [],
        topics: [
          {
            ...WORKED.topics[0],
            partitions: [
              {partition: 0, replicas: [1]},
              {partition: 0, replicas: [2]},
            ],
          },
        ],
      },
      /partitions\[1\]\.partition: duplicate partition id 0/,
    ],
    ['not an object', [1, 2], /\$: expected an object with "brokers" and "topics"/],
  ]
  for (const [what, content, message] of bad) {
    it(`rejects ${what} with exit 2, the JSON path, and no stack trace`, async () => {
      const path = tempFile('bad.json', content)
      const {stdout, stderr, error, exitCode} = await run(['topic-hash:compute', '-f', path])
      expect(exitCode).toBe(2)
      expect(stdout).toBe('')
      expect(error?.message).toMatch(message)
      expect(error?.message).toContain(path)
      expect(stderr).not.toMatch(/\n\s+at /)
    })
  }

  it('a missing file is an input error naming the file', async () => {
    const {error, exitCode} = await run(['topic-hash:compute', '-f', '/nonexistent/cluster.json'])
    expect(exitCode).toBe(2)
    expect(error?.message).toBe('metadata file /nonexistent/cluster.json does not exist')
  })

  it('no source is a usage error', async () => {
    const {error, exitCode} = await run(['topic-hash:compute', 'orders'])
    expect(exitCode).toBe(2)
    expect(error?.message).toContain('no metadata source given')
  })

  it('errors under --json are JSON with code, message, hint and exit code', async () => {
    const {stdout, exitCode} = await run(['topic-hash:compute', '-f', '/nonexistent.json', '--json'])
    expect(exitCode).toBe(2)
    expect(JSON.parse(stdout)).toEqual({
      schema: {name: 'rebalance-doctor/error', version: 1},
      error: {code: 'BAD_INPUT', message: 'metadata file /nonexistent.json does not exist', hint: expect.any(String), exitCode: 2},
      warnings: [],
    })
  })
})

describe('topic-hash bytes', () => {
  const file = tempFile('worked.json', WORKED)

  it('annotates the 149 bytes of the worked example and ends with its hash', async () => {
    const {stdout, exitCode} = await run(['topic-hash:bytes', 'orders', '-f', file, '--json'])
    expect(exitCode).toBe(0)
    const out = JSON.parse(stdout)
    expect(out.length).toBe(149)
    expect(out.hash).toBe('-1384072001678043178')
    expect(out.hashHex).toBe('eccac9d8fc6a97d6')
    expect(out.segments.map((s: {hex: string}) => s.hex).join('')).toBe(out.bytes)
    expect(out.bytes.slice(0, 34)).toBe('000706050403020100' + '0f0e0d0c0b0a0908')
    expect(out.segments.filter((s: {note: string}) => s.note.startsWith('rack')).length).toBe(5)
  })

  it('the table: offset, bytes 16 a line, meaning; then the length and both hashes', async () => {
    const {stdout, exitCode} = await run(['topic-hash:bytes', 'orders', '-f', file])
    expect(exitCode).toBe(0)
    expect(stdout).toMatch(/│\s+0\s+│\s+00\s+│/)
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('149 bytes; XXH3-64 = 0xeccac9d8fc6a97d6; topic hash = -1384072001678043178')
  })

  it('a topic not in the metadata is "nothing matched": exit 4, code UNKNOWN_TOPIC, in JSON too', async () => {
    const {error, exitCode} = await run(['topic-hash:bytes', 'nope', '-f', file])
    expect(exitCode).toBe(4)
    expect(error?.message).toContain('topic "nope" is not in')
    const json = await run(['topic-hash:bytes', 'nope', '-f', file, '--json'])
    expect(json.exitCode).toBe(4)
    expect(JSON.parse(json.stdout).error).toMatchObject({code: 'UNKNOWN_TOPIC', exitCode: 4})
  })
})
