/**
 * Hostile "brokers" for the harness: small TCP (or TLS) servers on 127.0.0.1 that misbehave in one way each.
 * Every server stops itself after `lifetimeMs` (sockets destroyed, listener closed) so a test that forgets one
 * cannot keep the process alive, and nothing listens beyond loopback.
 */
import {createServer, type Server, type Socket} from 'node:net'

export type Probe =
  | 'never-answers'
  | 'closes-at-once'
  | 'garbage'
  | 'bad-correlation-id'
  | 'zero-length'
  | 'negative-length'
  | '2GB-length'
  | 'garbage-content'
  | '1-byte-per-second'
  | 'tls-to-plaintext-client'
  | 'plaintext-to-tls-client'

export const PROBES: readonly Probe[] = [
  'never-answers',
  'closes-at-once',
  'garbage',
  'bad-correlation-id',
  'zero-length',
  'negative-length',
  '2GB-length',
  'garbage-content',
  '1-byte-per-second',
  'tls-to-plaintext-client',
  'plaintext-to-tls-client',
]

export interface HostileBroker {
  readonly port: number
  readonly address: string
  stop(): Promise<void>
}

/** Each request frame a client sends on `socket`, without its size prefix (api key int16, api version int16, correlation id int32, ...). */
export function onRequestFrames(socket: Socket, handle: (frame: Buffer) => void): void {
  let buf = Buffer.alloc(0)
  socket.on('data', chunk => {
    buf = Buffer.concat([buf, chunk])
    while (buf.length >= 12) {
      const size = buf.readInt32BE(0)
      if (size < 8 || buf.length < 4 + size) break
      const frame = buf.subarray(4, 4 + size)
      buf = buf.subarray(4 + size)
      handle(frame)
    }
  })
}

/** Each request frame's correlation id. */
function onRequests(socket: Socket, handle: (correlationId: number) => void): void {
  onRequestFrames(socket, frame => handle(frame.readInt32BE(4)))
}

function frame(correlationId: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeInt32BE(4 + body.length, 0)
  head.writeInt32BE(correlationId, 4)
  return Buffer.concat([head, body])
}

function int32(v: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeInt32BE(v)
  return b
}

const GARBAGE = Buffer.from('HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nnot kafka\r\n')

function behave(probe: Probe, socket: Socket, stopAt: number): void {
  socket.on('error', () => {})
  switch (probe) {
    case 'never-answers':
      return
    case 'tls-to-plaintext-client':
      // What a TLS listener (Java's SSLEngine) does with a plaintext request: a fatal alert record, then close.
      socket.once('data', () => socket.end(Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0a])))
      return
    case 'closes-at-once':
      socket.destroy()
      return
    case 'plaintext-to-tls-client':
      // A plaintext Kafka listener reads the ClientHello as a huge size and closes the connection.
      socket.once('data', () => socket.destroy())
      return
    case 'garbage':
      socket.once('data', () => socket.write(GARBAGE))
      return
    case 'bad-correlation-id':
      onRequests(socket, id => socket.write(frame(id + 7, Buffer.alloc(16))))
      return
    case 'zero-length':
      onRequests(socket, () => socket.write(Buffer.concat([int32(0), int32(0), Buffer.alloc(32)])))
      return
    case 'negative-length':
      onRequests(socket, () => socket.write(Buffer.concat([int32(-16), Buffer.alloc(32)])))
      return
    case 'garbage-content':
      // The right correlation id, a plausible size, then bytes no response decoder accepts.
      onRequests(socket, id => socket.write(frame(id, Buffer.from([0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff]))))
      return
    case '1-byte-per-second':
      onRequests(socket, id => {
        const bytes = frame(id, Buffer.alloc(64))
        let i = 0
        const tick = setInterval(() => {
          if (socket.destroyed || i >= bytes.length || Date.now() > stopAt) return clearInterval(tick)
          socket.write(bytes.subarray(i, ++i))
        }, 1000)
        tick.unref()
      })
      return
    case '2GB-length':
      onRequests(socket, id => {
        socket.write(Buffer.concat([int32(0x7fffffff), int32(id)]))
        const chunk = Buffer.alloc(1 << 20, 0x41)
        const pump = () => {
          while (!socket.destroyed && Date.now() < stopAt) if (!socket.write(chunk)) return void socket.once('drain', pump)
        }
        pump()
      })
      return
  }
}

export async function startHostileBroker(probe: Probe, lifetimeMs = 60_000): Promise<HostileBroker> {
  const stopAt = Date.now() + lifetimeMs
  const sockets = new Set<Socket>()
  const track = (s: Socket) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
    behave(probe, s, stopAt)
  }
  const server: Server = createServer(track)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const {port} = server.address() as {port: number}
  const stop = async () => {
    clearTimeout(timer)
    for (const s of sockets) s.destroy()
    await new Promise<void>(resolve => server.close(() => resolve()))
  }
  const timer = setTimeout(() => void stop(), lifetimeMs)
  timer.unref()
  return {port, address: `127.0.0.1:${port}`, stop}
}
