/** Tables for humans (cli-table3): plain borders, no colours, so output pastes well into tickets. */
import Table from 'cli-table3'

export function renderTable(head: string[], rows: Array<Array<string | number>>, align?: Array<'left' | 'right'>): string {
  const table = new Table({
    head,
    style: {head: [], border: [], compact: true},
    ...(align ? {colAligns: align} : {}),
    chars: {mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': ''},
  })
  for (const r of rows) table.push(r.map(String))
  return table.toString()
}
