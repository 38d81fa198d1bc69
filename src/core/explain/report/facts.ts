/**
 * What the group's records say of it now, without live metadata: its type, epochs, rules, stored hash, members and
 * the findings true whatever the metadata says (records skipped, assignment pending, members reconciling), or the
 * verdict itself when the records settle it (not found, deleted, classic). Pure.
 */
import {
  type EpochMark,
  type GroupRules,
  type GroupState,
  type GroupSummary,
  type GroupType,
  groupTypeOf,
  type ReplayResult,
  rulesOf,
} from '../../replay/index.js'
import {isoTime} from '../../time.js'
import {classicMembers, liveTopicIds} from './classic.js'
import {type DescribedGroup, describedMembers} from './described.js'
import {downgradeReadiness, migrationReadiness} from './migration.js'
import {topicNamesById} from './members.js'
import {memberName, membersOf} from './member-status.js'
import {DEFAULT_STUCK_AFTER_MS, type ExplainOptions, type ExplainReport, type Finding, type MemberStatus, stuckAfterOf, type Verdict} from './report.js'

type ModernType = 'consumer' | 'share' | 'streams'
type ModernGroup = NonNullable<GroupState[ModernType]> & {epoch: number}

/** The report's fields the records give (verdict, timeline and live fields excepted). */
export type FactFields = Omit<ExplainReport, 'verdict' | 'timeline' | 'liveMetadataHash' | 'inSync' | 'topics'>

export interface GroupFacts {
  fields: FactFields
  /** Set when the records alone decide the verdict. */
  settled?: Verdict
  /** A live KIP-848 group: its section of the state, type and rules. */
  modern?: {type: ModernType; g: ModernGroup; rules: GroupRules | null; assignmentPending: boolean}
}

export function groupFacts(groupId: string, replay: ReplayResult | GroupSummary, options: ExplainOptions): GroupFacts {
  const {state} = replay
  const marks: readonly EpochMark[] = 'timeline' in replay ? replay.timeline : replay.recent
  // a group whose records were all tombstoned (deleted once empty and without offsets) keeps its history
  const type = groupTypeOf(state) ?? marks.at(-1)?.groupType ?? null
  const skippedRecords = replay.skipped.map(s => ({offset: s.offset.toString(), type: s.type, version: s.version ?? null, reason: s.reason}))
  const fields: FactFields = {
    group: groupId,
    type,
    groupEpoch: null,
    assignmentEpoch: null,
    storedMetadataHash: null,
    rules: null,
    findings: [],
    members: [],
    skippedRecords,
    stuckAfter: stuckAfterOf(options.stuckAfterMs, state, type),
  }
  if (skippedRecords.length > 0)
    fields.findings.push({
      code: 'UNKNOWN_RECORDS',
      message: `${skippedRecords.length} record(s) of unknown types or newer versions were skipped`,
      details: {records: skippedRecords},
    })
  if (type === null) return {fields, settled: notFound(groupId)}
  const lastEpoch = marks.findLast(e => e.groupType === type)?.epoch ?? null
  if (type === 'classic') return classicFacts(fields, state, lastEpoch, options)
  const section = state[type]
  if (!section || section.epoch === undefined) {
    fields.assignmentEpoch = section?.targetAssignmentEpoch ?? null
    return {fields, settled: deleted(type, lastEpoch)}
  }
  return modernFacts(fields, type, section as ModernGroup, replay, marks, options)
}

function modernFacts(
  fields: FactFields,
  type: ModernType,
  g: ModernGroup,
  replay: ReplayResult | GroupSummary,
  marks: readonly EpochMark[],
  options: ExplainOptions,
): GroupFacts {
  const rules = rulesOf(type, replay.state)
  fields.groupEpoch = g.epoch
  fields.assignmentEpoch = g.targetAssignmentEpoch ?? null
  fields.rules = rules
  // a 4.0 coordinator keeps no hash: the absent field's 0 is not a hash
  fields.storedMetadataHash = rules === '4.0' ? null : g.metadataHash.toString()
  fields.members = membersOf(type, replay.state, marks, topicNamesById(options.live))
  if (type === 'consumer') {
    const down = downgradeReadiness((g.members as Map<string, {ClassicMemberMetadata?: unknown}>).values())
    if (down) fields.downgrade = down
  }
  // An empty group has nothing to assign: up to 4.3.1 the coordinator leaves the assignment epoch behind when it
  // fences the last member (KAFKA-20442, fixed in 4.3.2 and 4.4.0 by a target-assignment record in that write).
  const assignmentPending = g.targetAssignmentEpoch !== undefined && g.targetAssignmentEpoch < g.epoch && g.members.size > 0
  if (assignmentPending) fields.findings.push(assignmentPendingFinding(g, type, marks))
  fields.findings.push(...reconcilingFindings(fields, options.now ?? Date.now()))
  return {fields, modern: {type, g, rules, assignmentPending}}
}

function assignmentPendingFinding(g: ModernGroup, type: ModernType, marks: readonly EpochMark[]): Finding {
  const since = marks.find(e => e.groupType === type && e.epoch > (g.targetAssignmentEpoch ?? 0))
  return {
    code: 'ASSIGNMENT_PENDING',
    message: `the target assignment is at epoch ${g.targetAssignmentEpoch}, behind group epoch ${g.epoch}${since ? ` since ${isoTime(since.timestamp)}` : ''}: the coordinator has not computed the new assignment yet`,
    details: {groupEpoch: g.epoch, assignmentEpoch: g.targetAssignmentEpoch, since: since ? isoTime(since.timestamp) : null},
  }
}

function reconcilingFindings(fields: FactFields, now: number): Finding[] {
  return fields.members
    .filter(m => m.reconciling)
    .map(m => {
      const stuck = m.reconcilingSince !== null && now - Date.parse(m.reconcilingSince) > fields.stuckAfter.ms
      return {
        code: 'MEMBER_RECONCILING',
        message: `member ${memberName(m)} is ${stuck ? 'stuck ' : ''}reconciling: member epoch ${m.memberEpoch ?? '-'}, state ${m.state ?? '-'}${m.reconcilingSince ? `, since ${m.reconcilingSince}` : ''}`,
        details: {memberId: m.memberId, clientId: m.clientId, memberEpoch: m.memberEpoch, state: m.state, since: m.reconcilingSince, stuck},
      }
    })
}

/**
 * The describe's counterpart of groupFacts: what DESCRIBE on the group shows (`described` null: the group is not
 * listed). No stored metadata hash, no rules, no records skipped: those are in `__consumer_offsets`.
 */
export function describedFacts(groupId: string, described: DescribedGroup | null, options: ExplainOptions): GroupFacts {
  const given = options.stuckAfterMs
  const fields: FactFields = {
    group: groupId,
    type: described?.type ?? null,
    groupEpoch: described?.groupEpoch ?? null,
    assignmentEpoch: described?.assignmentEpoch ?? null,
    storedMetadataHash: null,
    rules: null,
    findings: [],
    members: described ? describedMembers(described) : [],
    skippedRecords: [],
    stuckAfter: {ms: given ?? DEFAULT_STUCK_AFTER_MS, source: given === undefined ? 'default' : 'flag', smallestRebalanceTimeoutMs: null},
  }
  if (!described)
    return {fields, settled: {code: 'NOT_FOUND', message: `no group ${groupId} is listed (ListGroups) or described: it does not exist`, pending: false}}
  if (described.type === 'classic')
    return {
      fields,
      settled: {
        code: 'CLASSIC_GROUP',
        message: `classic group, state ${described.state}: the classic protocol keeps no metadata hash; clients rejoin on metadata changes themselves`,
        pending: false,
      },
    }
  const {groupEpoch, assignmentEpoch} = described
  if (fields.members.length > 0 && groupEpoch !== null && assignmentEpoch !== null && assignmentEpoch < groupEpoch)
    fields.findings.push({
      code: 'ASSIGNMENT_PENDING',
      message: `the target assignment is at epoch ${assignmentEpoch}, behind group epoch ${groupEpoch}: the coordinator has not computed the new assignment yet (since when needs the records or a watch)`,
      details: {groupEpoch, assignmentEpoch, since: null},
    })
  fields.findings.push(...fields.members.filter(m => m.reconciling).map(m => describedReconciling(m, assignmentEpoch)))
  return {fields}
}

/** A member reconciling, from the describe: on what it waits; not since when, so never "stuck". */
function describedReconciling(m: MemberStatus, assignmentEpoch: number | null): Finding {
  const p = m.partitions
  const on = [
    m.memberEpoch !== null && assignmentEpoch !== null && m.memberEpoch < assignmentEpoch
      ? `member epoch ${m.memberEpoch} behind assignment epoch ${assignmentEpoch}`
      : '',
    p && p.pendingRevocation.length > 0 ? `to revoke ${partitionList(p.pendingRevocation)}` : '',
    p && p.pendingAssignment.length > 0 ? `to be assigned ${partitionList(p.pendingAssignment)}` : '',
    p && p.waitingOn.length > 0 ? `waiting on ${p.waitingOn.join(', ')} to revoke them` : '',
  ].filter(s => s !== '')
  return {
    code: 'MEMBER_RECONCILING',
    message: `member ${memberName(m)} is reconciling: ${on.length > 0 ? on.join('; ') : 'its tasks differ from its target tasks'}. The describe does not say since when: whether it is stuck needs the records (READ on __consumer_offsets) or a watch`,
    details: {memberId: m.memberId, clientId: m.clientId, memberEpoch: m.memberEpoch, state: null, since: null, stuck: false},
  }
}

const partitionList = (list: ReadonlyArray<{topic: string | null; partitions: number[]}>) =>
  list.map(tp => `${tp.topic ?? '?'}-[${tp.partitions.join(',')}]`).join(', ')

function classicFacts(fields: FactFields, state: GroupState, lastEpoch: number | null, options: ExplainOptions): GroupFacts {
  const v = state.classic?.value
  if (!v) return {fields, settled: deleted('classic', lastEpoch)}
  fields.groupEpoch = v.generation ?? null
  fields.members = classicMembers(v, liveTopicIds(options.live)).map(m => ({
    ...m,
    memberEpoch: null,
    state: null,
    subscribedTopicRegex: null,
    reconciling: false,
    reconcilingSince: null,
  }))
  fields.migration = migrationReadiness(v, options.live)
  return {
    fields,
    settled: {
      code: 'CLASSIC_GROUP',
      message: `classic group at generation ${v.generation ?? '-'}: the classic protocol keeps no metadata hash; clients rejoin on metadata changes themselves`,
      pending: false,
    },
  }
}

const notFound = (groupId: string): Verdict => ({
  code: 'NOT_FOUND',
  message: `no record of group ${groupId} in its __consumer_offsets partition: it does not exist, or its records were deleted`,
  pending: false,
})

const deleted = (type: string, last: number | null): Verdict => ({
  code: 'GROUP_DELETED',
  message: `the ${type} group was deleted: its records were tombstoned${last === null ? '' : ` after epoch ${last}`}. The coordinator deletes a group that is empty and has no committed offsets left (offsets retention), or on DeleteGroups; an online conversion to another group type tombstones the old type's records too`,
  pending: false,
})

/** The group's type and rules from its records (a deleted group keeps the type of its last bump, rules null). */
export function groupIdentity(replay: ReplayResult | GroupSummary): {type: GroupType | null; rules: GroupRules | null} {
  const marks: readonly EpochMark[] = 'timeline' in replay ? replay.timeline : replay.recent
  const type = groupTypeOf(replay.state) ?? marks.at(-1)?.groupType ?? null
  const live = type !== null && type !== 'classic' && replay.state[type]?.epoch !== undefined
  return {type, rules: live ? rulesOf(type, replay.state) : null}
}
