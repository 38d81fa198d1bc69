/**
 * Progress on a real terminal (a pty made by util-linux `script`) at 0, 80 and 200 columns, while a live command
 * waits on a listener that never answers: bounded output, the spinner only where the width is known, every
 * painted line within the width, and the command ends at its --timeout.
 */
import {spawn} from 'node:child_process'
import {createServer, type Server, type Socket} from 'node:net'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
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

function onPty(columns: number, command: string, env: NodeJS.ProcessEnv = {NO_COLOR: '1'}): Promise<{code: number | null; out: string; ms: number}> {
  const t0 = Date.now()
  return new Promise((resolve, reject) => {
    const p = spawn('script', ['-q', '-e', '-c', `stty cols ${columns} rows 40; ${command}`, '/dev/null'], {
      cwd: ROOT,
      env: {...process.env, NO_COLOR: undefined, ...env},
    })
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

describe('the spinner and NO_COLOR', () => {
  const command = () => `${process.execPath} bin/run.js group explain some-group -b 127.0.0.1:${port} --timeout 1500`
  // (ora paints its frame cyan: ESC [36m)
  it('NO_COLOR=1 uncolours the spinner, as it does the output', async () => {
    const r = await onPty(80, command(), {NO_COLOR: '1', TERM: 'xterm'})
    expect(r.out).toContain('reading some-group')
    expect(r.out).not.toContain('\u001B[36m')
  })
  it('--no-color too; without either the spinner is coloured', async () => {
    const plain = await onPty(80, `${command()} --no-color`, {TERM: 'xterm'})
    expect(plain.out).toContain('reading some-group')
    expect(plain.out).not.toContain('\u001B[36m')
    // (CI=true, as CI runs the suite, makes the colour library turn colour off by itself: not what is tested here)
    const coloured = await onPty(80, command(), {TERM: 'xterm', CI: undefined})
    expect(coloured.out).toContain('\u001B[36m')
  })
})

describe('offline commands on an 80-column terminal', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rd-pty-'))
  const md = join(dir, 'md.json')
  const topic = (name: string, id: string) => ({name, topicId: id, partitions: [{partition: 0, replicas: [1, 2, 3]}]})
  const rack = (c: string) => `eu-west-1${c}-rack-with-a-long-name`
  writeFileSync(
    md,
    JSON.stringify({
      brokers: [1, 2, 3].map(id => ({id, rack: rack('abc'[id - 1])})),
      topics: [topic('rdamx367dop-orders', 'AAAAAAAAAAAAAAAAAAAAAQ'), topic('rdamx367dop-payments', 'AAAAAAAAAAAAAAAAAAAAAg')],
    }),
  )
  const segments = [0, 3, 4].map(p => `--offsets-segment test/unit/records/fixtures/kafka-4.4.0/__consumer_offsets-${p}.segment`).join(' ')
  it.each([
    ['topic-hash compute', `topic-hash compute -f ${md}`],
    ['topic-hash bytes', `topic-hash bytes rdamx367dop-orders -f ${md}`],
    ['impact', `impact --metadata-file ${md} ${segments} --delete-topic rdamx367dop-payments --broker-rack 1=x --all`],
  ])('%s: every line within 80 columns', async (_, args) => {
    const r = await onPty(80, `${process.execPath} bin/run.js ${args}`, {NO_COLOR: '1', COLUMNS: undefined})
    expect(r.code, r.out).toBe(0)
    const lines = r.out.split(/\r?\n/).filter(l => l.trim() !== '')
    expect(lines.length).toBeGreaterThan(3)
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(80)
  })
})
