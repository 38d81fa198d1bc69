import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 60_000,
    // oclif writes with console.log; let @oclif/test capture it instead of vitest
    disableConsoleIntercept: true,
  },
})
