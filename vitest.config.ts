import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // every temporary file of the run under one folder, removed at the end (test/global-setup.ts)
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // no test may fail because the machine is busy: a test waits for the events it needs
    // (test/helpers/service.ts `until`, at least two minutes), so its own time limit is far
    // above what any test takes on an idle 2-core machine (the slowest, a training run, about 1 minute)
    testTimeout: 600_000,
    hookTimeout: 600_000,
    maxWorkers: 2,
  },
});
