/**
 * The handshake era's lifecycle: initialize, capabilities, implementation info.
 * @module
 */
import { isJsonObject, type JsonObject } from '../jsonrpc.js';

/** From 2025-11-25. */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** Whether `value` names an implementation (a `clientInfo` / `serverInfo` with a string `name`). */
export function isImplementation(value: unknown): value is Implementation {
  return (
    typeof value === 'object' && value !== null && typeof (value as { name?: unknown }).name === 'string'
  );
}

export interface Implementation {
  name: string;
  version: string;
  /** From 2025-06-18. */
  title?: string;
  /** From 2025-11-25. */
  description?: string;
  icons?: Icon[];
  websiteUrl?: string;
}

export interface ClientCapabilities {
  experimental?: JsonObject;
  roots?: { listChanged?: boolean };
  sampling?: { context?: JsonObject; tools?: JsonObject };
  /** From 2025-06-18; `{form?, url?}` from 2025-11-25 (`{}` means form only). */
  elicitation?: { form?: JsonObject; url?: JsonObject; [key: string]: unknown };
  tasks?: JsonObject;
  [key: string]: unknown;
}

export interface ServerCapabilities {
  experimental?: JsonObject;
  logging?: JsonObject;
  completions?: JsonObject;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  tasks?: JsonObject;
  [key: string]: unknown;
}

/**
 * Whether `capabilities` declare `name`, as toolwire's server and gateway read a declaration: the member is
 * present and not `null` (`{}` declares it; `"elicitation": null`, which some clients send for a capability
 * they lack, does not). For a peer's capabilities or one of their members:
 * `declaresCapability(capabilities, 'elicitation')`, `declaresCapability(capabilities.elicitation, 'url')`.
 * Anything but a JSON object (`null`, an array, a string) declares nothing.
 */
export function declaresCapability(capabilities: unknown, name: string): boolean {
  if (!isJsonObject(capabilities)) return false;
  const declared = capabilities[name];
  return declared !== undefined && declared !== null;
}

export interface InitializeParams {
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
}

export interface InitializeResult {
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  _meta?: JsonObject;
}

export const LOGGING_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && (LOGGING_LEVELS as readonly string[]).includes(value);
}

/** Severity rank: higher is more severe. */
export function loggingRank(level: LoggingLevel): number {
  return LOGGING_LEVELS.indexOf(level);
}

export interface LoggingMessageParams {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}

export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  /** From 2025-03-26. */
  message?: string;
}

export interface CancelledParams {
  requestId?: string | number;
  reason?: string;
}
