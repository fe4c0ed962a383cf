import { configDefaults, defineConfig } from "vitest/config";

/**
 * Test files that change what the process holds for the next file: module state (the backend logged once, the
 * environment registry), `vi.mock`, `vi.stubEnv`, process-wide signal handlers or variables. Each runs in a
 * fresh process. Every other file shares its worker's modules with the files before it (`isolate: false`),
 * which saves importing TensorFlow.js, XState and Effect for each of them again; a file added here when it
 * starts to need it (its tests pass alone and fail in the whole suite).
 */
const isolated = [
  "test/actors/experiment-warm-stop.test.ts",
  "test/cli/eval-progress.test.ts",
  "test/cli/progress.test.ts",
  "test/cli/record-lock-signal.test.ts",
  "test/cli/resume-by-id.test.ts",
  "test/cli/signal-handlers.test.ts",
  "test/learn/critic-mask.test.ts",
  "test/learn/load-policy-log.test.ts",
  "test/policy/backend.test.ts",
  "test/reliability/security.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    setupFiles: ["test/support/cleanup.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/**/*.slow.test.ts", ...isolated],
          isolate: false,
        },
      },
      { extends: true, test: { name: "isolated", include: isolated } },
    ],
  },
});
