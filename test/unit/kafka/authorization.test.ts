/**
 * Every authorization refusal names the request, the resource, the operation Kafka's authorizer checks for that
 * request, and the kafka-acls line that grants it. In-process: the Kafka client (and commands) against a server
 * that speaks Kafka and refuses one request with the code Kafka's handler answers (test/lib/hostile-broker.ts
 * 'denied'), so each error code travels the real wire and decoders.
 */
import {afterEach, describe, expect, it} from 'vitest'
import {resolveConnectionSettings} from '../../../src/config/client-config.js'
import {AuthorizationDenied, type Denial, RdError} from '../../../src/core/errors.js'
import {denialOf, principalOf} from '../../../src/kafka/authorization.js'
import {KafkaClient} from '../../../src/kafka/client.js'
import {scanOffsets} from '../../../src/sources/audit-scan.js'
import {inFlightReassignments} from '../../../src/sources/reassignments.js'
import {offsetsReadDenied, readGroupLog} from '../../../src/sources/group-log.js'
import {type HostileBroker, startHostileKafka} from '../../lib/hostile-broker.js'
import {run} from '../helpers.js'

const API = {
  Fetch: 1,
  ListOffsets: 2,
  Metadata: 3,
  OffsetFetch: 9,
  FindCoordinator: 10,
  DescribeGroups: 15,
  ListGroups: 16,
  DescribeConfigs: 32,
  ListPartitionReassignments: 46,
  DescribeCluster: 60,
  ConsumerGroupDescribe: 69,
  ShareGroupDescribe: 77,
  StreamsGroupDescribe: 89,
}

let broker: HostileBroker | undefined
afterEach(async () => {
  await broker?.stop()
  broker = undefined
})

/** A client of a broker that refuses `apiKey` with `code`. */
async function refusing(apiKey: number, code: number): Promise<KafkaClient> {
  broker = await startHostileKafka('denied', 30_000, {deny: {apiKey, code}})
  return KafkaClient.open(resolveConnectionSettings({bootstrapServer: broker.address, timeoutMs: 10_000, env: {}}))
}

async function refusal(apiKey: number, code: number, work: (c: KafkaClient) => Promise<unknown>): Promise<AuthorizationDenied> {
  const client = await refusing(apiKey, code)
  try {
    const error = await work(client).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(AuthorizationDenied)
    return error as AuthorizationDenied
  } finally {
    await client.close()
  }
}

async function answer<T>(apiKey: number, code: number, work: (c: KafkaClient) => Promise<T>): Promise<T> {
  const client = await refusing(apiKey, code)
  try {
    return await work(client)
  } finally {
    await client.close()
  }
}

const grant = (rest: string) => `kafka-acls --bootstrap-server ${broker!.address} --add --allow-principal User:<you> --operation ${rest}`

describe('a refused request the tool cannot do without: AuthorizationDenied naming request, resource, operation and grant', () => {
  it('Fetch of __consumer_offsets: READ on the topic (not DESCRIBE), and offsetsReadDenied recognises it', async () => {
    const e = await refusal(API.Fetch, 29, c => c.readPartition({partition: 0}))
    expect(e.message).toBe('reading __consumer_offsets needs READ on topic __consumer_offsets (Fetch refused: TOPIC_AUTHORIZATION_FAILED)')
    expect(e.hint).toBe(`Grant it (as a Kafka admin): ${grant('Read --topic __consumer_offsets')}`)
    expect(e.code).toBe('NOT_AUTHORIZED')
    expect(e.exitCode).toBe(1)
    expect([e.request, e.resourceType, e.resourceName, e.operation, e.errorName]).toEqual([
      'Fetch',
      'topic',
      '__consumer_offsets',
      'READ',
      'TOPIC_AUTHORIZATION_FAILED',
    ])
    expect(offsetsReadDenied(e)).toBe(true)
  })

  it("the sources that read __consumer_offsets (a group's log, the audit's scan) surface it as it is, for an operation to catch", async () => {
    for (const read of [(c: KafkaClient) => readGroupLog(c, 'g1'), (c: KafkaClient) => scanOffsets(c)]) {
      const e = await refusal(API.Fetch, 29, read)
      expect(offsetsReadDenied(e)).toBe(true)
      await broker!.stop()
    }
  })

  it('ListOffsets: DESCRIBE on the topic; not a READ refusal', async () => {
    const e = await refusal(API.ListOffsets, 29, c => c.readPartition({partition: 0}))
    expect(e.message).toBe(
      'reading the offsets of __consumer_offsets-0 needs DESCRIBE on topic __consumer_offsets (ListOffsets refused: TOPIC_AUTHORIZATION_FAILED)',
    )
    expect(e.grant).toBe(grant('Describe --topic __consumer_offsets'))
    expect(offsetsReadDenied(e)).toBe(false)
  })

  it('Metadata of a named topic: DESCRIBE on that topic', async () => {
    const e = await refusal(API.Metadata, 29, c => c.topics({topics: ['orders']}))
    expect(e.message).toBe('describing topic orders needs DESCRIBE on topic orders (Metadata refused: TOPIC_AUTHORIZATION_FAILED)')
    expect(e.denial).toMatchObject({request: 'Metadata', resourceType: 'topic', resourceName: 'orders', operation: 'DESCRIBE'})
    expect(e.grant).toBe(grant('Describe --topic orders'))
  })

  it('FindCoordinator of a group: DESCRIBE on the group', async () => {
    const e = await refusal(API.FindCoordinator, 30, c => c.groupCoordinators(['g1']))
    expect(e.message).toBe('finding the coordinator of group g1 needs DESCRIBE on group g1 (FindCoordinator refused: GROUP_AUTHORIZATION_FAILED)')
    expect(e.grant).toBe(grant('Describe --group g1'))
  })

  it('ListGroups (refused by a broker that checks the cluster; Kafka itself filters instead): DESCRIBE on the cluster', async () => {
    const e = await refusal(API.ListGroups, 31, c => c.listGroups())
    expect(e.message).toBe('listing the groups at broker 1 needs DESCRIBE on the cluster (ListGroups refused: CLUSTER_AUTHORIZATION_FAILED)')
    expect(e.resourceName).toBeNull()
    expect(e.grant).toBe(grant('Describe --cluster'))
  })

  it('DescribeCluster and ListPartitionReassignments: DESCRIBE on the cluster', async () => {
    const cluster = await refusal(API.DescribeCluster, 31, c => c.clusterMetadata())
    expect(cluster.message).toBe('listing the brokers needs DESCRIBE on the cluster (DescribeCluster refused: CLUSTER_AUTHORIZATION_FAILED)')
    await broker!.stop()
    const moves = await refusal(API.ListPartitionReassignments, 31, c => c.listPartitionReassignments())
    expect(moves.message).toBe(
      'listing the partition reassignments in flight needs DESCRIBE on the cluster (ListPartitionReassignments refused: CLUSTER_AUTHORIZATION_FAILED)',
    )
  })
})

describe('a refusal per group or per broker (the answer goes on): the entry carries `denied`', () => {
  it('reassignments in flight refused (explain, audit): a warning naming DESCRIBE on the cluster and the grant, not a failure', async () => {
    const warnings: string[] = []
    const client = await refusing(API.ListPartitionReassignments, 31)
    try {
      expect(await inFlightReassignments(client, w => warnings.push(w))).toEqual([])
    } finally {
      await client.close()
    }
    expect(warnings).toEqual([
      `partition reassignments in flight not read (listing the partition reassignments in flight needs DESCRIBE on the cluster (ListPartitionReassignments refused: CLUSTER_AUTHORIZATION_FAILED)): REASSIGNMENT_IN_FLIGHT cannot be reported; grant: ${grant('Describe --cluster')}`,
    ])
  })

  const groupDenial = (request: string): Partial<Denial> => ({
    request,
    resourceType: 'group',
    resourceName: 'g1',
    operation: 'DESCRIBE',
    errorName: 'GROUP_AUTHORIZATION_FAILED',
    principal: null,
  })

  it('OffsetFetch: DESCRIBE on the group', async () => {
    const [g] = await answer(API.OffsetFetch, 30, c => c.committedOffsets(['g1']))
    expect(g.errorName).toBe('GROUP_AUTHORIZATION_FAILED')
    expect(g.denied).toMatchObject(groupDenial('OffsetFetch'))
    expect(g.denied?.grant).toBe(grant('Describe --group g1'))
  })

  it('ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe, DescribeGroups: DESCRIBE on the group', async () => {
    const cases: Array<[number, string, (c: KafkaClient) => Promise<Array<{denied?: Denial; errorName: string}>>]> = [
      [API.ConsumerGroupDescribe, 'ConsumerGroupDescribe', c => c.describeConsumerGroups(['g1'])],
      [API.ShareGroupDescribe, 'ShareGroupDescribe', c => c.describeShareGroups(['g1'])],
      [API.StreamsGroupDescribe, 'StreamsGroupDescribe', c => c.describeStreamsGroups(['g1'])],
      [API.DescribeGroups, 'DescribeGroups', c => c.describeClassicGroups(['g1'])],
    ]
    for (const [apiKey, request, describeIt] of cases) {
      const [g] = await answer(apiKey, 30, describeIt)
      expect(g.denied, request).toMatchObject(groupDenial(request))
      expect(new AuthorizationDenied(g.denied!, 'describing group g1').message).toBe(
        `describing group g1 needs DESCRIBE on group g1 (${request} refused: GROUP_AUTHORIZATION_FAILED)`,
      )
      await broker!.stop()
    }
  })

  it("a describe whose FindCoordinator is refused: that group's entry names FindCoordinator and DESCRIBE on it, as Kafka's admin client fails that group alone", async () => {
    const cases: Array<(c: KafkaClient) => Promise<Array<{denied?: Denial; errorName: string; members: unknown[]}>>> = [
      c => c.describeConsumerGroups(['g1']),
      c => c.describeShareGroups(['g1']),
      c => c.describeStreamsGroups(['g1']),
      c => c.describeClassicGroups(['g1']),
    ]
    for (const describeIt of cases) {
      const [g] = await answer(API.FindCoordinator, 30, describeIt)
      expect(g).toMatchObject({errorName: 'GROUP_AUTHORIZATION_FAILED', members: []})
      expect(g.denied).toMatchObject(groupDenial('FindCoordinator'))
      expect(new AuthorizationDenied(g.denied!, 'describing group g1').message).toBe(
        'describing group g1 needs DESCRIBE on group g1 (FindCoordinator refused: GROUP_AUTHORIZATION_FAILED)',
      )
      await broker!.stop()
    }
    const [offsets] = await answer(API.FindCoordinator, 30, c => c.committedOffsets(['g1']))
    expect(offsets.denied).toMatchObject(groupDenial('FindCoordinator'))
  })

  it('ConsumerGroupDescribe answering TOPIC_AUTHORIZATION_FAILED: DESCRIBE on topics the answer does not name', async () => {
    const [g] = await answer(API.ConsumerGroupDescribe, 29, c => c.describeConsumerGroups(['g1']))
    expect(g.denied).toMatchObject({request: 'ConsumerGroupDescribe', resourceType: 'topic', resourceName: null, operation: 'DESCRIBE'})
    expect(g.denied?.grant).toBe(grant('Describe --topic NAME'))
    expect(new AuthorizationDenied(g.denied!, 'describing group g1').message).toBe(
      'describing group g1 needs DESCRIBE on the topics the answer does not name (ConsumerGroupDescribe refused: TOPIC_AUTHORIZATION_FAILED)',
    )
  })

  it("DescribeConfigs of a broker's configs: DESCRIBE_CONFIGS on the cluster, said in the broker's error", async () => {
    const [b] = await answer(API.DescribeConfigs, 31, c => c.brokerConfigs(['log.dirs']))
    expect(b.error).toBe('CLUSTER_AUTHORIZATION_FAILED: DescribeConfigs needs DESCRIBE_CONFIGS on the cluster')
    expect(b.denied).toMatchObject({request: 'DescribeConfigs', resourceType: 'cluster', resourceName: null, operation: 'DESCRIBE_CONFIGS'})
    expect(b.denied?.grant).toBe(grant('DescribeConfigs --cluster'))
  })

  it('ListOffsets of many partitions (lag): the refused partition keeps its error name and carries what ListOffsets needs', async () => {
    const [p] = await answer(API.ListOffsets, 29, c => c.listOffsets([{topic: 'orders', partition: 0}]))
    expect(p).toMatchObject({topic: 'orders', partition: 0, offset: null, error: 'TOPIC_AUTHORIZATION_FAILED'})
    expect(p.denied).toMatchObject({request: 'ListOffsets', resourceType: 'topic', resourceName: 'orders', operation: 'DESCRIBE'})
    expect(p.denied?.grant).toBe(grant('Describe --topic orders'))
  })
})

describe('the principal and the grant', () => {
  it("a SASL PLAIN or SCRAM user is Kafka's default principal User:<name>; OAUTHBEARER and TLS are not known", () => {
    const sasl = (mechanism: string, username?: string) => ({sasl: {mechanism, username}}) as never
    expect(principalOf(sasl('SCRAM-SHA-512', 'alice'))).toBe('User:alice')
    expect(principalOf(sasl('PLAIN', 'bob'))).toBe('User:bob')
    expect(principalOf(sasl('OAUTHBEARER'))).toBeNull()
    expect(principalOf({} as never)).toBeNull()
  })

  it('the grant names the principal and quotes names the shell would split; never a wildcard', () => {
    const d = denialOf(30, {request: 'OffsetFetch', resourceName: "team a's group", principal: 'User:alice', bootstrap: 'kafka-1:9092'})!
    expect(d.grant).toBe("kafka-acls --bootstrap-server kafka-1:9092 --add --allow-principal User:alice --operation Describe --group 'team a'\\''s group'")
    expect(denialOf(53, {request: 'FindCoordinator', resourceName: 'tx-1'})?.grant).toBe(
      'kafka-acls --bootstrap-server <bootstrap-server> --add --allow-principal User:<you> --operation Describe --transactional-id tx-1',
    )
    expect(denialOf(3, {request: 'Fetch', resourceName: 'orders'})).toBeUndefined()
  })
})

describe('the --json error document', () => {
  it('group records without READ on __consumer_offsets: exit 1, error.authorization with request, resource, operation and grant', async () => {
    broker = await startHostileKafka('denied', 30_000, {deny: {apiKey: API.Fetch, code: 29}})
    const r = await run(['group', 'records', 'g1', '-b', broker.address, '--json'])
    expect(r.exitCode).toBe(1)
    const doc = JSON.parse(r.stdout)
    expect(doc.error).toEqual({
      code: 'NOT_AUTHORIZED',
      message: 'reading __consumer_offsets needs READ on topic __consumer_offsets (Fetch refused: TOPIC_AUTHORIZATION_FAILED)',
      hint: `Grant it (as a Kafka admin): ${grant('Read --topic __consumer_offsets')}`,
      exitCode: 1,
      authorization: {
        request: 'Fetch',
        resourceType: 'topic',
        resourceName: '__consumer_offsets',
        operation: 'READ',
        errorName: 'TOPIC_AUTHORIZATION_FAILED',
        principal: null,
        grant: grant('Read --topic __consumer_offsets'),
      },
    })
  })

  it('group list with a describe refused: the group is still listed, a warning names DESCRIBE on it and the grant', async () => {
    broker = await startHostileKafka('denied', 30_000, {deny: {apiKey: API.ConsumerGroupDescribe, code: 30}})
    const r = await run(['group', 'list', '-b', broker.address, '--json'])
    expect(r.exitCode, r.error?.message).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.groups.map((g: {group: string; describeError: string}) => [g.group, g.describeError])).toEqual([['g1', 'GROUP_AUTHORIZATION_FAILED']])
    expect(doc.warnings).toEqual([
      `ConsumerGroupDescribe refused (GROUP_AUTHORIZATION_FAILED): it needs DESCRIBE on group g1; grant: ${grant('Describe --group g1')}`,
    ])
  })

  it('other errors keep their document: no authorization field', async () => {
    const e = new RdError('x', 'RUNTIME', 1)
    expect(e.fields).toBeUndefined()
  })
})
