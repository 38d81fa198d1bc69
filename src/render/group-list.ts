/** `group list` as a table: one row a group, in group id order. */
import type {GroupListEntry} from '../core/group-list.js'
import {renderTable} from './table.js'

const dash = (v: number | null) => (v === null ? '-' : v)

/** `width`: the terminal's columns (0: natural width), see renderTable. */
export function renderGroupList(groups: Iterable<GroupListEntry> & {readonly length: number}, width = 0): string {
  if (groups.length === 0) return 'no groups'
  const table = renderTable(
    ['group', 'type', 'state', 'group epoch', 'assignment epoch', 'members', 'coordinator', 'partition'],
    Array.from(groups, g => [
      g.group,
      g.type,
      g.describeError ? `${g.state} (${g.describeError})` : g.state,
      dash(g.groupEpoch),
      dash(g.assignmentEpoch),
      dash(g.members),
      dash(g.coordinator),
      g.partition,
    ]),
    ['left', 'left', 'left', 'right', 'right', 'right', 'right', 'right'],
    {width},
  )
  const byType = new Map<string, number>()
  for (const g of groups) byType.set(g.type, (byType.get(g.type) ?? 0) + 1)
  return `${table}\n${groups.length} group${groups.length === 1 ? '' : 's'} (${[...byType].map(([t, n]) => `${n} ${t}`).join(', ')})`
}
