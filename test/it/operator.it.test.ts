/**
 * Operator conventions on a live cluster. "Nothing found" is exit 4 with a message that says what was (not) found, never a silent 0: a group with no
 * record, a group id that looks like a pattern, audit filters that match no group, and group records filters that
 * match none of an existing group's records (the group exists: the message must not say it may not).
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {execFile, spawn} from 'node:child_process'
import {existsSync, writeFileSync} from 'node:fs'
import {promisify} from 'node:util'
import {join} from 'node:path'
import {TopicHasher} from '../../src/core/hash.js'
import {buildOnce, cli, tempDir} from './adapter-cli.js'
import {clusterSh, REPO_ROOT} from './lib/cluster.js'
import {Probe} from './lib/probe.js'

const exec = promisify(execFile)
let probe: Probe
let bs: string
const P = `nf${Date.now().toString(36).slice(-5)}`
const group = `${P}-exists`

beforeAll(async () => {
  probe = await Probe.start('operator')
  bs = probe.env.bootstrap
  await buildOnce()
  await probe.driver.cmd(`create-topic ${P}-t 1 3`)
  await probe.driver.cmd(`consumer ${P}1 ${group} names ${P}-t`)
  await probe.settled(group, 'consumer', 2000)
  // a committed offset keeps the empty group: without one, the coordinator's periodic cleanup
  // (offsets.retention.check.interval.ms) deletes it at a moment that depends on when the cluster started
  await probe.driver.cmd(`commit ${P}1`)
  await probe.driver.cmd(`stop ${P}1`)
})
afterAll(async () => {
  await probe?.close()
})

describe('nothing found: exit 4', () => {
  it('group explain of a group with no record: text, --json and --fail-on-pending', async () => {
    const text = await cli(['group', 'explain', `${P}-absent`, '-b', bs])
    expect(text.code).toBe(4)
    expect(text.stdout).toContain(`no record of group ${P}-absent in its __consumer_offsets partition`)
    expect(text.stderr).toContain('Try this: check the group id')
    const json = await cli(['group', 'explain', `${P}-absent`, '-b', bs, '--json', '--fail-on-pending'])
    expect(json.code).toBe(4)
    expect(JSON.parse(json.stdout).verdict.code).toBe('NOT_FOUND')
  })

  it('a pattern that matches no group: exit 4 and a pointer to --literal', async () => {
    const r = await cli(['group', 'explain', `${P}-nomatch-*`, '-b', bs])
    expect(r.code).toBe(4)
    expect(r.stderr).toContain(`no group matches ${P}-nomatch-*`)
    expect(r.stderr).toContain('--literal')
  })

  it('audit --group and --type that match no group: exit 4, still a valid document', async () => {
    const hist = tempDir()
    const none = await cli(['audit', '-b', bs, '--history-dir', hist, '--group', `${P}-nomatch*`])
    expect(none.code).toBe(4)
    expect(none.stderr).toContain(`no group matches --group ${P}-nomatch*`)
    const json = await cli(['audit', '-b', bs, '--history-dir', hist, '--group', `${P}-nomatch*`, '--json'])
    expect(json.code).toBe(4)
    expect(JSON.parse(json.stdout).summary).toMatchObject({groups: 0, exitCode: 4})
    // the same filter matching the group: not 4
    const some = await cli(['audit', '-b', bs, '--history-dir', hist, '--group', `${P}-*`, '--json', '--fail-on', 'none'])
    expect(some.code).toBe(0)
    expect(JSON.parse(some.stdout).summary.groups).toBe(1)
  })

  it("group records: filters that match none of an existing group's records vs a group without records", async () => {
    const filtered = await cli(['group', 'records', group, '-b', bs, '--type', 'ShareGroupMetadata'])
    expect(filtered.code).toBe(4)
    expect(filtered.stdout).toMatch(new RegExp(`\\d+ record\\(s\\) of group ${group}, none matching the filters`))
    expect(filtered.stdout).not.toContain('may not exist')
    const absent = await cli(['group', 'records', `${P}-absent`, '-b', bs, '--json'])
    expect(absent.code).toBe(4)
    expect(JSON.parse(absent.stdout).records).toEqual([])
    const all = await cli(['group', 'records', group, '-b', bs, '--json'])
    expect(all.code).toBe(0)
    expect(JSON.parse(all.stdout).records.length).toBeGreaterThan(0)
  })
})

describe('live topic-hash bytes, and -o that names a format', () => {
  it('topic-hash bytes -b reads the live cluster: the same bytes and hash as from a snapshot file', async () => {
    const file = `${tempDir()}/cluster.json`
    expect((await cli(['cluster', 'snapshot', '-b', bs, '-o', file])).code).toBe(0)
    const live = await cli(['topic-hash', 'bytes', `${P}-t`, '-b', bs, '--json'])
    expect(live.code, live.stderr).toBe(0)
    const offline = await cli(['topic-hash', 'bytes', `${P}-t`, '-f', file, '--json'])
    expect(JSON.parse(live.stdout)).toEqual(JSON.parse(offline.stdout))
    const {md} = await probe.metadata()
    expect(JSON.parse(live.stdout).hash).toBe(String(new TopicHasher(md).topicHash(`${P}-t`)))
  })

  it('cluster snapshot -o yaml is refused before connecting (exit 2), and writes no file named yaml', async () => {
    const r = await cli(['cluster', 'snapshot', '-b', bs, '-o', 'yaml']) // the CLI runs in the repository root
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--output "yaml" looks like an output format')
    expect(existsSync(join(REPO_ROOT, 'yaml'))).toBe(false)
  })
})

describe('group list', () => {
  it('type, state, epochs, members, coordinator and partition agree with DumpLogSegments and the cluster', async () => {
    const live = `${P}-live`
    await probe.driver.cmd(`consumer ${P}2 ${live} names ${P}-t`)
    const stored = await probe.settled(live, 'consumer', 2000)
    const r = await cli(['group', 'list', '-b', bs, '--group', `${P}-*`, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const groups = (JSON.parse(r.stdout) as {groups: Array<Record<string, unknown>>}).groups
    expect(groups.map(g => g.group)).toEqual([group, live])
    const [empty, stable] = groups
    expect(stable).toMatchObject({
      type: 'consumer',
      protocolType: 'consumer',
      state: 'Stable',
      groupEpoch: stored.epoch,
      assignmentEpoch: stored.epoch,
      members: 1,
    })
    expect(stable.coordinator).toBe(await probe.coordinator(live))
    expect(stable.partition).toBe(probe.offsetsPartition(live))
    expect(empty).toMatchObject({type: 'consumer', state: 'Empty', members: 0, groupEpoch: (await probe.latest(group, 'consumer'))!.epoch})

    const text = await cli(['group', 'list', '-b', bs, '--group', `${P}-*`, '--state', 'stable'])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(live)
    expect(text.stdout).not.toContain(`${group} `)
    expect(text.stdout).toContain('1 group (1 consumer)')
    const none = await cli(['group', 'list', '-b', bs, '--group', `${P}-*`, '--type', 'share'])
    expect(none.code).toBe(4)
    await probe.driver.cmd(`stop ${P}2`)
  })
})

describe('group explain: offsets and lag per partition, as kafka-consumer-groups --describe shows them', () => {
  it('committed offset, log end offset, lag, member, host and client equal ConsumerGroupCommand --describe (one committed partition no member has)', async () => {
    const d = probe.driver
    const g = `${P}-offsets`
    const [a, b] = [`${P}-oa`, `${P}-ob`]
    await d.cmd(`create-topic ${a} 3 1`)
    await d.cmd(`create-topic ${b} 1 1`)
    await d.cmd(`produce ${a} 40`)
    await d.cmd(`produce ${b} 5`)
    await d.cmd(`consumer ${P}o1 ${g} names ${a},${b}`)
    await d.cmd(`consumer ${P}o2 ${g} names ${a}`)
    const members = async () =>
      ((await d.cmd('members')) as unknown as {members: Array<{member: string; assignment: string[]}>}).members.filter(m => m.member.startsWith(`${P}o`))
    const until = async (what: string, ok: () => Promise<boolean>) => {
      const deadline = Date.now() + 45_000
      while (!(await ok())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
        await new Promise(r => setTimeout(r, 300))
      }
    }
    await until(
      'both members assigned, all 4 partitions',
      async () => (await members()).flatMap(m => m.assignment).length === 4 && (await members()).every(m => m.assignment.length > 0),
    )
    await new Promise(r => setTimeout(r, 1500)) // let them fetch some records: positions > 0
    for (const m of ['o1', 'o2']) await d.cmd(`commit ${P}${m}`)
    // o1 drops topic b: its committed partition is then owned by no member
    await d.cmd(`subscribe ${P}o1 names ${a}`)
    await until(`no member owns ${b}-0`, async () => !(await members()).some(m => m.assignment.includes(`${b}-0`)))
    await d.cmd(`produce ${a} 30`) // lag after the commits
    await probe.settled(g, 'consumer', 2000)

    const ours = await cli(['group', 'explain', g, '-b', bs, '--json'])
    expect(ours.code, ours.stderr).toBe(0)
    const rows = (JSON.parse(ours.stdout) as {offsets: {partitions: Array<Record<string, string | number | null>>}}).offsets.partitions
    const tool = await clusterSh(
      probe.env,
      'tool',
      'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
      '--bootstrap-server',
      bs,
      '--describe',
      '--group',
      g,
    )
    const lines = tool
      .split('\n')
      .map(l => l.trim().split(/\s+/))
      .filter(f => f[0] === g)
    const theirs = lines.map(([, topic, partition, current, end, lag, consumerId, host, clientId]) => ({
      topic,
      partition: Number(partition),
      current,
      end,
      lag,
      consumerId,
      host,
      clientId,
    }))
    const dash = (v: string | number | null) => (v === null ? '-' : String(v))
    const mine = rows.map(r => ({
      topic: r.topic,
      partition: r.partition as number,
      current: dash(r.committedOffset),
      end: dash(r.logEndOffset),
      lag: dash(r.lag),
      consumerId: dash(r.memberId),
      host: dash(r.host),
      clientId: dash(r.clientId),
    }))
    const order = (x: {topic: unknown; partition: number}[]) => [...x].sort((p, q) => `${p.topic}:${p.partition}`.localeCompare(`${q.topic}:${q.partition}`))
    console.log(`ConsumerGroupCommand --describe:\n${tool}`)
    expect(order(mine)).toEqual(order(theirs))
    expect(mine).toHaveLength(4)
    // the test shows what it claims: lag on topic a, and b-0 committed but owned by no member
    expect(mine.filter(r => r.topic === a).reduce((n, r) => n + Number(r.lag), 0)).toBeGreaterThan(0)
    expect(mine.find(r => r.topic === b)).toMatchObject({consumerId: '-', current: expect.stringMatching(/^\d+$/)})
    const text = await cli(['group', 'explain', g, '-b', bs])
    expect(text.stdout).toMatch(/offsets: 4 partitions, total lag \d+/)
    for (const m of ['o1', 'o2']) await d.cmd(`stop ${P}${m}`)
  })
})

describe('shell completion with live names', () => {
  it('group ids and topic names from the cluster on the line (flag, env), through completion-values and the bash function', async () => {
    const lines = (r: {stdout: string}) => r.stdout.split('\n').filter(Boolean)
    const groups = await cli(['completion-values', '--', 'group', 'explain', '-b', bs, `${P}-ex`])
    expect(groups.code, groups.stderr).toBe(0)
    expect(lines(groups)).toEqual([group])
    // the bootstrap from its environment variable, as the commands take it
    const fromEnv = await cli(['completion-values', '--', 'topic-hash', 'bytes', `${P}-`], {KAFKA_BOOTSTRAP_SERVERS: bs})
    expect(lines(fromEnv)).toContain(`${P}-t`)
    expect(lines(await cli(['completion-values', '--', 'cluster', 'history', '-b', bs, `--topic=${P}-`]))).toContain(`--topic=${P}-t`)
    // bash, as on TAB: the generated function offers the live group
    const dir = tempDir()
    writeFileSync(join(dir, 'rebalance-doctor'), `#!/bin/sh\nexec "${process.execPath}" "${join(REPO_ROOT, 'bin', 'run.js')}" "$@"\n`, {mode: 0o755})
    writeFileSync(join(dir, 'c.bash'), (await cli(['completion', 'bash'])).stdout)
    const line = `rebalance-doctor group records --bootstrap-server ${bs} ${P}-e`
    const bash = await exec(
      'bash',
      [
        '-c',
        `source ${dir}/c.bash; COMP_LINE="$LINE"; COMP_POINT=\${#COMP_LINE}; read -ra COMP_WORDS <<< "$LINE"; COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); _rebalance_doctor; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      {env: {...process.env, LINE: line, PATH: `${dir}:${process.env.PATH}`}},
    )
    expect(bash.stdout.split('\n').filter(Boolean)).toEqual([group])
  })
})

describe('--profile', () => {
  it('a SASL_SSL (SCRAM) profile: bootstrap and command config from the profiles file, no secret printed', async () => {
    const env = probe.env.raw
    const dir = tempDir()
    writeFileSync(
      join(dir, 'scram.properties'),
      [
        'security.protocol=SASL_SSL',
        'sasl.mechanism=SCRAM-SHA-512',
        `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${env.SCRAM_USER}" password="${env.SCRAM_PASSWORD}";`,
        'ssl.truststore.type=PEM',
        `ssl.truststore.location=${env.CA_PEM}`,
        '',
      ].join('\n'),
      {mode: 0o600},
    )
    writeFileSync(
      join(dir, 'profiles.yaml'),
      `profiles:\n  it-secure:\n    bootstrap-server: ${env.BOOTSTRAP_SASL_SSL}\n    command-config: scram.properties\n    timeout: 60s\n`,
    )
    const r = await cli(['group', 'list', '--profile', 'it-secure', '--group', group, '--json', '--debug'], {
      REBALANCE_DOCTOR_PROFILES_FILE: join(dir, 'profiles.yaml'),
    })
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).groups.map((g: {group: string}) => g.group)).toEqual([group])
    expect(r.stderr).toContain('security.protocol=SASL_SSL')
    expect(r.stderr).toContain('timeout=60000ms')
    expect(r.stdout + r.stderr).not.toContain(env.SCRAM_PASSWORD)
  })
})

/**
 * `cmd` on a real pty (util-linux `script`) whose terminal reports `cols` columns: everything the terminal got
 * (stdout and stderr, as the operator sees them), bounded in time and bytes by the caller's assertions.
 */
function onPty(cols: number, args: string[], timeoutMs = 30_000): Promise<{code: number | null; out: string; ms: number}> {
  const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`
  const cmd = `stty cols ${cols} rows 50; exec ${quote(process.execPath)} ${quote(join(REPO_ROOT, 'bin', 'run.js'))} ${args.map(quote).join(' ')}`
  const t0 = performance.now()
  return new Promise((resolve, reject) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('REBALANCE_DOCTOR_') && k !== 'NO_COLOR' && k !== 'DEBUG'))
    const p = spawn('script', ['-q', '-e', '-c', cmd, '/dev/null'], {
      env: {...clean, TERM: 'xterm-256color'},
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    // a progress storm (an endless spinner once wrote 835 MB in 10 min) is cut here, and then fails the size assertion
    // (decoded as a stream: a UTF-8 character split between two pty reads stays whole; per chunk it became three
    // replacement characters, and a 200-column table border measured 201)
    p.stdout.setEncoding('utf8').on('data', d => {
      if (out.length < 4_000_000) out += d
      else p.kill('SIGKILL')
    })
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs)
    p.on('error', reject)
    p.on('close', code => {
      clearTimeout(timer)
      resolve({code, out, ms: performance.now() - t0})
    })
  })
}

/**
 * What the terminal shows: a carriage return (or ESC[G, column 1) goes back to the line's start, so a spinner
 * repainted in place leaves only its last frame; other CSI sequences (colour, erase, cursor) are dropped.
 */
const visible = (s: string) =>
  s
    .replaceAll('\r\n', '\n')
    // eslint-disable-next-line no-control-regex
    .replace(/\u001B\[\d*G/g, '\r')
    // eslint-disable-next-line no-control-regex
    .replace(/\u001B\[[0-9;?]*[A-Za-z]/g, '')
    .split('\n')
    .map(line => line.split('\r').at(-1)!)
    .join('\n')

describe('a real terminal (pty) at 0, 80, 120 and 200 columns', () => {
  it('group explain: bounded output, no cursor-up storm, lines fit the width, one line per ordinary timeline row at 120', async () => {
    const hist = tempDir()
    const captures: string[] = []
    for (const cols of [0, 80, 120, 200]) {
      const r = await onPty(cols, ['group', 'explain', group, '-b', bs, '--history-dir', hist])
      const text = visible(r.out)
      captures.push(
        `--- ${cols} columns: exit ${r.code}, ${r.out.length} bytes, ${Math.round(r.ms)} ms, ESC[1A x${r.out.split('\u001B[1A').length - 1}\n${text}`,
      )
      expect(r.code, text).toBe(0)
      expect(r.out.length).toBeLessThan(64 * 1024)
      expect(text).toMatch(/^verdict: /m)
      // a spinner repaints one line in place (ESC[1A only when a line wrapped): never a storm; none at 0 columns
      const ups = r.out.split('\u001B[1A').length - 1
      if (cols === 0) expect(ups).toBe(0)
      else expect(ups).toBeLessThan(20)
      if (cols > 0) for (const line of text.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(cols)
      if (cols === 120) {
        // one line per cause for ordinary causes (group created, member joined): rows found under the table's
        // header, each row from its epoch line to the next; causes counted from --json
        const lines = text.split('\n')
        const header = lines.findIndex(l => /│\s*epoch\s*│\s*time\s*│\s*why\s*│/.test(l))
        expect(header, text).toBeGreaterThan(0)
        const rows: string[][] = []
        for (const l of lines.slice(header + 1).filter(x => x.trimStart().startsWith('│'))) {
          if (/^\s*│\s*\S+ → \d+\s*│/.test(l)) rows.push([l])
          else rows.at(-1)?.push(l)
        }
        const doc = JSON.parse((await cli(['group', 'explain', group, '-b', bs, '--json', '--history-dir', hist])).stdout) as {
          timeline: Array<{causes: Array<{kind: string}>; cost?: unknown}>
        }
        expect(rows.length, text).toBe(doc.timeline.length)
        let ordinary = 0
        doc.timeline.forEach((e, i) => {
          if (!e.causes.every(c => c.kind === 'member-joined' || c.kind === 'group-created')) return
          ordinary++
          // each cause on one line; the bump's cost follows them (its line may wrap)
          const cost = rows[i].findIndex(l => l.includes('cost: '))
          expect(cost >= 0, text).toBe(e.cost !== undefined)
          expect(cost >= 0 ? cost : rows[i].length, text).toBe(e.causes.length)
        })
        expect(ordinary).toBeGreaterThan(0)
      }
    }
    // the capture for the note
    console.log(captures.join('\n'))
  }, 60_000)
})
