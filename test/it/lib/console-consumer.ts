/** Kafka's own console consumer, the classic-protocol member the classic-group tests start. */
import {type ChildProcess, spawn} from 'node:child_process'
import type {ClusterEnv} from './cluster.js'

export interface ConsoleConsumerOptions {
  readonly topic: string
  readonly group: string
  /** Each one a --consumer-property KEY=VALUE. */
  readonly props: Readonly<Record<string, string>>
  readonly fromBeginning?: boolean
  readonly heapMb?: number
}

/** org.apache.kafka.tools.consumer.ConsoleConsumer in a JVM of its own; it ends after 300 s without a message. */
export function consoleConsumer(env: ClusterEnv, o: ConsoleConsumerOptions): ChildProcess {
  const args = [
    `-Xmx${o.heapMb ?? 192}m`,
    '-cp',
    `${env.libs}/*`,
    'org.apache.kafka.tools.consumer.ConsoleConsumer',
    ...['--bootstrap-server', env.bootstrap, '--topic', o.topic, '--group', o.group],
    ...(o.fromBeginning ? ['--from-beginning'] : []),
    ...['--timeout-ms', '300000'],
    ...Object.entries(o.props).flatMap(([k, v]) => ['--consumer-property', `${k}=${v}`]),
  ]
  return spawn('java', args, {stdio: 'ignore'})
}
