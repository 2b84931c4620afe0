export declare function ensureBuilt(log?: (line: string) => void): Promise<boolean>;
