import {BaseSequencer, type TestSpecification} from 'vitest/node'
import {defineConfig} from 'vitest/config'

/**
 * Vitest's order (longest first from its cache, else the largest file first), with the in-place upgrades last: they
 * leave the cluster on other jars, so a lane of scripts/test-all.sh may run one after its own version's files, on
 * their cluster, instead of starting one more (a cluster start: ~40-70 s).
 */
class UpgradesLast extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const upgrade = (f: TestSpecification) => /\/upgrade\d+\.it\.test\.ts$/.test(f.moduleId)
    return [...sorted.filter(f => !upgrade(f)), ...sorted.filter(upgrade)]
  }
}

// Integration tests against a real Kafka cluster (kafka-it/cluster.sh), one cluster per run:
//   KAFKA_VERSION=4.1.2 npx vitest run --config vitest.it.config.ts
export default defineConfig({
  test: {
    include: ['test/it/**/*.it.test.ts'],
    globalSetup: ['test/it/lib/global-setup.ts'],
    // one cluster: files run one after another, tests inside a file too
    fileParallelism: false,
    maxWorkers: 1,
    sequence: {sequencer: UpgradesLast},
    testTimeout: 240_000,
    hookTimeout: 240_000,
    teardownTimeout: 120_000,
    reporters: ['default'],
  },
})
