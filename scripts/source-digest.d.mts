export declare const ROOT: string;
export declare const DIGEST_FILE: string;
export declare function sourceDigest(): string;
export declare function builtDigest(): string | undefined;
export declare function writeDigest(digest: string): void;
