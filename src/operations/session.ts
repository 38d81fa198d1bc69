/**
 * What an operation is given by the command that runs it: the cluster (opened with the command's connection flags,
 * closed after the work) and one channel for warnings. Operations are the use cases (an audit pass and its watch,
 * explaining one group, many, or watching one; impact); commands parse flags, call one, render and set the exit code.
 */
import type {ClusterReader} from '../kafka/cluster-reader.js'
import type {Progress} from '../render/progress.js'

export interface Session {
  /** Runs `work` on the cluster; with `progress`, a spinner shows that text (unless `quiet`) and `work` may update it. */
  withCluster<R>(work: (client: ClusterReader, progress: Progress) => Promise<R>, o?: {progress?: string; quiet?: boolean}): Promise<R>
  /** A warning: on stderr as it comes, and in the `warnings` of the JSON document. */
  warn(message: string): void
  /** A line for stderr that is not a warning of the document (an error met while the run goes on; escaped there). */
  report(line: string): void
}
