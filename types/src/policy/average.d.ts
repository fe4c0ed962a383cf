/*
 * Weight averaging of checkpoints: the mean of each parameter over several checkpoints of one model shape
 * and one tokenizer. The last few checkpoints of one RL run (Polyak / tail averaging), or the last ones of
 * runs from the same warm start on other seeds (a "model soup"), often score steadier than any one of them:
 * an RL run's exact match swings between checkpoints a few updates apart.
 */
import { type CheckpointContents } from "./checkpoint.ts";
/** The averaged model of averageCheckpoints, with which versions went into it and how alike they were. */
export interface AveragedCheckpoint extends CheckpointContents {
    /** The policy versions averaged, in the order given. */
    readonly versions: readonly number[];
    /**
     * Cosine similarity of each checkpoint's weight matrices and embeddings (as one vector; layer norms'
     * gains and the biases, alike in any two models, left out) to the first one's, in the order given (the
     * first is 1). Checkpoints of one run, or of runs from one warm start, are near 1 (0.997 to 0.9996 on
     * hopqa's); clones made apart are far lower (0.66-0.70 there), and their average is not a soup.
     */
    readonly similarity: readonly number[];
}
/** Below this cosine similarity to the first checkpoint, `agent-r1 average` warns that the models are not one lineage. */
export declare const SOUP_SIMILARITY = 0.9;
/**
 * Loads the checkpoints one at a time and averages their parameters (in float64, then rounded to float32).
 * A run folder stands for its latest checkpoint. The result has the first checkpoint's shape and tokenizer, the highest of their policy versions, no
 * optimizer state, and their decoding (`constrained`) when they all record the same one. A checkpoint of another shape or tokenizer is a UsageError naming it and the difference;
 * a damaged one is the loader's CheckpointError.
 */
export declare const averageCheckpoints: (given: readonly string[]) => Promise<AveragedCheckpoint>;
