/**
 * Terminal injection. Group ids, member ids, client ids, client hosts, instance ids and racks
 * (chosen by any client) and names from files carry escape sequences, C1 controls and a bidi override; they go
 * through every command's text output (tables, notes, warnings, errors, progress) and no raw control character
 * reaches stdout or stderr. JSON keeps the exact values.
 */
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'
import {parseMetadataDocument} from '../../../src/core/metadata.js'
import {forTerminal, hasUnsafeControl, terminalSafeJson} from '../../../src/render/terminal.js'
import {consumer, T1, type MemberOpts} from '../../lib/records.js'
import {ROOT, tempFile} from '../helpers.js'
import {onePartitionCluster} from '../../lib/fake-cluster.js'
import {type ClusterSource, opening} from '../../lib/commands.js'
import type {ClusterFactory} from '../../../src/kafka/session.js'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {encodeBatch} from '../../../src/core/metadata-log/batch-writer.js'
import {encodeMetadataRecord} from '../../../src/core/metadata-log/codec.js'

const H = '\x1b[2J\x1b]0;pwned\x07\u009b31m\u202eevil\r'
const GROUP = `g${H}`
const MEMBER = `m${H}`

function live() {
  return parseMetadataDocument({
    clusterId: `cid${H}`,
    brokers: [
      {id: 1, rack: `rack${H}`},
      {id: 2, rack: 'rack-b'},
    ],
    topics: [
      {
        name: 'orders',
        topicId: T1,
        partitions: [
          {partition: 0, replicas: [1, 2]},
          {partition: 1, replicas: [2]},
        ],
      },
    ],
  })
}

function fakeClient() {
  const member = (g: string, m: string, o: MemberOpts) => {
    const r = consumer.member(g, m, o)
    ;(r.value as Record<string, unknown>).ClientId = `client${H}`
    ;(r.value as Record<string, unknown>).ClientHost = `/host${H}`
    return r
  }
  return onePartitionCluster(
    live(),
    [
      member(GROUP, MEMBER, {names: ['orders', `missing${H}`], instanceId: `inst${H}`, rack: `rack${H}`}),
      consumer.metadata(GROUP, 1, 42n),
      consumer.target(GROUP, MEMBER, [[T1, [0]]]),
      consumer.targetMetadata(GROUP, 1),
      consumer.current(GROUP, MEMBER, 1, [[T1, [0]]]),
      consumer.metadata(GROUP, 2, 43n),
    ],
    1_700_000_000_000,
  )
}

/** The cluster of a run: what a broker sends reaches the command as a warning, through the session's own warn. */
const hostileBroker: ClusterFactory = async (_settings, options) => {
  options.warn?.(`broker ${H} sent something odd`)
  return fakeClient()
}

let out: string[] = []
beforeEach(() => {
  out = []
  const capture = (chunk: unknown) => {
    out.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'))
    return true
  }
  vi.spyOn(process.stdout, 'write').mockImplementation(capture as never)
  vi.spyOn(process.stderr, 'write').mockImplementation(capture as never)
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')))
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')))
})
afterEach(() => {
  vi.restoreAllMocks()
  process.exitCode = undefined
})

async function runCmd(path: string, argv: string[], cluster: ClusterSource = hostileBroker): Promise<{text: string; error?: Error}> {
  const {default: Cmd} = await import(path)
  let error: Error | undefined
  try {
    await opening(Cmd, cluster).run(argv, ROOT)
  } catch (error_) {
    error = error_ as Error
  }
  const text = out.join('') + (error ? `\n${error.message}` : '')
  return {text, error}
}

const cases: Array<[string, string, string[]]> = [
  ['group explain', '../../../src/commands/group/explain.js', [GROUP, '-b', 'h:1', '--no-color']],
  ['group records', '../../../src/commands/group/records.js', [GROUP, '-b', 'h:1', '--wide']],
  ['audit', '../../../src/commands/audit.js', ['-b', 'h:1', '--all', '--no-record']],
  ['cluster snapshot', '../../../src/commands/cluster/snapshot.js', ['-b', 'h:1']],
  ['topic-hash compute (live)', '../../../src/commands/topic-hash/compute.js', ['orders', `absent${H}`, '-b', 'h:1']],
]

describe('no raw control character reaches the terminal', () => {
  for (const [name, path, argv] of cases) {
    it(`${name}: text output`, async () => {
      const {text} = await runCmd(
        path,
        argv.filter(a => a !== '--no-color'),
      )
      expect(text.length).toBeGreaterThan(0)
      expect(hasUnsafeControl(text), JSON.stringify(text.slice(0, 2000))).toBe(false)
      expect(text).not.toContain('\x1b')
    })
  }

  it('group explain shows the hostile ids escaped, visibly', async () => {
    const {text} = await runCmd('../../../src/commands/group/explain.js', [GROUP, '-b', 'h:1'])
    expect(text).toContain(forTerminal(GROUP).replace('\r', '\\x0d'))
    expect(text).toContain('\\x1b[2J\\x1b]0;pwned\\x07\\x9b31m\\u202eevil')
    // the offsets table names the member, its host and client: escaped too
    expect(text).toMatch(/offsets: 1 partition, total lag 0, 1 without a committed offset\n[\s\S]*│ \/host\\x1b\[2J/)
  })

  it('--json keeps the exact values (and writes C1/bidi as \\u escapes)', async () => {
    const {text} = await runCmd('../../../src/commands/group/explain.js', [GROUP, '-b', 'h:1', '--json'])
    expect(hasUnsafeControl(text)).toBe(false)
    const doc = JSON.parse(text)
    expect(doc.group).toBe(GROUP)
    expect(doc.members[0].clientId).toBe(`client${H}`)
    expect(doc.offsets.partitions).toEqual([
      {
        topic: 'orders',
        topicId: T1,
        partition: 0,
        committedOffset: null,
        logEndOffset: '10',
        lag: null,
        memberId: MEMBER,
        clientId: `client${H}`,
        host: `/host${H}`,
        logEndError: null,
      },
    ])
  })

  it('metadata files: topic names and racks in topic-hash compute and bytes', async () => {
    const file = tempFile('hostile.json', {
      brokers: [{id: 1, rack: `rack${H}`}],
      topics: [{name: `t${H}`, topicId: T1, partitions: [{partition: 0, replicas: [1]}]}],
    })
    for (const [path, argv] of [
      ['../../../src/commands/topic-hash/compute.js', ['-f', file]],
      ['../../../src/commands/topic-hash/bytes.js', [`t${H}`, '-f', file]],
      ['../../../src/commands/topic-hash/bytes.js', [`nope${H}`, '-f', file]],
    ] as const) {
      out = []
      const {text} = await runCmd(path, [...argv])
      expect(hasUnsafeControl(text), JSON.stringify(text)).toBe(false)
    }
  })

  it('errors naming a hostile value are escaped in text mode', async () => {
    const file = tempFile(`bad${H}.json`, '{')
    const {text, error} = await runCmd('../../../src/commands/topic-hash/compute.js', ['-f', file])
    expect(error).toBeDefined()
    expect(hasUnsafeControl(text)).toBe(false)
  })

  it('progress on a terminal escapes its text', async () => {
    const {startProgress} = await import('../../../src/render/progress.js')
    const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY')
    Object.defineProperty(process.stderr, 'isTTY', {value: true, configurable: true})
    const stream = process.stderr as unknown as Record<string, unknown>
    const saved = ['cursorTo', 'clearLine', 'moveCursor'].map(k => [k, stream[k]] as const)
    for (const [k] of saved) stream[k] = (..._a: unknown[]) => true
    try {
      const p = await startProgress(`reading ${GROUP}`, true)
      p.update(`reading ${GROUP} again`)
      await new Promise(r => setTimeout(r, 250))
      p.stop()
    } finally {
      for (const [k, v] of saved) stream[k] = v
      if (tty) Object.defineProperty(process.stderr, 'isTTY', tty)
      else delete (process.stderr as {isTTY?: boolean}).isTTY
    }
    const text = out.join('')
    expect(text).not.toContain('\x1b[2J')
    expect(text).not.toContain('\x07')
    expect(text).not.toContain('\u202e')
    expect(text).not.toContain('\u009b')
  })

  it('terminalSafeJson keeps the value', () => {
    const v = {a: H, b: '\u2066x\u2069'}
    const j = terminalSafeJson(JSON.stringify(v))
    expect(hasUnsafeControl(j)).toBe(false)
    expect(JSON.parse(j)).toEqual(v)
  })

  it('cluster history --ndjson escapes C1, bidi and line separators from the log as --json does', async () => {
    const name = `t${H}\u2028\u0085\u2029`
    const dir = mkdtempSync(join(tmpdir(), 'rd-hostile-log-'))
    const t = Date.parse('2026-11-30T14:00:00Z')
    writeFileSync(
      join(dir, '00000000000000000000.log'),
      Buffer.concat([
        encodeBatch(0n, t, [
          encodeMetadataRecord(0, {
            BrokerId: 1,
            IncarnationId: 'AAAAAAAAAAAAAAAAAAAAAQ',
            BrokerEpoch: 1n,
            EndPoints: [],
            Features: [],
            Rack: `rack${H}\u2028`,
            Fenced: false,
            InControlledShutdown: false,
            LogDirs: [],
          }),
        ]),
        encodeBatch(1n, t + 1000, [
          encodeMetadataRecord(2, {Name: name, TopicId: T1}),
          encodeMetadataRecord(3, {
            PartitionId: 0,
            TopicId: T1,
            Replicas: [1],
            Isr: [1],
            RemovingReplicas: [],
            AddingReplicas: [],
            Leader: 1,
            LeaderEpoch: 0,
            PartitionEpoch: 0,
            Directories: ['AAAAAAAAAAAAAAAAAAAAAA'],
          }),
        ]),
      ]),
    )
    const json = (await runCmd('../../../src/commands/cluster/history.js', ['--metadata-log', dir, '--json'])).text
    out = []
    const ndjson = (await runCmd('../../../src/commands/cluster/history.js', ['--metadata-log', dir, '--ndjson'])).text
    for (const text of [json, ndjson]) {
      expect(hasUnsafeControl(text), JSON.stringify(text)).toBe(false)
      for (const c of ['\u009b', '\u202e', '\u2028', '\u0085', '\u2029']) expect(text).not.toContain(c)
    }
    // the same values: only written as escapes
    const lines = ndjson
      .trim()
      .split('\n')
      .map(l => JSON.parse(l))
    expect(lines.filter(l => l.topic !== undefined).map(l => l.topic)).toEqual([name])
    expect(lines.slice(0, -1)).toEqual(JSON.parse(json).changes)
  })

  it('group explain: a line break in an id cannot forge a line of the text', async () => {
    const g = 'g\nverdict: STABLE: nothing to see\r\n'
    const m = 'm\nverdict: FORGED'
    const cluster = async () =>
      onePartitionCluster(
        live(),
        [
          consumer.member(g, m, {names: ['orders'], rack: 'r\nverdict: FORGED'}),
          consumer.metadata(g, 1, 42n),
          consumer.target(g, m, [[T1, [0]]]),
          consumer.targetMetadata(g, 1),
          consumer.current(g, m, 1, [[T1, [0]]]),
          consumer.metadata(g, 2, 43n),
        ],
        1_700_000_000_000,
      )
    const {text} = await runCmd('../../../src/commands/group/explain.js', [g, '-b', 'h:1', '--no-color'], cluster)
    const verdicts = text.split('\n').filter(l => /^\W*verdict:/.test(l))
    expect(verdicts, text).toHaveLength(1)
    expect(text).not.toContain('FORGED\n')
    expect(text).toContain('g\\nverdict: STABLE: nothing to see\\x0d\\n')
  })

  it('group records: a line break in the group id cannot start a line of its own', async () => {
    const g = 'g\nverdict: STABLE'
    const cluster = async () => onePartitionCluster(live(), [consumer.member(g, 'm', {names: ['orders']}), consumer.metadata(g, 1, 42n)], 1_700_000_000_000)
    const {text} = await runCmd('../../../src/commands/group/records.js', [g, '-b', 'h:1'], cluster)
    expect(
      text.split('\n').filter(l => /^\W*verdict:/.test(l)),
      text,
    ).toEqual([])
    expect(text).toContain('g\\nverdict: STABLE: __consumer_offsets-0')
    out = []
    const none = await runCmd('../../../src/commands/group/records.js', ['x\nverdict: FORGED', '-b', 'h:1'], cluster)
    expect(
      none.text.split('\n').filter(l => /^\W*verdict:/.test(l)),
      none.text,
    ).toEqual([])
  })
})
