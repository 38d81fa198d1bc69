import {defineConfig} from 'vitest/config'

// Integration tests against a real Kafka cluster (kafka-it/cluster.sh), one cluster per run:
//   KAFKA_VERSION=4.1.2 npx vitest run --config vitest.it.config.ts
export default defineConfig({
  test: {
    include: ['test/it/**/*.it.test.ts'],
    globalSetup: ['test/it/lib/global-setup.ts'],
    // one cluster: files run one after another, tests inside a file too
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 240_000,
    hookTimeout: 240_000,
    teardownTimeout: 120_000,
    reporters: ['default'],
  },
})
