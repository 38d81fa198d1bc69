/** Describe answers as the fake cluster gives them (ConsumerGroupDescribe's member shape), for the describe-only tests. */
import {T1} from './records.js'
import {denialOf} from '../../src/kafka/authorization.js'

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

/**
 * A listed group whose FindCoordinator the broker refused (GROUP_AUTHORIZATION_FAILED), as the client answers it:
 * nothing described, the refusal in `denied`.
 */
export const refusedDescribe = (groupId: string) => ({
  groupId,
  state: '',
  groupEpoch: -1,
  assignmentEpoch: -1,
  assignorName: '',
  members: [],
  errorCode: 30,
  errorName: 'GROUP_AUTHORIZATION_FAILED',
  denied: denialOf(30, {request: 'FindCoordinator', resourceName: groupId}),
})
