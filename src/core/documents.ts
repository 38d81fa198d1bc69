/**
 * The envelope of every --json document (and of the last line of every --ndjson stream): `schema` first, so a
 * script can dispatch on it before reading the rest, and `warnings` last, because oclif drops `this.warn` under
 * --json and a warning (fenced brokers' racks may be missing, history not written) must still reach scripts.
 *
 *   {"schema": {"name": "rebalance-doctor/audit", "version": 1}, ...body, "warnings": [...]}
 *
 * A version changes only when a field is removed or changes meaning; added fields keep it.
 */

export interface SchemaId {
  name: string
  version: number
}

/** A plain message, or one with a stable code a script can test. */
export type Warning = string | {code: string; message: string}

export type Document<T> = {schema: SchemaId} & Omit<T, 'schema' | 'warnings'> & {warnings: Warning[]}

const id = (name: string, version = 1): SchemaId => ({name: `rebalance-doctor/${name}`, version})

/** Every document this tool prints, by the command (or output line) that prints it. */
export const SCHEMAS = {
  audit: id('audit'),
  auditGroup: id('audit-group'),
  auditSummary: id('audit-summary'),
  /** `audit --watch --ndjson` and `group explain --watch --json`: one line per new epoch bump. */
  bump: id('bump'),
  /** `--watch --ndjson`: a bump printed earlier whose cause a later pass named exactly (it refers to the first). */
  bumpRevision: id('bump-revision'),
  /** `audit --watch --ndjson`: one line per member newly stuck (reconciling longer than its group's threshold). */
  stuckMember: id('stuck-member'),
  clusterHistory: id('cluster-history'),
  clusterHistorySource: id('cluster-history-source'),
  /** `cluster metadata-log`: where each broker keeps the KRaft metadata log. */
  clusterMetadataLog: id('cluster-metadata-log'),
  clusterSnapshot: id('cluster-snapshot'),
  clusterSnapshotWritten: id('cluster-snapshot-written'),
  completion: id('completion'),
  completionValues: id('completion-values'),
  error: id('error'),
  groupExplain: id('group-explain'),
  /** `group explain PATTERN` / `--all`: {pattern, groups: [group-explain report...]}. */
  groupExplainList: id('group-explain-list'),
  groupList: id('group-list'),
  groupRecords: id('group-records'),
  impact: id('impact'),
  topicHashBytes: id('topic-hash-bytes'),
  topicHashCompute: id('topic-hash-compute'),
} as const satisfies Record<string, SchemaId>

/** The body between `schema` (first key) and `warnings` (last key); keys of the body named so are replaced. */
export function toDocument<T extends object>(schema: SchemaId, body: T, warnings: readonly Warning[] = []): Document<T> {
  const {schema: _schema, warnings: _warnings, ...rest} = body as T & {schema?: unknown; warnings?: unknown}
  return {schema: {...schema}, ...rest, warnings: [...warnings]} as Document<T>
}
