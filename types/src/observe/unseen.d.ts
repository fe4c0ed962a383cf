export declare const escapeUnseen: (text: string) => string;
