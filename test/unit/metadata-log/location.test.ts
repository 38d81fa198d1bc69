/** Where the metadata log is (core/metadata-log/location.ts) and `cluster metadata-log` through a fake cluster. */
import {describe, expect, it} from 'vitest'
import {metadataLogLocation} from '../../../src/core/metadata-log/location.js'
import {decodeBody} from '../../../src/kafka/protocol.js'
import {DescribeConfigsRequest} from '../../../src/kafka/messages/requests.js'
import {encodeDescribeBrokerConfigs} from '../../../src/kafka/broker-configs.js'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {cluster} from '../../lib/fixtures.js'
import {run} from '../helpers.js'

const at = (o: Record<string, string | null>) => metadataLogLocation(new Map(Object.entries(o)))

describe('metadataLogLocation: as KafkaConfig.metadataLogDir decides', () => {
  it('metadata.log.dir first, else the first of log.dirs, else log.dir; __cluster_metadata-0 in it', () => {
    expect(at({'metadata.log.dir': '/var/kafka/meta', 'log.dirs': '/d1,/d2', 'log.dir': '/tmp/kafka-logs'})).toEqual({
      dir: '/var/kafka/meta',
      path: '/var/kafka/meta/__cluster_metadata-0',
      source: 'metadata.log.dir',
    })
    expect(at({'metadata.log.dir': null, 'log.dirs': ' /d1/ , /d2', 'log.dir': '/tmp/kafka-logs'})).toEqual({
      dir: '/d1/',
      path: '/d1/__cluster_metadata-0',
      source: 'log.dirs',
    })
    expect(at({'metadata.log.dir': null, 'log.dirs': null, 'log.dir': '/tmp/kafka-logs'})).toMatchObject({
      path: '/tmp/kafka-logs/__cluster_metadata-0',
      source: 'log.dir',
    })
    expect(at({})).toEqual({dir: null, path: null, source: null})
  })

  it('DescribeConfigs asks for the broker itself (resource type 4, its id) and only the keys given, no synonyms', () => {
    expect(decodeBody(DescribeConfigsRequest, 4, encodeDescribeBrokerConfigs(3, ['metadata.log.dir', 'log.dirs']))).toEqual({
      Resources: [{ResourceType: 4, ResourceName: '3', ConfigurationKeys: ['metadata.log.dir', 'log.dirs']}],
      IncludeSynonyms: false,
      IncludeDocumentation: false,
    })
  })
})

describe('cluster metadata-log through a fake cluster', () => {
  const fake = () => {
    const f = new FakeCluster(cluster())
    f.brokerConfigsById.set(1, {'metadata.log.dir': '/srv/meta', 'log.dirs': '/srv/d1', 'log.dir': '/tmp/kafka-logs'})
    f.brokerConfigsById.set(2, {'metadata.log.dir': null, 'log.dirs': '/srv/d2,/srv/d3', 'log.dir': '/tmp/kafka-logs'})
    f.brokerConfigsById.set(3, 'CLUSTER_AUTHORIZATION_FAILED')
    return f
  }

  it('--json: each broker with its path and where it came from; a broker that refused is an entry with its error and a warning', async () => {
    const r = await run(['cluster:metadata-log', '-b', 'fake:9092', '--json'], fake())
    expect(r.exitCode, r.stderr).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.schema).toEqual({name: 'rebalance-doctor/cluster-metadata-log', version: 1})
    expect(doc.nodes).toEqual([
      {nodeId: 1, host: 'broker-1', port: 9092, dir: '/srv/meta', path: '/srv/meta/__cluster_metadata-0', source: 'metadata.log.dir', error: null},
      {nodeId: 2, host: 'broker-2', port: 9092, dir: '/srv/d2', path: '/srv/d2/__cluster_metadata-0', source: 'log.dirs', error: null},
      {nodeId: 3, host: 'broker-3', port: 9092, dir: null, path: null, source: null, error: 'CLUSTER_AUTHORIZATION_FAILED'},
    ])
    expect(JSON.stringify(doc.warnings)).toContain('broker 3 (broker-3:9092): its configs could not be read: CLUSTER_AUTHORIZATION_FAILED')
  })

  it('the table names the directory to give --metadata-log; no broker answering is exit 1 with what to do', async () => {
    const table = await run(['cluster:metadata-log', '-b', 'fake:9092'], fake())
    expect(table.stdout).toMatch(/│ +1 │ broker-1:9092 │ \/srv\/meta\/__cluster_metadata-0 +│ metadata\.log\.dir │/)
    const none = fake()
    for (const id of [1, 2, 3]) none.brokerConfigsById.set(id, 'CLUSTER_AUTHORIZATION_FAILED')
    const failed = await run(['cluster:metadata-log', '-b', 'fake:9092'], none)
    expect(failed.exitCode).toBe(1)
    expect(failed.error?.message).toContain("no broker's configs could be read: broker 1: CLUSTER_AUTHORIZATION_FAILED")
  })
})
