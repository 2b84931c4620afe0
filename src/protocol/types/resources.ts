/**
 * The resources feature: resources, resource templates, reads, subscriptions.
 * @module
 */
import type { JsonObject } from '../jsonrpc.js';
import type { Annotations, ResourceContents } from './content.js';
import type { Icon } from './lifecycle.js';

/** A resource as `resources/list` describes it (the union of every revision's fields). */
export interface Resource {
  uri: string;
  name: string;
  /** From 2025-06-18. */
  title?: string;
  description?: string;
  mimeType?: string;
  /** Raw size in bytes (before base64), if known. */
  size?: number;
  /** `lastModified` from 2025-06-18. */
  annotations?: Annotations;
  /** From 2025-11-25. */
  icons?: Icon[];
  /** From 2025-06-18. */
  _meta?: JsonObject;
}

/** A family of resources addressed by an RFC 6570 URI template. */
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  /** From 2025-06-18. */
  title?: string;
  description?: string;
  /** The MIME type of every resource the template matches, when they share one. */
  mimeType?: string;
  annotations?: Annotations;
  /** From 2025-11-25. */
  icons?: Icon[];
  /** From 2025-06-18. */
  _meta?: JsonObject;
}

export interface ListResourcesResult {
  resources: Resource[];
  nextCursor?: string;
  _meta?: JsonObject;
}

export interface ListResourceTemplatesResult {
  resourceTemplates: ResourceTemplate[];
  nextCursor?: string;
  _meta?: JsonObject;
}

export interface ReadResourceParams {
  uri: string;
  _meta?: JsonObject;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: JsonObject;
}

/** Params of `notifications/resources/updated`. */
export interface ResourceUpdatedParams {
  uri: string;
}
