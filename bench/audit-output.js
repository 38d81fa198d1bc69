#!/usr/bin/env node
// The audit's whole output over segment files written by `BENCH_SEGMENTS=DIR node bench/audit.bench.js`, to compare
// two builds byte for byte (a change to the scan, the reduction or the audit must not change a byte of it):
//   - the --json document (fixed audit time), rows of every partition scanned in full with rebalance costs;
//   - each partition's checkpoint (header and states file, encodeCheckpoint) after that full read;
//   - each partition read in two runs, the second resumed from the first's checkpoint (encoded, decoded) half-way:
//     its rows and its checkpoint.
//   node bench/audit-output.js DIR OUT [DIST]   (DIST: another build's dist/, default ../dist/)
// Writes OUT and prints its sha256 and size.
import {createHash} from 'node:crypto'
import {openSync, writeSync, closeSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

const [dir, outPath, distArg] = process.argv.slice(2)
if (!dir || !outPath) throw new Error('usage: node bench/audit-output.js DIR OUT [DIST]')
const dist = distArg ? pathToFileURL(`${resolve(distArg)}/`) : new URL('../dist/', import.meta.url)
const load = path => import(new URL(path, dist).href)
const {PartitionScan, auditKeyFilter} = await load('core/audit/scan.js')
const {auditContext, FINDING_KINDS} = await load('core/audit/audit.js')
const {AuditPass} = await load('core/audit/pass.js')
const {auditDocument} = await load('core/audit/output.js')
const {encodeCheckpoint, decodeCheckpoint} = await load('core/audit/checkpoint.js')
const {parseMetadataDocument} = await load('core/metadata.js')
const {readBatchFile} = await load('sources/metadata-log.js')
const {syntheticCluster} = await import('./synthetic.js')

const PARTITIONS = Number(process.env.BENCH_PARTITIONS ?? 50)
const TOPICS = Number(process.env.BENCH_TOPICS ?? 1000)
const NOW = 1_765_000_000_000
const md = parseMetadataDocument(syntheticCluster({topics: TOPICS, partitions: 12, rf: 3, brokers: 6, racks: 3}))
const options = {rowCosts: true}

const fd = openSync(outPath, 'w')
const hash = createHash('sha256')
let size = 0
const out = text => {
  const b = Buffer.from(text, 'utf8')
  hash.update(b)
  size += b.length
  writeSync(fd, b)
}

async function batchesOf(p) {
  const all = []
  for await (const chunk of readBatchFile(join(dir, `partition-${p}.log`), undefined, auditKeyFilter)) all.push(...chunk)
  return all
}

/** The scan's checkpoint after `batches` (its groups' entries set by `pass`), and its encoded files as text. */
function checkpoint(p, scan, groups, batches, statesFile) {
  const last = batches.at(-1)
  const cp = {
    clusterId: 'bench',
    partition: p,
    keepEpochs: scan.keepEpochs,
    nextOffset: last ? last.lastOffset + 1n : 0n,
    logStartOffset: 0n,
    lastBatch: last ? {baseOffset: last.baseOffset, lastOffset: last.lastOffset, leaderEpoch: 0} : null,
    counters: scan.counters,
    rowsKey: 'bench',
    statesFile,
    groups: scan.data(groups),
  }
  const enc = encodeCheckpoint(cp, `g${p}`)
  const header = Buffer.concat(enc.header.map(b => Buffer.from(b.buffer, b.byteOffset, b.byteLength)))
  return {enc, header, text: `${header.toString('utf8')}${enc.states ?? ''}\n`}
}

const full = new AuditPass(auditContext(md, NOW), undefined)
const resumed = new AuditPass(auditContext(md, NOW), undefined)
let records = 0
for (let p = 0; p < PARTITIONS; p++) {
  const batches = await batchesOf(p)
  for (const b of batches) records += b.recordCount ?? b.records.length
  // read in full
  const scan = new PartitionScan(options)
  for (const b of batches) scan.onBatch(b)
  const groups = scan.scanned()
  full.addScanned(groups)
  out(`== partition ${p} checkpoint\n${checkpoint(p, scan, groups, batches, null).text}`)
  // read in two runs, the second from the first's checkpoint
  const half = batches.length >> 1
  const first = new PartitionScan(options)
  for (const b of batches.slice(0, half)) first.onBatch(b)
  const firstGroups = first.scanned()
  new AuditPass(auditContext(md, NOW), undefined).addScanned(firstGroups)
  const cp1 = checkpoint(p, first, firstGroups, batches.slice(0, half), null)
  const read = decodeCheckpoint(cp1.header, () => cp1.enc.states ?? '')
  if ('error' in read) throw new Error(`partition ${p}: ${read.error}`)
  const second = new PartitionScan(options, read)
  for (const b of batches.slice(half)) second.onBatch(b)
  const secondGroups = second.scanned()
  resumed.addScanned(secondGroups)
  out(`== partition ${p} checkpoint resumed\n${checkpoint(p, second, secondGroups, batches, cp1.enc.statesFile).text}`)
}
const stats = {partitions: PARTITIONS, recordsScanned: records, decodeErrors: 0, durationMs: 0}
for (const [name, pass] of [
  ['document', full],
  ['document resumed', resumed],
]) {
  const summary = pass.summary(stats, [...FINDING_KINDS], 'bench', NOW, false)
  out(`== ${name}\n${JSON.stringify(auditDocument(summary, pass.rows()))}\n`)
}
closeSync(fd)
console.log(JSON.stringify({out: outPath, bytes: size, sha256: hash.digest('hex'), groups: full.rows().length, records}))
