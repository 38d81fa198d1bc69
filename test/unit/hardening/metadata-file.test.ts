/** Hostile metadata files are refused with exit 2, bounded memory, a message. */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it, vi} from 'vitest'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {run, tempFile, WORKED} from '../helpers.js'
import {cli} from './cli.js'

// child processes: a hang bound, not a speed check (the machine may be loaded)
vi.setConfig({testTimeout: 300_000})

const ID = 'AAECAwQFBgcICQoLDA0ODw'
const onePartition = (partition: number) => ({brokers: [{id: 1, rack: null}], topics: [{name: 't', topicId: ID, partitions: [{partition, replicas: [1]}]}]})

describe('metadata file: partition ids', () => {
  for (const id of [2147483647, 100000000, 1]) {
    it(`partition id ${id} in a 1-partition topic is named, refused at once, without allocating`, () => {
      const file = tempFile('huge.json', onePartition(id))
      // a 64 MB heap: the old code needed 1.9 GB (and Node died at 2^31-1); no wall-time bound (load varies)
      const r = cli(['topic-hash', 'compute', '-f', file], {heapMb: 64})
      expect(r.signal).toBeNull()
      expect(r.status).toBe(2)
      expect(r.stderr).toContain(`partition id ${id} is out of range`)
      expect(r.stderr).not.toMatch(/missing 0, 1, 2/)
    })
  }

  it('the parser itself names the id (in process, where the old code ran out of memory)', () => {
    expect(() => parseMetadataDocument(onePartition(2147483647))).toThrow(/partition id 2147483647 is out of range: the topic lists 1 partition, ids 0\.\.0/)
  })
})

describe('metadata file: bytes and file system', () => {
  it('invalid UTF-8 is refused with its byte offset', async () => {
    const text = JSON.stringify(WORKED).replace('"orders"', '"ord\u0000rs"')
    const buf = Buffer.from(text)
    const at = buf.indexOf(0)
    buf[at] = 0xff
    const file = tempFile('bad-utf8.json', '')
    writeFileSync(file, buf)
    const {error, exitCode} = await run(['topic-hash:compute', '-f', file])
    expect(exitCode).toBe(2)
    expect(error?.message).toContain(`not valid UTF-8 at byte offset ${at}`)
  })

  it('a truncated multi-byte sequence at the end is invalid UTF-8 too', async () => {
    const file = tempFile('trunc.json', '')
    writeFileSync(file, Buffer.concat([Buffer.from('{"brokers":[],"topics":[]}  '), Buffer.from([0xe2, 0x82])]))
    const {error, exitCode} = await run(['topic-hash:compute', '-f', file])
    expect(exitCode).toBe(2)
    expect(error?.message).toContain('not valid UTF-8 at byte offset 28')
  })

  it('a UTF-8 BOM is accepted', async () => {
    const file = tempFile('bom.json', '\uFEFF' + JSON.stringify(WORKED))
    const {stdout, exitCode} = await run(['topic-hash:compute', 'orders', '-f', file, '--json'])
    expect(exitCode).toBe(0)
    expect(JSON.parse(stdout).topics[0].hash).toBe('-1384072001678043178')
  })

  it('ENOTDIR is an input error naming the file', async () => {
    const file = tempFile('plain.json', WORKED)
    const {error, exitCode} = await run(['topic-hash:compute', '-f', join(file, 'x.json')])
    expect(exitCode).toBe(2)
    expect(error?.message).toContain(`metadata file ${join(file, 'x.json')}`)
    expect(error?.message).toContain('not a directory')
  })

  it('a file over the size bound is refused before it is read, naming the bound and how to raise it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rd-big-'))
    const file = join(dir, 'big.json')
    writeFileSync(file, ' '.repeat(2 * 1024 * 1024) + '{}')
    const r = cli(['topic-hash', 'compute', '-f', file], {env: {REBALANCE_DOCTOR_MAX_METADATA_BYTES: String(1024 * 1024)}})
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('is larger than 1048576 bytes')
    expect(r.stderr).toContain('REBALANCE_DOCTOR_MAX_METADATA_BYTES')
  })
})
