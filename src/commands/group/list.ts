import {colorFlags, outputFlags, terminalWidth} from '../../cli/output-flags.js'
import * as Flags from '@oclif/core/flags'
import {EXIT} from '../../cli/base-command.js'
import {LiveCommand} from '../../cli/live-command.js'
import {SCHEMAS} from '../../core/documents.js'
import {groupPatternFlag, groupTypesFlag} from '../../cli/flag-types.js'
import type {GroupListRows} from '../../core/group-list.js'
import {denialWarnings} from '../../core/errors.js'
import type {GroupType} from '../../core/replay/state.js'
import {renderGroupList} from '../../render/group-list.js'
import {readGroupList} from '../../sources/group-list.js'

export interface GroupListDocument {
  /** Written as an array of GroupListEntry. */
  groups: GroupListRows
}

export default class GroupList extends LiveCommand<typeof GroupList> {
  static override schema = SCHEMAS.groupList
  static override summary = 'Every group with type, state, epochs, members and coordinator.'
  static override description = `ListGroups on every broker (all types: classic, consumer, share, streams), then each consumer, share and
streams group's own describe at its coordinator (ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe)
for the group epoch, the assignment epoch and the member count, DescribeGroups for each classic group's state and
member count, and FindCoordinator for where it lives. Read-only: no group is joined. Classic groups have no group
epoch (their generation is in their records: group explain).

--json prints {schema, groups: [{group, type, protocolType, state, groupEpoch, assignmentEpoch, members, coordinator,
partition, describeError?}], warnings} (null where not known). Exit 4 when --group/--type/--state match no group.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> -b localhost:9092',
    '<%= config.bin %> <%= command.id %> -b kafka:9092 --state Stable --group "orders-*"',
  ]

  static override flags = {
    ...colorFlags,
    ...outputFlags(),
    type: groupTypesFlag({summary: 'Only these group types: consumer, share, streams, classic (comma list).', helpValue: 'TYPES'}),
    state: Flags.string({
      summary: 'Only groups in these states (comma list, case-insensitive: Stable, Empty, Assigning, Reconciling, Dead, …).',
      helpValue: 'STATES',
    }),
    group: groupPatternFlag({summary: 'Only group ids matching this glob (orders-*) or /regex/flags.', helpValue: 'PATTERN'}),
  }

  async run(): Promise<GroupListDocument> {
    const {flags} = this
    const types = flags.type
    const match = flags.group?.accept ?? (() => true)
    const states = flags.state
      ? new Set(
          flags.state
            .split(',')
            .map(s => s.trim().toLowerCase())
            .filter(Boolean),
        )
      : undefined

    const shown = await this.withCluster(async client => {
      const read = await readGroupList(
        client,
        g => match(g.groupId) && (!types || types.has(g.type as GroupType)),
        g => !states || states.has(g.state.toLowerCase()),
      )
      // a group listed but not described keeps its listed state; say what would describe it
      for (const w of denialWarnings(read.denials)) this.warn(w)
      return read.entries
    })
    if (!this.jsonEnabled()) this.log(renderGroupList(shown, terminalWidth()))
    if (shown.length === 0 && (flags.group !== undefined || flags.type !== undefined || flags.state !== undefined)) {
      this.note('no group matches the filters. Try this: drop --group/--type/--state to list every group.')
      this.exitWith(EXIT.notFound)
    }
    return {groups: shown}
  }
}
