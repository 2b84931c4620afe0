export interface RedisServerHandle {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Starts it again on the same port (empty) when it is not running. */
  start(): Promise<void>;
  /** SIGKILL, like a crash; resolves once it has exited. */
  kill(): Promise<void>;
  /** SIGTERM; resolves once it has exited. */
  stop(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}
export declare function findRedisServer(): string | undefined;
export declare function provisionRedisServer(options?: { log?: (line: string) => void }): string;
export declare function startRedisServer(binary?: string): Promise<RedisServerHandle>;
