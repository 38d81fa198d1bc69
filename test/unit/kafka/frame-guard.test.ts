import {describe, expect, it} from 'vitest'
import {DEFAULT_MAX_RESPONSE_BYTES, describeRequest, FrameChecker, maxResponseBytes} from '../../../src/kafka/frame-guard.js'
import {API, encodeFetchV12} from '../../../src/kafka/protocol.js'

/** A request frame as the library writes it: size, header v2 (api key, version, correlation id, client id, tags), body. */
function request(apiKey: number, version: number, correlationId: number, body: Buffer = Buffer.alloc(0)): Buffer {
  const clientId = Buffer.from('rebalance-doctor')
  const head = Buffer.alloc(14)
  head.writeInt16BE(apiKey, 4)
  head.writeInt16BE(version, 6)
  head.writeInt32BE(correlationId, 8)
  head.writeInt16BE(clientId.length, 12)
  const frame = Buffer.concat([head, clientId, Buffer.from([0]), body])
  frame.writeInt32BE(frame.length - 4, 0)
  return frame
}

function response(correlationId: number, body: Buffer, size = 4 + body.length): Buffer {
  const head = Buffer.alloc(8)
  head.writeInt32BE(size, 0)
  head.writeInt32BE(correlationId, 4)
  return Buffer.concat([head, body])
}

const HEADROOM = 1 << 20

describe('frame guard', () => {
  it('passes well-formed responses, split anywhere across chunks', () => {
    const c = new FrameChecker(HEADROOM)
    c.request(request(API.ApiVersions, 3, 1))
    c.request(request(API.Metadata, 12, 2))
    const stream = Buffer.concat([response(1, Buffer.alloc(300, 1)), response(2, Buffer.alloc(5000, 2))])
    for (let i = 0; i < stream.length; i += 7) expect(c.chunk(stream.subarray(i, i + 7))).toBeUndefined()
  })

  it('refuses a 2 GB size as soon as the 4-byte prefix arrives (nothing else buffered)', () => {
    const c = new FrameChecker(HEADROOM)
    c.request(request(API.ApiVersions, 3, 1))
    expect(c.chunk(Buffer.from([0x7f, 0xff, 0xff]))).toBeUndefined()
    expect(c.chunk(Buffer.from([0xff]))).toMatch(/response size 2147483647 exceeds the 1048576-byte bound for ApiVersions/)
  })

  it('refuses zero, negative and too-small sizes', () => {
    for (const size of [0, -1, -2147483648, 3]) {
      const c = new FrameChecker(HEADROOM)
      c.request(request(API.Metadata, 12, 1))
      expect(c.chunk(response(1, Buffer.alloc(8), size))).toMatch(/response size -?\d+ is (negative|too small)/)
    }
  })

  it('refuses a correlation id other than the oldest outstanding request, and responses nobody asked for', () => {
    const c = new FrameChecker(HEADROOM)
    c.request(request(API.Metadata, 12, 5))
    c.request(request(API.Metadata, 12, 6))
    expect(c.chunk(response(6, Buffer.alloc(4)))).toMatch(/correlation id 6 does not match request 5 \(Metadata\)/)
    const idle = new FrameChecker(HEADROOM)
    expect(idle.chunk(Buffer.from('HTTP/1.1 400'))).toMatch(/nobody asked for/)
  })

  it('names a TLS record and text', () => {
    const c = new FrameChecker(HEADROOM)
    c.request(request(API.ApiVersions, 3, 1))
    expect(c.chunk(Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0a]))).toMatch(/a TLS record/)
    const h = new FrameChecker(HEADROOM)
    h.request(request(API.ApiVersions, 3, 1))
    expect(h.chunk(Buffer.from('HTTP/1.1 400 Bad Request'))).toMatch(/text "HTTP"/)
  })

  it('bounds a Fetch by its MaxBytes plus the headroom', () => {
    const maxBytes = 8 << 20
    const fetch = request(API.Fetch, 12, 9, encodeFetchV12('__consumer_offsets', 3, 0n, maxBytes, 1))
    expect(describeRequest(fetch, HEADROOM)).toEqual({correlationId: 9, apiKey: API.Fetch, bound: maxBytes + HEADROOM})
    const c = new FrameChecker(HEADROOM)
    c.request(fetch)
    const ok = Buffer.alloc(8)
    ok.writeInt32BE(maxBytes + HEADROOM, 0)
    ok.writeInt32BE(9, 4)
    expect(c.chunk(ok)).toBeUndefined()
    const c2 = new FrameChecker(HEADROOM)
    c2.request(fetch)
    ok.writeInt32BE(maxBytes + HEADROOM + 1, 0)
    expect(c2.chunk(ok)).toMatch(/exceeds the \d+-byte bound for Fetch/)
  })

  it('reads its headroom from the environment, and refuses nonsense there', () => {
    expect(maxResponseBytes({})).toBe(DEFAULT_MAX_RESPONSE_BYTES)
    expect(maxResponseBytes({REBALANCE_DOCTOR_MAX_RESPONSE_BYTES: '1048576'})).toBe(1 << 20)
    for (const bad of ['abc', '-1', '12', '1e12', '2147483648'])
      expect(() => maxResponseBytes({REBALANCE_DOCTOR_MAX_RESPONSE_BYTES: bad})).toThrow(/REBALANCE_DOCTOR_MAX_RESPONSE_BYTES must be/)
  })
})
