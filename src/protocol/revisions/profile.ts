/**
 * A revision profile: the version string, its features, and the shaping bound to them.
 * @module
 */
import type { ContentBlock } from '../types/content.js';
import type { Implementation, ServerCapabilities } from '../types/lifecycle.js';
import type { CallToolResult, Tool } from '../types/tools.js';
import type { RevisionFeatures } from './features.js';
import {
  shapeCallResult,
  shapeContent,
  shapeImplementation,
  shapeProgress,
  shapeServerCapabilities,
  shapeTool,
} from './shape.js';

export interface RevisionProfile {
  readonly version: string;
  readonly features: Readonly<RevisionFeatures>;
  shapeTool(tool: Tool): Tool;
  shapeContent(block: ContentBlock): ContentBlock;
  shapeCallResult(result: CallToolResult): CallToolResult;
  shapeImplementation(info: Implementation): Implementation;
  shapeServerCapabilities(caps: ServerCapabilities): ServerCapabilities;
  shapeProgress<T extends { message?: string }>(params: T): T;
}

export function defineRevision(version: string, features: RevisionFeatures): RevisionProfile {
  const f = Object.freeze({ ...features });
  return Object.freeze({
    version,
    features: f,
    shapeTool: (tool: Tool) => shapeTool(tool, f),
    shapeContent: (block: ContentBlock) => shapeContent(block, f),
    shapeCallResult: (result: CallToolResult) => shapeCallResult(result, f),
    shapeImplementation: (info: Implementation) => shapeImplementation(info, f),
    shapeServerCapabilities: (caps: ServerCapabilities) => shapeServerCapabilities(caps, f),
    shapeProgress: <T extends { message?: string }>(params: T) => shapeProgress(params, f),
  });
}
