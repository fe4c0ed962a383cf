/** `mkdir -p`, with the error of the folder that could not be made (EROFS, EACCES, ENOTDIR, EEXIST). */
export declare const makeFolders: (path: string) => void;
/**
 * Before long work whose result is written at the end (a clone, an average): the folder `out` will be
 * written in can be made and written to. Throws the file system's error (a file where a folder is needed, a
 * read-only disk, no permission) now instead of after the work. Leaves `out`'s parent made, nothing else.
 */
export declare const checkWritableParent: (out: string) => void;
