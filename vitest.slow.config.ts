import { defineConfig } from "vitest/config";

/** The slow suite (`npm run test:slow`): long crash and fuzz runs, excluded from `npm test`. */
export default defineConfig({
  test: {
    include: ["test/**/*.slow.test.ts"],
    exclude: ["node_modules/**"],
    testTimeout: 1_800_000,
    hookTimeout: 600_000,
    pool: "forks",
    setupFiles: ["test/support/cleanup.ts"],
    globalSetup: ["test/support/global-setup.ts"],
  },
});
