/** `agent-r1 plot runs/NAME [runs/OTHER ...] [--out DIR]`: SVG charts of the runs' metrics.jsonl. */
import { plotRuns } from "../observe/plot.ts";

export const plotCommand = async (
  runDirs: readonly string[],
  outDir: string | undefined,
  write: (line: string) => void,
  warn: (line: string) => void,
): Promise<string[]> => {
  const files = await plotRuns(runDirs, outDir, { warn });
  for (const file of files) write(file);
  warn(`wrote ${files.length} chart(s) of ${runDirs.length} run(s)`);
  return files;
};
