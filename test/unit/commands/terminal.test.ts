/**
 * Progress on a real terminal (a pty made by util-linux `script`) at 0, 80 and 200 columns, while a live command
 * waits on a listener that never answers: bounded output, the spinner only where the width is known, every
 * painted line within the width, and the command ends at its --timeout.
 */
import {spawn} from 'node:child_process'
import {createServer, type Server, type Socket} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..', '..')
let server: Server
let port = 0
const sockets = new Set<Socket>()

beforeAll(async () => {
  server = createServer(s => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r))
  port = (server.address() as {port: number}).port
})
afterAll(async () => {
  for (const s of sockets) s.destroy()
  await new Promise(r => server.close(r))
})

const MAX_BYTES = 64 << 10

function onPty(columns: number, command: string): Promise<{code: number | null; out: string; ms: number}> {
  const t0 = Date.now()
  return new Promise((resolve, reject) => {
    const p = spawn('script', ['-q', '-e', '-c', `stty cols ${columns} rows 40; ${command}`, '/dev/null'], {cwd: ROOT, env: {...process.env, NO_COLOR: '1'}})
    let out = ''
    const take = (d: string) => {
      out += d
      if (out.length > MAX_BYTES) p.kill('SIGKILL') // the bug this guards against: endless output
    }
    // (decoded as streams: a UTF-8 character split between two reads stays whole)
    p.stdout.setEncoding('utf8').on('data', take)
    p.stderr.setEncoding('utf8').on('data', take)
    const timer = setTimeout(() => p.kill('SIGKILL'), 20_000)
    p.on('error', reject)
    p.on('close', code => {
      clearTimeout(timer)
      resolve({code, out, ms: Date.now() - t0})
    })
  })
}

describe('progress on a real terminal', () => {
  for (const columns of [0, 80, 200]) {
    it(`${columns} columns: bounded output, ends at --timeout`, async () => {
      const r = await onPty(columns, `${process.execPath} bin/run.js group explain some-group -b 127.0.0.1:${port} --timeout 2000`)
      expect(r.out.length, 'bounded output').toBeLessThan(16 << 10)
      expect(r.code, r.out.slice(-500)).toBe(1)
      expect(r.out).toContain('timed out after 2000 ms')
      expect(r.ms).toBeLessThan(15_000)
      // cursor-up is how ora clears wrapped lines; one-line progress never needs it
      expect(r.out).not.toContain('\u001B[1A')
      const painted = r.out.split(/\u001B\[1G|\u001B\[0K|\r|\n/).filter(l => l.includes('reading some-group'))
      if (columns === 0) {
        expect(painted, 'no spinner without a known width').toEqual([])
      } else {
        expect(painted.length).toBeGreaterThan(0)
        // eslint-disable-next-line no-control-regex
        for (const l of painted) expect(l.replace(/\u001B\[[0-9;?]*[A-Za-z]/g, '').length).toBeLessThan(columns)
      }
    })
  }
})
