/**
 * Helpers of the adapter and security integration tests: run the built CLI as a user would (a child process:
 * real exit codes, stdout/stderr, elapsed time), and take an independent picture of what a read-only tool must
 * not change (groups, committed offsets, topics, configs), read with Kafka's own Java tools.
 */
import {type ChildProcessWithoutNullStreams, execFile, spawn} from 'node:child_process'
import {existsSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {inject} from 'vitest'
import {type ClusterEnv, clusterSh, REPO_ROOT} from './lib/cluster.js'

const exec = promisify(execFile)

export interface CliResult {
  code: number
  stdout: string
  stderr: string
  ms: number
}

/**
 * Compiles src → dist unless the global setup (test/it/lib/global-setup.ts) did for this run: the CLI runs from
 * dist with the committed oclif manifest.
 */
export async function buildOnce(): Promise<void> {
  if (inject('itDistBuilt')) return
  // tsc emits even when some file has type errors (e.g. another module mid-edit); what we run must exist.
  await exec('npx', ['tsc', '-p', 'tsconfig.json'], {cwd: REPO_ROOT, timeout: 180_000}).catch((error: {stdout?: string}) => {
    if (!existsSync(join(REPO_ROOT, 'dist', 'commands', 'cluster', 'snapshot.js'))) throw new Error(`build failed: ${error.stdout ?? error}`)
  })
}

/** The test process's environment without the CLI's own settings (connection, profile, debug). */
function cleanEnv(): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('REBALANCE_DOCTOR_') && k !== 'KAFKA_BOOTSTRAP_SERVERS' && k !== 'DEBUG'))
}

/** Runs `node bin/run.js ARGS` with a clean connection environment plus `env`. */
export function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const clean = cleanEnv()
  const t0 = performance.now()
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), ...args], {env: {...clean, ...env}, cwd: REPO_ROOT})
    let stdout = ''
    let stderr = ''
    // (decoded as a stream: a UTF-8 character split between two chunks stays whole)
    p.stdout.setEncoding('utf8').on('data', d => (stdout += d))
    p.stderr.setEncoding('utf8').on('data', d => (stderr += d))
    p.on('error', reject)
    p.on('close', code => resolve({code: code ?? -1, stdout, stderr, ms: performance.now() - t0}))
  })
}

export interface NdjsonCli<L> {
  proc: ChildProcessWithoutNullStreams
  /** The whole lines written so far, parsed (the last may be cut mid-write, or by a SIGKILL: it waits). */
  lines: () => L[]
  stderr: () => string
  exited: Promise<number | null>
}

/** A long-running `node bin/run.js ARGS` (a watch) whose stdout is NDJSON, read while it runs. */
export function ndjsonCli<L>(args: string[]): NdjsonCli<L> {
  const proc = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), ...args], {env: cleanEnv(), cwd: REPO_ROOT})
  let out = ''
  let err = ''
  proc.stdout.setEncoding('utf8').on('data', x => (out += x))
  proc.stderr.setEncoding('utf8').on('data', x => (err += x))
  return {
    proc,
    lines: () =>
      out
        .split('\n')
        .slice(0, -1)
        .map(l => JSON.parse(l) as L),
    stderr: () => err,
    exited: new Promise(resolve => proc.on('close', code => resolve(code))),
  }
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'rd-it-'))
}

/** A client properties file, readable by its owner only (as one holding a secret must be: else the CLI warns). */
export function writeProps(dir: string, name: string, lines: string[]): string {
  const path = join(dir, name)
  writeFileSync(path, `${lines.join('\n')}\n`, {mode: 0o600})
  return path
}

/**
 * The message of a failed command. oclif prints "Error: message" and wraps it at 80 columns when stderr is not a
 * terminal (indented continuation lines), then a "Try this:" and a "Code:" line; --debug prints the stack instead.
 * Returns the message joined back into its one line.
 */
export function errorLine(stderr: string): string {
  const lines = stderr.split('\n').map(l => l.replace(/^\s*›\s*/, ''))
  const i = lines.findIndex(l => /^\w*Error: /.test(l))
  if (i < 0) return ''
  const parts = [lines[i].replace(/^\w*Error:\s*/, '')]
  for (const l of lines.slice(i + 1)) {
    if (!l.trim() || /^\s*(Try this:|Code:|at |Reference:)/.test(l)) break
    parts.push(l.trim())
  }
  return parts.join(' ').replaceAll(/\s+/g, ' ').trim()
}

/** What read-only commands must leave unchanged, read with Kafka's own tools (not our client). */
export async function clusterState(env: ClusterEnv): Promise<Record<string, string>> {
  const tool = (...args: string[]) => clusterSh(env, 'tool', ...args)
  const bs = env.bootstrap
  // ConfigCommand is kafka.admin.ConfigCommand (Scala, core) in 4.1 and org.apache.kafka.tools.ConfigCommand later
  const configs = (...args: string[]) =>
    tool('org.apache.kafka.tools.ConfigCommand', ...args).catch((error: Error) => {
      if (!/ClassNotFoundException/.test(error.message)) throw error
      return tool('kafka.admin.ConfigCommand', ...args)
    })
  const [groups, offsets, topicConfigs, brokerConfigs, topics] = await Promise.all([
    tool('org.apache.kafka.tools.GroupsCommand', '--bootstrap-server', bs, '--list'),
    tool('org.apache.kafka.tools.GetOffsetShell', '--bootstrap-server', bs, '--topic', '__consumer_offsets'),
    configs('--bootstrap-server', bs, '--describe', '--entity-type', 'topics'),
    configs('--bootstrap-server', bs, '--describe', '--entity-type', 'brokers', '--entity-default'),
    tool('org.apache.kafka.tools.GetOffsetShell', '--bootstrap-server', bs, '--topic-partitions', '.*', '--exclude-internal-topics'),
  ])
  const sorted = (s: string) =>
    s
      .split('\n')
      .map(l => l.trimEnd())
      .filter(Boolean)
      .sort()
      .join('\n')
  return {
    groups: sorted(groups),
    consumerOffsetsEnd: sorted(offsets),
    topicConfigs: sorted(topicConfigs),
    brokerConfigs: sorted(brokerConfigs),
    topicPartitions: sorted(topics),
  }
}
