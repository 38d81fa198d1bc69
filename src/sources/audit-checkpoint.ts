/**
 * Where incremental audits keep their partition checkpoints: <history dir>/<cluster id>/audit-checkpoint/
 * offsets-<partition>.json and offsets-<partition>.states.json (the states of groups with cached audit entries,
 * read only when one of them is needed), next to the history, each written atomically (not fsynced: a cache of the
 * log, whose loss costs one full read): the states file first, so
 * a crash between the two leaves a header whose generation the new states file does not have (a full read).
 */
import {randomBytes} from 'node:crypto'
import {mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {decodeCheckpoint, encodeCheckpoint, type PartitionCheckpoint, type StatesFile} from '../core/audit/checkpoint.js'
import {clusterDir} from '../history/store.js'
import {describeWriteError, writeFileAtomic} from '../io/atomic-file.js'

export interface CheckpointStore {
  readonly dir: string
  /** undefined when there is none; {error} when it cannot be used. */
  load(partition: number): PartitionCheckpoint | {error: string} | undefined
  /** Writes `cp`; returns the states file its header now refers to. */
  save(cp: PartitionCheckpoint): StatesFile | null | undefined
}

export function checkpointStore(historyRoot: string, clusterId: string): CheckpointStore {
  const dir = join(clusterDir(historyRoot, clusterId), 'audit-checkpoint')
  const file = (p: number) => join(dir, `offsets-${p}.json`)
  const statesFile = (p: number) => join(dir, `offsets-${p}.states.json`)
  return {
    dir,
    load(partition) {
      let text: Buffer
      try {
        text = readFileSync(file(partition))
      } catch (error) {
        // none there: no such file, or no such directory (a part of the path is a file: the save says so, once)
        const code = (error as NodeJS.ErrnoException).code
        if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
        // (worded alike for every partition: the audit warns once per cause, not once per partition)
        return {error: `the checkpoints in ${dir} cannot be read (${describeWriteError(error)})`}
      }
      return decodeCheckpoint(text, () => readFileSync(statesFile(partition), 'utf8'))
    },
    save(cp) {
      mkdirSync(dir, {recursive: true})
      const generation = `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`
      const {header, states, statesFile: written} = encodeCheckpoint(cp, generation)
      // a new states file first: a crash before the header leaves the old header, which names the old generation.
      // Not fsynced: a checkpoint is a cache of the log. A crash that loses a file, empties it or keeps a header
      // without its states file costs that partition one full read, reported (decodeCheckpoint and the generation
      // check find it), never a wrong result; fsyncing the five files of a run cost 20-40 ms here.
      if (states !== undefined) writeFileAtomic(statesFile(cp.partition), states, {durable: false})
      writeFileAtomic(file(cp.partition), header, {durable: false})
      return written
    },
  }
}

/**
 * `audit --watch`: checkpoints kept in memory between cycles (and, with `backing`, also written as --incremental
 * writes them). A load hands out a deep copy: a cycle that fails half-way through a partition cannot damage the
 * checkpoint the next cycle resumes from. Saves are staged until commit() (the cycle's bumps are printed): a cycle
 * that fails after some partitions were read rolls them back, so their new bumps come again with the next cycle
 * instead of being lost. One checkpoint per partition is held, replaced each cycle: flat memory.
 */
export interface MemoryCheckpointStore extends CheckpointStore {
  /** The offset the last committed read of `partition` reached in this process (undefined before the first). */
  nextOffset(partition: number): bigint | undefined
  /** The cycle succeeded: its saves become what the next cycle resumes from. */
  commit(): void
  /** The cycle failed: its saves are dropped (the disk copies, if any, only serve a restarted process). */
  rollback(): void
}

export function memoryCheckpointStore(backing?: CheckpointStore): MemoryCheckpointStore {
  const held = new Map<number, PartitionCheckpoint>()
  const staged = new Map<number, PartitionCheckpoint>()
  // read from the disk this cycle: held at commit when the cycle wrote no newer one (a checkpoint still exact is not
  // rewritten), so that the next cycle knows where this one stopped and tracks the records after it
  const loaded = new Map<number, PartitionCheckpoint>()
  return {
    dir: backing?.dir ?? '(memory)',
    load(partition) {
      const cp = held.get(partition)
      if (!cp) {
        const disk = backing?.load(partition)
        if (disk && !('error' in disk)) loaded.set(partition, disk)
        return disk
      }
      // a copy of what a scan could change (the lists); the texts in it are immutable
      return {...cp, lastBatch: cp.lastBatch && {...cp.lastBatch}, counters: {...cp.counters}, groups: cp.groups.map(([id, g]) => [id, {...g}] as const)}
    },
    save(cp) {
      staged.set(cp.partition, cp)
      if (!backing) return cp.statesFile
      // the states file the disk copy now refers to: a later save of this copy must name it, not the one read
      const statesFile = backing.save(cp)
      staged.set(cp.partition, {...cp, statesFile})
      return statesFile
    },
    nextOffset: partition => held.get(partition)?.nextOffset,
    commit() {
      for (const [p, cp] of loaded) if (!staged.has(p)) held.set(p, cp)
      for (const [p, cp] of staged) held.set(p, cp)
      staged.clear()
      loaded.clear()
    },
    rollback() {
      staged.clear()
      loaded.clear()
    },
  }
}
