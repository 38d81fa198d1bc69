#!/usr/bin/env node
// The human table with tall cells: `audit` rows whose DETAILS (stuck members, drift) wrap to many lines on a
// terminal. renderTable hands cli-table3 one row per line; cli-table3's own multi-line cells cost time cubic in
// their lines (measured 2026-12-02: one cell of 10/20/40 lines 0.1/0.4/2.9 s; 39 audit rows of 40 wrapped lines at
// 160 columns 259 s before, 0.97 s after, same text). Prints one JSON line: ours for ROWS rows of LINES lines at
// WIDTH columns, and cli-table3 given one multi-line cell of LINES lines. Build first (npm run build).
//   node bench/table.bench.js [ROWS] [LINES] [WIDTH]
import Table from 'cli-table3'
import {renderTable} from '../dist/render/table.js'

const [rows, lines, width] = [Number(process.argv[2] ?? 39), Number(process.argv[3] ?? 40), Number(process.argv[4] ?? 160)]
const head = ['GROUP', 'TYPE', 'VERDICT', 'EPOCH', 'ASSIGNED', 'IN SYNC', 'MEMBERS', 'DETAILS']
// a DETAILS text that wraps to about `lines` lines in the column the table gives it at `width`
const details = Array.from({length: lines * 2}, (_, i) => `member-${i} (client-${i}@/10.0.0.${i % 250}) waits on member-${i + 1}`).join('; ')
const table = Array.from({length: rows}, (_, i) => [`group-${i}`, 'consumer', 'RECONCILING', 5, 4, 'yes', '3 (2 reconciling)', details])
const t0 = performance.now()
const out = renderTable(head, table, undefined, {width, truncate: [0]})
const oursMs = performance.now() - t0

const cell = Array.from({length: lines}, (_, i) => `line ${i} `.padEnd(80, 'x')).join('\n')
const direct = new Table({head: ['a', 'b'], style: {head: [], border: [], compact: true}})
direct.push(['g', cell])
const t1 = performance.now()
direct.toString()
const cliTable3OneCellMs = performance.now() - t1
console.log(
  JSON.stringify({
    rows,
    width,
    outputLines: out.split('\n').length,
    oursMs: Math.round(oursMs),
    cliTable3OneMultiLineCell: {lines, ms: Math.round(cliTable3OneCellMs)},
  }),
)
