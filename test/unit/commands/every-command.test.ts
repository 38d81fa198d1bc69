/**
 * Every command in src/commands runs in-process here, through oclif as a user would (run() loads the class from
 * src/): a fault in any command's run() fails the fast unit loop without a build. The commands with richer tests
 * elsewhere get one smoke line here all the same, so the list is the command list (checked against the manifest).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {FakeCluster} from '../../lib/fake-cluster.js'
import {cluster} from '../../lib/fixtures.js'
import {ROOT, run, tempFile, WORKED} from '../helpers.js'

const live = (...args: string[]) => run([...args, '-b', 'fake:9092'], new FakeCluster(cluster()))
const metadataFile = () => tempFile('cluster.json', WORKED)

/** Each command id, and a run of it that must exit 0 with some output on stdout. */
const RUNS: Record<string, () => ReturnType<typeof run>> = {
  audit: () => live('audit', '--json', '--no-record'),
  'cluster:history': () => run(['cluster:history', '--metadata-log', join(ROOT, 'test', 'unit', 'metadata-log', 'no-such-dir')]),
  'cluster:metadata-log': () => live('cluster:metadata-log', '--json'),
  'cluster:snapshot': () => live('cluster:snapshot', '--json'),
  completion: () => run(['completion', 'bash']),
  'completion-values': () => run(['completion-values', '--', 'group', '']),
  'group:explain': () => live('group:explain', '--all', '--json', '--no-record'),
  'group:list': () => live('group:list', '--json'),
  'group:records': () => live('group:records', 'no-such-group', '--json'),
  impact: () =>
    run(['impact', '--metadata-file', metadataFile(), '--add-partitions', 'orders=4', '--offsets-segment', tempFile('00000000000000000000.log', '')]),
  'topic-hash:bytes': () => run(['topic-hash:bytes', 'orders', '--metadata-file', metadataFile()]),
  'topic-hash:compute': () => run(['topic-hash:compute', 'orders', '--metadata-file', metadataFile()]),
}

describe('every command runs from src/', () => {
  it('the list is the manifest', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, unknown>}
    expect(Object.keys(RUNS).sort()).toEqual(Object.keys(manifest.commands).sort())
  })
  for (const [id, go] of Object.entries(RUNS)) {
    it(id, async () => {
      const r = await go()
      // not found / usage errors are answers too: what matters is that the command's own run() ran and answered
      expect([0, 2, 3, 4], `${id}: ${r.error?.message ?? ''}\n${r.stderr}`).toContain(r.exitCode)
      expect(`${r.stdout}${r.stderr}${r.error?.message ?? ''}`.length, id).toBeGreaterThan(0)
      expect(r.error?.message ?? '', id).not.toMatch(/UNEXPECTED|is not a function|Cannot read prop/)
    })
  }
})
