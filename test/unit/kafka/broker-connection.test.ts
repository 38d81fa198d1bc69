/**
 * Kafka's framing as BrokerConnection reads it: responses split across and joined within TCP chunks arrive whole,
 * each to its request; a large frame (copied in as its chunks arrive) too, with the next frame's bytes in its
 * last chunk.
 */
import {createServer, type Server, type Socket} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BrokerConnection} from '../../../src/kafka/broker-connection.js'

/** Response frames (header v1, no tags), written back to back in pieces of these sizes once both requests are in. */
const PIECES = [3, 1, 7, 65_536, 1_000_003, 5, 2_000_000]
let server: Server
let port = 0

/** A response frame: size, correlation id, an empty tag section, then `body`. */
function frame(correlationId: number, body: Buffer): Buffer {
  const head = Buffer.alloc(9)
  head.writeInt32BE(5 + body.length, 0)
  head.writeInt32BE(correlationId, 4)
  return Buffer.concat([head, body])
}

const large = Buffer.from(Array.from({length: 3_000_000}, (_, i) => (i * 7) & 0xff))
const small = Buffer.from('the next frame')

beforeAll(async () => {
  server = createServer((socket: Socket) => {
    let seen = Buffer.alloc(0)
    socket.on('data', d => {
      seen = Buffer.concat([seen, d])
      const ids: number[] = []
      for (let at = 0; at + 12 <= seen.length; at += 4 + seen.readInt32BE(at)) ids.push(seen.readInt32BE(at + 8))
      if (ids.length < 2) return
      const all = Buffer.concat([frame(ids[0], large), frame(ids[1], small)])
      for (let at = 0, i = 0; at < all.length; at += PIECES[i++ % PIECES.length]) socket.write(all.subarray(at, at + PIECES[i % PIECES.length]))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as {port: number}).port
})
afterAll(() => new Promise<void>(resolve => server.close(() => resolve())))

describe('response frames', () => {
  it('a 3 MB frame in odd pieces, then a small one sharing its last piece: each body whole, to its request', async () => {
    const conn = new BrokerConnection('127.0.0.1', port, {clientId: 't', maxResponseBytes: 64 << 20})
    await conn.ready()
    try {
      const [a, b] = await Promise.all([conn.request(16, 5, Buffer.alloc(3)), conn.request(16, 5, Buffer.alloc(3))])
      expect(a.equals(large)).toBe(true)
      expect(b.toString()).toBe(small.toString())
    } finally {
      await conn.close()
    }
  })
})
