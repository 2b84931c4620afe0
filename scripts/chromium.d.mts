export declare const CHROMIUM_FLAGS: readonly string[];
export declare function findChromium(): string | undefined;
export declare function provisionChromium(options?: { log?: (line: string) => void }): string;
