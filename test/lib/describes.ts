/** Describe answers as the fake cluster gives them (ConsumerGroupDescribe's member shape), for the describe-only tests. */
import {T1} from './records.js'

/** Partitions of topic `orders` (T1), as a describe names them. */
const tps = (...partitions: number[]) => [{topicId: T1, topicName: 'orders', partitions}]

/** A KIP-848 consumer member with its assignment and target (partitions of `orders`), subscribed to `topics`. */
export const describedMember = (memberId: string, memberEpoch: number, assignment: number[], target: number[], topics = ['orders']) => ({
  memberId,
  instanceId: null,
  rackId: null,
  memberEpoch,
  clientId: `c-${memberId}`,
  clientHost: '/10.0.0.7',
  subscribedTopicNames: topics,
  subscribedTopicRegex: null,
  assignment: tps(...assignment),
  targetAssignment: tps(...target),
  memberType: 1,
})
