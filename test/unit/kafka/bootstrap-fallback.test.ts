/**
 * The bootstrap list is tried in order: a dead first server (connection refused) costs only its own attempt, the
 * client opens on the next one that answers ApiVersions; when none answers, one error names them all. Local TCP
 * servers stand in for brokers (only ApiVersions is answered: all opening a client asks).
 */
import {createServer, type Server, type Socket} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {resolveConnectionSettings} from '../../../src/config/client-config.js'
import {KafkaClient} from '../../../src/kafka/client.js'
import {onRequestFrames} from '../../lib/hostile-broker.js'

const servers: Server[] = []
const sockets = new Set<Socket>()

afterEach(async () => {
  for (const s of sockets) s.destroy()
  await Promise.all(servers.splice(0).map(s => new Promise(r => s.close(r))))
})

function listen(onSocket: (s: Socket) => void): Promise<number> {
  const server = createServer(s => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
    onSocket(s)
  })
  servers.push(server)
  return new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve((server.address() as {port: number}).port)))
}

/** A port nothing listens on: a connection to it is refused. */
async function deadPort(): Promise<number> {
  const port = await listen(() => {})
  await new Promise(r => servers.pop()!.close(r))
  return port
}

/** ApiVersions v3 response (header v0): no error, Metadata 0..12 and ApiVersions 0..3, no throttle, no tags. */
function apiVersionsResponse(correlationId: number): Buffer {
  const api = (key: number, min: number, max: number) => {
    const b = Buffer.alloc(7)
    b.writeInt16BE(key, 0)
    b.writeInt16BE(min, 2)
    b.writeInt16BE(max, 4)
    return b // last byte 0: no tagged fields
  }
  const body = Buffer.concat([Buffer.from([0, 0]), Buffer.from([3]), api(3, 0, 12), api(18, 0, 3), Buffer.alloc(4), Buffer.from([0])])
  const head = Buffer.alloc(8)
  head.writeInt32BE(4 + body.length, 0)
  head.writeInt32BE(correlationId, 4)
  return Buffer.concat([head, body])
}

/** A "broker" that answers every ApiVersions request it is sent. */
function broker(): Promise<number> {
  return listen(s =>
    onRequestFrames(s, frame => {
      if (frame.readInt16BE(0) === 18) s.write(apiVersionsResponse(frame.readInt32BE(4)))
    }),
  )
}

const settings = (ports: number[]) => resolveConnectionSettings({bootstrapServer: ports.map(p => `127.0.0.1:${p}`).join(','), timeoutMs: 10_000, env: {}})

describe('bootstrap fallback', () => {
  it('a dead first bootstrap server: the client opens on the next one', async () => {
    const [dead, live] = [await deadPort(), await broker()]
    const debug: string[] = []
    const client = await KafkaClient.open(settings([dead, live]), {debug: l => debug.push(l)})
    try {
      expect(client.clusterAddress).toBe(`127.0.0.1:${live}`)
      expect(debug.some(l => l.startsWith(`bootstrap 127.0.0.1:${dead} failed`))).toBe(true)
      expect(debug.some(l => l.startsWith(`connected to 127.0.0.1:${live}`))).toBe(true)
    } finally {
      await client.close()
    }
  })

  it('the first that answers wins: a later one is never asked', async () => {
    let asked = 0
    const first = await broker()
    const second = await listen(() => asked++)
    const client = await KafkaClient.open(settings([first, second]))
    try {
      expect(client.clusterAddress).toBe(`127.0.0.1:${first}`)
      expect(asked).toBe(0)
    } finally {
      await client.close()
    }
  })

  it('every bootstrap server dead: one error that says so for all of them', async () => {
    const ports = [await deadPort(), await deadPort()]
    const error = await KafkaClient.open(settings(ports)).then(
      () => undefined,
      (e: Error & {code?: string; exitCode?: number}) => e,
    )
    expect(error).toBeDefined()
    expect(error!.exitCode).toBe(1)
    expect(error!.message).toMatch(/and 1 more bootstrap server alike/)
  })
})
