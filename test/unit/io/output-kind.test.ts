import {execFileSync} from 'node:child_process'
import {closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Writable} from 'node:stream'
import {afterAll, describe, expect, it} from 'vitest'
import {isPipeOrSocket, partsWriter} from '../../../src/io/output-kind.js'
import {jsonPieces, writeInChunks} from '../../../src/render/json-stream.js'

const dir = mkdtempSync(join(tmpdir(), 'rd-output-kind-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

/** A stream that records each write(2) it would make: one per _write, one per _writev. */
function recorder() {
  const calls: Buffer[][] = []
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      calls.push([chunk])
      done()
    },
    writev(chunks, done) {
      calls.push(chunks.map(c => c.chunk as Buffer))
      done()
    },
  })
  return {out, calls}
}

describe('output kind', () => {
  it('a FIFO is a pipe; a file, a bad descriptor and none are not', () => {
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    // (read-write: a FIFO opened so does not wait for a reader)
    const p = openSync(fifo, 'r+')
    const f = openSync(join(dir, 'file'), 'w')
    try {
      expect(isPipeOrSocket(p)).toBe(true)
      expect(isPipeOrSocket(f)).toBe(false)
    } finally {
      closeSync(p)
      closeSync(f)
    }
    expect(isPipeOrSocket(undefined)).toBe(false)
    expect(isPipeOrSocket(-1)).toBe(false)
  })

  it('a chunk goes as one writev of its parts into a pipe, as one joined buffer elsewhere; same bytes', () => {
    const rows = Array.from({length: 50}, (_, i) => {
      const text = JSON.stringify({group: `g-${i}`, n: i})
      const bytes = Buffer.from(`xx${text}yy`).subarray(2, 2 + text.length)
      return {text, jsonPieces: () => [bytes]}
    })
    const doc = {schema: 's', groups: rows, after: 'é\u202e'}
    const want = JSON.stringify({schema: 's', groups: rows.map(r => JSON.parse(r.text)), after: 'é\u202e'})
    for (const gather of [true, false]) {
      const {out, calls} = recorder()
      writeInChunks(jsonPieces(doc), partsWriter(out, gather), s => s, 256)
      expect(Buffer.concat(calls.flat()).toString(), String(gather)).toBe(want)
      expect(calls.length, String(gather)).toBeGreaterThan(3)
      // gathered: the parts of a chunk in one call; joined: one buffer a call
      if (gather) expect(calls.some(c => c.length > 10)).toBe(true)
      else expect(calls.every(c => c.length === 1)).toBe(true)
    }
  })

  it("an output's descriptor decides: a file's stream gets joined buffers, a FIFO's gathered parts; the file holds the document", () => {
    const doc = {
      groups: Array.from({length: 300}, (_, i) => ({
        jsonPieces: () => [Buffer.from(JSON.stringify({group: `g-${i}`}))],
      })),
      n: 1,
    }
    const want = JSON.stringify({groups: Array.from({length: 300}, (_, i) => ({group: `g-${i}`})), n: 1})
    const file = join(dir, 'doc.json')
    const fd = openSync(file, 'w')
    const toFile: Buffer[][] = []
    const fileOut = Object.assign(
      new Writable({
        write(chunk: Buffer, _enc, done) {
          toFile.push([chunk])
          writeSync(fd, chunk)
          done()
        },
        writev(chunks, done) {
          toFile.push(chunks.map(c => c.chunk as Buffer))
          for (const c of chunks) writeSync(fd, c.chunk as Buffer)
          done()
        },
      }),
      {fd},
    )
    writeInChunks(jsonPieces(doc), partsWriter(fileOut), s => s, 512)
    closeSync(fd)
    expect(readFileSync(file, 'utf8')).toBe(want)
    expect(toFile.length).toBeGreaterThan(3)
    expect(toFile.every(c => c.length === 1)).toBe(true)
    const fifo = join(dir, 'fifo2')
    execFileSync('mkfifo', [fifo])
    const pfd = openSync(fifo, 'r+')
    try {
      const {out, calls} = recorder()
      writeInChunks(jsonPieces(doc), partsWriter(Object.assign(out, {fd: pfd})), s => s, 512)
      expect(Buffer.concat(calls.flat()).toString()).toBe(want)
      expect(calls.some(c => c.length > 10)).toBe(true)
    } finally {
      closeSync(pfd)
    }
  })
})
