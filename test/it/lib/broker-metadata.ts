/**
 * Each live broker's own answer to Metadata v12 (@platformatic/kafka's encoder and Connection), asked at that broker.
 * Admin asks one broker of its choosing; a broker applies a metadata change when its own loader reaches it, and on a
 * loaded machine the group coordinator's broker was seen a heartbeat (~1 s) behind the one Admin asked. Test-only.
 */
import {createRequire} from 'node:module'
import {pathToFileURL} from 'node:url'

interface Connection {
  connect(host: string, port: number): Promise<void>
  close(): Promise<void>
}
interface MetadataResponse {
  brokers: Array<{nodeId: number; host: string; port: number}>
  topics: Array<{name: string | null; partitions: Array<{partitionIndex: number; replicaNodes: number[]; isrNodes: number[]}>}>
}
type MetadataApi = {async(c: Connection, topics: string[] | null): Promise<MetadataResponse>}

const lib = async <T>(rel: string): Promise<T> =>
  (await import(new URL(rel, pathToFileURL(createRequire(import.meta.url).resolve('@platformatic/kafka'))).href)) as T

async function ask(host: string, port: number, topics: string[] | null): Promise<MetadataResponse> {
  const {Connection} = await lib<{Connection: new (clientId: string) => Connection}>('./network/connection.js')
  const {api} = await lib<{api: MetadataApi}>('./apis/metadata/metadata-v12.js')
  const conn = new Connection('rd-it-broker-metadata')
  await conn.connect(host, port)
  try {
    return await api.async(conn, topics)
  } finally {
    await conn.close()
  }
}

/** Per live broker (as the first bootstrap broker lists them): the partition's replicas and ISR in its own metadata. */
export async function partitionOnEveryBroker(
  bootstrap: string,
  topic: string,
  partition: number,
): Promise<Array<{broker: number; replicas: number[]; isr: number[]} | {broker: number; missing: true}>> {
  const [host, port] = bootstrap.split(',')[0].split(':')
  const {brokers} = await ask(host, Number(port), [])
  return Promise.all(
    brokers.map(async b => {
      const p = (await ask(b.host, b.port, [topic])).topics.find(t => t.name === topic)?.partitions.find(x => x.partitionIndex === partition)
      return p ? {broker: b.nodeId, replicas: p.replicaNodes, isr: p.isrNodes} : {broker: b.nodeId, missing: true as const}
    }),
  )
}
