/*
 * Making the folders a command writes to, so that what goes wrong is said plainly and early.
 *
 * Node 20's `mkdirSync(path, { recursive: true })` reports a parent it could not create as ENOENT ("no such
 * file or directory") even when the cause is a read-only file system or a missing permission, and hangs on
 * paths under /proc. Making each missing folder in turn, without `recursive`, gives the real error.
 */
/** `mkdir -p`, with the error of the folder that could not be made (EROFS, EACCES, ENOTDIR, EEXIST). */
export declare const makeFolders: (path: string) => void;
/**
 * Before long work whose result is written at the end (a clone, an average): the folder `out` will be
 * written in can be made and written to. Throws the file system's error (a file where a folder is needed, a
 * read-only disk, no permission) now instead of after the work. Leaves `out`'s parent made, nothing else.
 */
export declare const checkWritableParent: (out: string) => void;
