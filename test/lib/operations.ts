/** What the operation tests hand an operation: a session over the fake cluster, and audit settings. */
import type {AuditSettings} from '../../src/operations/audit/pass.js'
import type {Session} from '../../src/operations/session.js'
import type {FakeCluster} from './fake-cluster.js'

/** A session over `fake`; warnings and reported lines go to `said` (when given). */
export function fakeSession(fake: FakeCluster, said?: string[]): Session {
  const keep = (m: string) => void said?.push(m)
  return {withCluster: work => work(fake, {update: () => {}, stop: () => {}} as never), warn: keep, report: keep}
}

/** An audit over every group, one partition at a time, no lag; the history in `historyDir`, recorded or not. */
export const auditSettings = (historyDir: string, over: Partial<AuditSettings> = {}): AuditSettings => ({
  stuckAfterMs: undefined,
  failOn: [],
  types: undefined,
  match: () => true,
  filtered: false,
  retentionMs: 86_400_000,
  concurrency: 1,
  record: false,
  historyDir,
  metadataLogDir: undefined,
  lag: false,
  ...over,
})
