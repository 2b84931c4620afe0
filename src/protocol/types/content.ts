/**
 * Content blocks that tool results carry (the union of every revision; shaping narrows it per peer).
 * @module
 */
import type { JsonObject } from '../jsonrpc.js';
import type { Icon } from './lifecycle.js';

export type Role = 'user' | 'assistant';

/** Content annotations. `lastModified` exists from 2025-06-18. */
export interface Annotations {
  audience?: Role[];
  priority?: number;
  lastModified?: string;
}

interface BlockBase {
  annotations?: Annotations;
  /** From 2025-06-18. */
  _meta?: JsonObject;
}

export interface TextContent extends BlockBase {
  type: 'text';
  text: string;
}

export interface ImageContent extends BlockBase {
  type: 'image';
  /** Base64-encoded bytes. */
  data: string;
  mimeType: string;
}

/** From 2025-03-26. */
export interface AudioContent extends BlockBase {
  type: 'audio';
  data: string;
  mimeType: string;
}

export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: JsonObject;
}

export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  /** Base64-encoded bytes. */
  blob: string;
  _meta?: JsonObject;
}

export type ResourceContents = TextResourceContents | BlobResourceContents;

export interface EmbeddedResource extends BlockBase {
  type: 'resource';
  resource: ResourceContents;
}

/** From 2025-06-18. */
export interface ResourceLink extends BlockBase {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  /** From 2025-11-25. */
  icons?: Icon[];
}

export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;
export type ContentType = ContentBlock['type'];
