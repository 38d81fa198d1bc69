/**
 * `group list`'s reads: ListGroups on every broker, then, in slices of the listing in group id order, one
 * FindCoordinator lookup per group whose answer the describes reuse (ConsumerGroupDescribe, ShareGroupDescribe,
 * StreamsGroupDescribe, DescribeGroups). What the coordinators answer of a million groups is never held at once,
 * only the rows made of it. Read-only: no group is joined.
 */
import type {Denial} from '../core/errors.js'
import {type DescribedGroupInput, type GroupListEntry, GroupListRows, groupListing, type ListedGroupInput} from '../core/group-list.js'
import {partitionForGroup} from '../core/records/partition.js'
import {limitHeapGrowth} from '../io/heap-growth.js'
import type {ClusterReader} from '../kafka/cluster-reader.js'
import {offsetsPartitionCount} from './offsets-topic.js'

/** Groups whose coordinators are found, then described, together (FindCoordinator takes 10,000 a request). */
export const LISTING_SLICE = 20_000

export interface GroupListRead {
  /** In group id order. */
  readonly entries: GroupListRows
  /** Why a describe was refused, per group refused. */
  readonly denials: Denial[]
}

/** What is left in the listing of a group whose row is made. */
const DONE: ListedGroupInput = {groupId: '', type: '', protocolType: '', state: ''}

/**
 * Every listed group that `accept` keeps, with what its coordinator says of it, in the rows if `keep` keeps them:
 * the rows held as columns (GroupListRows), each slice's listing let go once its rows are made.
 */
export async function readGroupList(
  client: ClusterReader,
  accept: (g: ListedGroupInput) => boolean,
  keep: (e: GroupListEntry) => boolean = () => true,
): Promise<GroupListRead> {
  // A short live set (the listing, then the rows: ~100 MB for 1.5M groups) beside a high rate of describes
  // decoded and dropped: V8's own growth let the heap reach ~4x the live set.
  limitHeapGrowth()
  const listed = (await client.listGroups()).filter(accept)
  const partitions = listed.length > 0 ? await offsetsPartitionCount(client) : 1
  const rows = new GroupListRows(listed.length)
  const denials: Denial[] = []
  for (let i = 0; i < listed.length; i += LISTING_SLICE) {
    const slice = await describeSlice(client, listed.slice(i, i + LISTING_SLICE), partitions)
    listed.fill(DONE, i, i + LISTING_SLICE)
    for (const e of slice.entries) if (keep(e)) rows.add(e)
    // (a loop: push(...) of a million denials would overflow the stack)
    for (const d of slice.denials) denials.push(d)
  }
  return {entries: rows, denials}
}

/** One FindCoordinator lookup for the slice's groups, its answer reused by the four describes. */
async function describeSlice(
  client: ClusterReader,
  listed: readonly ListedGroupInput[],
  partitions: number,
): Promise<{entries: GroupListEntry[]; denials: Denial[]}> {
  const ids = (type: string) => listed.filter(g => g.type === type).map(g => g.groupId)
  const coordinators = await client.groupCoordinators(listed.map(g => g.groupId))
  const answers = await Promise.all([
    client.describeConsumerGroups(ids('consumer'), coordinators),
    client.describeShareGroups(ids('share'), coordinators),
    client.describeStreamsGroups(ids('streams'), coordinators),
    client.describeClassicGroups(ids('classic'), coordinators),
  ])
  // (loops: no pair or array made per group described)
  const described = new Map<string, DescribedGroupInput>()
  const denials: Denial[] = []
  for (const answer of answers)
    for (const d of answer) {
      described.set(d.groupId, d)
      if (d.denied) denials.push(d.denied)
    }
  return {entries: groupListing(listed, described, coordinators, id => partitionForGroup(id, partitions)), denials}
}
