/**
 * A long-lived JVM running kafka-it/java/ItDriver.java (Kafka's own Admin, KIP-848 consumer, share consumer and
 * Kafka Streams clients), driven over its line protocol: one command line in, one `@@ {json}` reply line out.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {createWriteStream, unlinkSync, writeFileSync, mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {createInterface} from 'node:readline'
import type {ClusterEnv} from './cluster.js'

export interface DriverReply {
  ok: boolean
  error?: string
  [k: string]: unknown
}

export class Driver {
  private readonly proc: ChildProcess
  private readonly waiting: Array<(line: string) => void> = []
  private readonly pidFile: string
  private chain: Promise<unknown> = Promise.resolve()
  private exited = false

  private constructor(
    readonly env: ClusterEnv,
    name: string,
  ) {
    const logDir = join(env.runDir, 'drivers')
    mkdirSync(logDir, {recursive: true})
    this.proc = spawn(
      'java',
      [
        '-Xms64m',
        '-Xmx512m',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        `-Dlog4j2.configurationFile=${join(env.itDir, 'config', 'tools-log4j2.properties')}`,
        `-Dkafka.it.run.dir=${env.runDir}`,
        '-cp',
        `${env.driverClasses}:${env.libs}/*`,
        'ItDriver',
        env.bootstrap,
      ],
      {stdio: ['pipe', 'pipe', 'pipe']},
    )
    // registered so that `cluster.sh stop` kills it too if the test process dies
    this.pidFile = join(env.runDir, 'pids', `driver-${name}-${this.proc.pid}.pid`)
    writeFileSync(this.pidFile, `${this.proc.pid}\n`)
    this.proc.stderr!.pipe(createWriteStream(join(logDir, `${name}-${this.proc.pid}.err`)))
    createInterface({input: this.proc.stdout!}).on('line', line => {
      if (!line.startsWith('@@ ')) return
      const w = this.waiting.shift()
      if (w) w(line.slice(3))
    })
    this.proc.on('exit', () => {
      this.exited = true
      for (const w of this.waiting.splice(0)) w(JSON.stringify({ok: false, error: 'driver JVM exited'}))
    })
  }

  /** Starts a driver JVM and waits for its ready line. */
  static async start(env: ClusterEnv, name = 'it'): Promise<Driver> {
    const d = new Driver(env, name)
    const ready = await d.next(60_000)
    if (!ready.ok) throw new Error(`driver did not start: ${ready.error}`)
    return d
  }

  private next(timeoutMs: number): Promise<DriverReply> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`driver: no reply within ${timeoutMs} ms`)), timeoutMs)
      this.waiting.push(line => {
        clearTimeout(timer)
        resolve(JSON.parse(line) as DriverReply)
      })
    })
  }

  /** Sends one command; resolves with the reply, rejects on {ok:false}. Commands run one at a time. */
  cmd(line: string, timeoutMs = 120_000): Promise<DriverReply> {
    const p = this.chain.then(async () => {
      if (this.exited) throw new Error('driver JVM has exited')
      const reply = this.next(timeoutMs)
      this.proc.stdin!.write(`${line}\n`)
      const r = await reply
      if (!r.ok) throw new Error(`driver: ${line}: ${r.error}`)
      return r
    })
    this.chain = p.catch(() => undefined)
    return p
  }

  async close(): Promise<void> {
    if (!this.exited) {
      try {
        await this.cmd('quit', 60_000)
      } catch {
        // quit replies "bye"; an exited JVM is fine too
      }
      await new Promise<void>(resolve => {
        if (this.exited) return resolve()
        const t = setTimeout(() => {
          this.proc.kill('SIGKILL')
          resolve()
        }, 30_000)
        this.proc.on('exit', () => {
          clearTimeout(t)
          resolve()
        })
      })
    }
    try {
      unlinkSync(this.pidFile)
    } catch {
      // already gone (cluster stopped)
    }
  }
}
