/**
 * Tables for humans (cli-table3): plain borders, no colours, so output pastes well into tickets. Every cell is
 * terminal-safe (control characters escaped, see terminal.ts) before its width is measured.
 */
import Table from 'cli-table3'
import {forTerminal} from './terminal.js'

export function renderTable(head: string[], rows: Array<Array<string | number>>, align?: Array<'left' | 'right'>): string {
  const table = new Table({
    head: head.map(forTerminal),
    style: {head: [], border: [], compact: true},
    ...(align ? {colAligns: align} : {}),
    chars: {mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': ''},
  })
  for (const r of rows) table.push(r.map(c => forTerminal(String(c))))
  return table.toString()
}
