/**
 * Where the CLI keeps what `toolwire login` obtained (tokens, client registrations, DPoP keys): one JSON
 * file only its user can read and write (0600, in a 0700 directory), `$TOOLWIRE_OAUTH_FILE` or
 * `~/.config/toolwire/oauth.json` (`$XDG_CONFIG_HOME` honoured). Writes replace the file atomically (a
 * temporary file, then a rename), so a crash never leaves half a file; a file others can read is made
 * private again when it is read.
 * @module
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { OAuthRecord, OAuthStore } from '../transports/http-client/index.js';

/** The largest token file read (a file this large is not one the CLI wrote). */
const MAX_FILE_BYTES = 1024 * 1024;

interface FileContents {
  version: 1;
  servers: Record<string, OAuthRecord>;
}

/** The token file: `$TOOLWIRE_OAUTH_FILE`, else `oauth.json` in the user's toolwire config directory. */
export function oauthFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TOOLWIRE_OAUTH_FILE) return path.resolve(env.TOOLWIRE_OAUTH_FILE);
  const config = env.XDG_CONFIG_HOME || path.join(homedir(), '.config');
  return path.join(config, 'toolwire', 'oauth.json');
}

export class FileOAuthStore implements OAuthStore {
  readonly file: string;

  constructor(file: string = oauthFile()) {
    this.file = file;
  }

  load(key: string): OAuthRecord | undefined {
    return this.#read().servers[key];
  }

  save(key: string, record: OAuthRecord): void {
    const contents = this.#read();
    contents.servers[key] = record;
    this.#write(contents);
  }

  delete(key: string): void {
    const contents = this.#read();
    if (!(key in contents.servers)) return;
    delete contents.servers[key];
    this.#write(contents);
  }

  #read(): FileContents {
    let text: string;
    try {
      const stat = statSync(this.file);
      if (stat.size > MAX_FILE_BYTES) throw new Error(`${this.file} is larger than ${MAX_FILE_BYTES} bytes`);
      if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) chmodSync(this.file, 0o600);
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: {} };
      throw error;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${this.file} is not the toolwire token file (not JSON); move it away to start afresh`);
    }
    const servers = (parsed as Partial<FileContents> | null)?.servers;
    if (typeof servers !== 'object' || servers === null || Array.isArray(servers)) {
      throw new Error(
        `${this.file} is not the toolwire token file (no "servers"); move it away to start afresh`,
      );
    }
    return { version: 1, servers };
  }

  #write(contents: FileContents): void {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(temporary, this.file);
  }
}
