/** A module that default-exports the sound `secret` environment, as `--env test/testing/secret-env.ts` loads it. */
import { createSecretEnv } from "./fixtures.ts";

export default createSecretEnv();
