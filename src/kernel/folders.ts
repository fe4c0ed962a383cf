/**
 * Making the folders a command writes to, so that what goes wrong is said plainly and early.
 *
 * Node 20's `mkdirSync(path, { recursive: true })` reports a parent it could not create as ENOENT ("no such
 * file or directory") even when the cause is a read-only file system or a missing permission, and hangs on
 * paths under /proc. Making each missing folder in turn, without `recursive`, gives the real error.
 */
import { mkdirSync, mkdtempSync, rmdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** The path itself and the ancestors it lacks, outermost first (empty when it exists). */
const missingFolders = (path: string): string[] => {
  const missing: string[] = [];
  let at = resolve(path);
  for (;;) {
    try {
      statSync(at);
      return missing.reverse();
    } catch {
      missing.push(at);
      const up = dirname(at);
      if (up === at) return missing.reverse();
      at = up;
    }
  }
};

/** `mkdir -p`, with the error of the folder that could not be made (EROFS, EACCES, ENOTDIR, EEXIST). */
export const makeFolders = (path: string): void => {
  for (const folder of missingFolders(path)) {
    try {
      mkdirSync(folder);
    } catch (cause) {
      // Made meanwhile by another process: fine.
      if ((cause as NodeJS.ErrnoException).code === "EEXIST" && statSync(folder).isDirectory()) continue;
      throw cause;
    }
  }
  // An existing path that is a file: the error mkdir gives for it.
  if (!statSync(resolve(path)).isDirectory()) mkdirSync(path);
};

/**
 * Before long work whose result is written at the end (a clone, an average): the folder `out` will be
 * written in can be made and written to. Throws the file system's error (a file where a folder is needed, a
 * read-only disk, no permission) now instead of after the work. Leaves `out`'s parent made, nothing else.
 */
export const checkWritableParent = (out: string): void => {
  const parent = dirname(resolve(out));
  makeFolders(parent);
  rmdirSync(mkdtempSync(join(parent, `.${basename(out)}.probe-`)));
};
