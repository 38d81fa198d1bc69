/**
 * The warnings of an incremental audit about its checkpoints, one per cause rather than one per partition: a cron
 * user without a home directory (or a full disk) fails every partition's checkpoint the same way, and 50 identical
 * lines hide the one thing to do.
 */

/** "0-49", "1,3-5,9": partition numbers as ranges. */
export function partitionRanges(partitions: readonly number[]): string {
  const ps = [...new Set(partitions)].sort((a, b) => a - b)
  const out: string[] = []
  for (let i = 0; i < ps.length; i++) {
    let j = i
    while (j + 1 < ps.length && ps[j + 1] === ps[j] + 1) j++
    out.push(j > i ? `${ps[i]}-${ps[j]}` : `${ps[i]}`)
    i = j
  }
  return out.join(',')
}

/** Items with the same text, in the order of their first partition. */
function byText<T extends {partition: number}>(items: readonly T[], text: (t: T) => string): Array<{partitions: number[]; text: string}> {
  const groups = new Map<string, number[]>()
  for (const t of items) {
    const k = text(t)
    const g = groups.get(k)
    if (g) g.push(t.partition)
    else groups.set(k, [t.partition])
  }
  return [...groups].map(([k, partitions]) => ({partitions, text: k}))
}

const which = (ps: readonly number[]) => (ps.length === 1 ? `partition ${ps[0]}` : `partitions ${partitionRanges(ps)} (${ps.length})`)

/** `--incremental: partitions 0-49 (50) of __consumer_offsets read in full: REASON`, one line per reason. */
export function fullReadWarnings(fullReads: ReadonlyArray<{partition: number; reason: string}>, flag: string): string[] {
  return byText(fullReads, f => f.reason).map(g => `${flag}: ${which(g.partitions)} of __consumer_offsets read in full: ${g.text}`)
}

/**
 * One line per cause (`describe` gives it: the errno's meaning, the same for every partition where the messages name
 * each partition's file), with what to do: the checkpoints live under the history directory.
 */
export function checkpointErrorWarnings(
  errors: ReadonlyArray<{partition: number; error: string; code?: string}>,
  flag: string,
  dir: string,
  describe: (e: {error: string; code?: string}) => string,
  historyDirEnv: string,
): string[] {
  return byText(errors, describe).map(g => {
    const one = g.partitions.length === 1
    return `${flag}: the checkpoint${one ? '' : 's'} of ${which(g.partitions)} could not be written in ${dir} (${g.text}); the report is complete, the next run reads ${one ? 'that partition' : 'those partitions'} in full. Try this: --history-dir DIR (or $${historyDirEnv}) naming a writable directory with space`
  })
}
