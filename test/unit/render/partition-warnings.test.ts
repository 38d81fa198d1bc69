import {describe, expect, it} from 'vitest'
import {checkpointErrorWarnings, fullReadWarnings, partitionRanges} from '../../../src/render/partition-warnings.js'

describe('incremental audit warnings: one per cause', () => {
  it('partition ranges', () => {
    expect(partitionRanges([3, 0, 1, 2, 7, 9, 10])).toBe('0-3,7,9-10')
    expect(partitionRanges([5])).toBe('5')
  })

  it('50 partitions failing alike make one line; different causes one line each', () => {
    const fulls = Array.from({length: 50}, (_, p) => ({partition: p, reason: 'its checkpoint cannot be used: not a rebalance-doctor/audit-checkpoint-v5 file'}))
    expect(fullReadWarnings([...fulls, {partition: 50, reason: 'its checkpoint does not fit: truncated'}], '--incremental')).toEqual([
      '--incremental: partitions 0-49 (50) of __consumer_offsets read in full: its checkpoint cannot be used: not a rebalance-doctor/audit-checkpoint-v5 file',
      '--incremental: partition 50 of __consumer_offsets read in full: its checkpoint does not fit: truncated',
    ])
    // each message names its own temp file; the cause (the errno) is the same
    const errors = Array.from({length: 50}, (_, p) => ({partition: p, error: `EACCES: permission denied, open '/h/.offsets-${p}.json.tmp-1'`, code: 'EACCES'}))
    const w = checkpointErrorWarnings(
      errors,
      '--incremental',
      '/h',
      e => (e.code === 'EACCES' ? 'permission denied (EACCES)' : e.error),
      'REBALANCE_DOCTOR_HISTORY_DIR',
    )
    expect(w).toEqual([
      '--incremental: the checkpoints of partitions 0-49 (50) could not be written in /h (permission denied (EACCES)); the report is complete, the next run reads those partitions in full. Try this: --history-dir DIR (or $REBALANCE_DOCTOR_HISTORY_DIR) naming a writable directory with space',
    ])
  })
})
