/**
 * A revision profile: the version string, its features, and the shaping bound to them.
 * @module
 */
import type { ContentBlock } from '../types/content.js';
import type { Implementation, ServerCapabilities } from '../types/lifecycle.js';
import type { CompleteParams, GetPromptResult, Prompt } from '../types/prompts.js';
import type { ReadResourceResult, Resource, ResourceTemplate } from '../types/resources.js';
import type { CallToolResult, Tool } from '../types/tools.js';
import type { JsonObject } from '../jsonrpc.js';
import type { RevisionFeatures } from './features.js';
import { finishResult, type ResultExtras } from './finish-result.js';
import {
  shapeCallResult,
  shapeCompleteParams,
  shapeContent,
  shapeImplementation,
  shapeProgress,
  shapePrompt,
  shapePromptResult,
  shapeReadResult,
  shapeResource,
  shapeResourceTemplate,
  shapeServerCapabilities,
  shapeTool,
} from './shape.js';

/** Which shapes results take: the normative schema's (default) or the pocket spec's (`pocket-shapes.ts`). */
export type ResultShapes = 'schema' | 'pocket';

export interface RevisionProfile {
  readonly version: string;
  readonly features: Readonly<RevisionFeatures>;
  /** The shapes results take: the schema's, or the pocket spec's (see `pocket-shapes.ts`). */
  readonly shapes: ResultShapes;
  /** The `nextCursor` of a list's last page: none (the schema's shape), or `""` (the pocket spec's). */
  readonly endCursor: string | undefined;
  shapeTool(tool: Tool): Tool;
  shapeContent(block: ContentBlock): ContentBlock;
  /** `tool`: the definition of the tool that produced the result (its `outputSchema`). */
  shapeCallResult(result: CallToolResult, tool?: Pick<Tool, 'outputSchema'>): CallToolResult;
  shapeImplementation(info: Implementation): Implementation;
  shapeServerCapabilities(caps: ServerCapabilities): ServerCapabilities;
  shapeProgress<T extends { message?: string }>(params: T): T;
  shapeResource(resource: Resource): Resource;
  shapeResourceTemplate(template: ResourceTemplate): ResourceTemplate;
  shapeReadResult(result: ReadResourceResult): ReadResourceResult;
  shapePrompt(prompt: Prompt): Prompt;
  shapePromptResult(result: GetPromptResult): GetPromptResult;
  shapeCompleteParams(params: CompleteParams): CompleteParams;
  /** Adds what the era requires of every result (`resultType`, cache hints, `serverInfo`). */
  finishResult<R extends object>(result: R, extras?: ResultExtras): R | JsonObject;
}

export function defineRevision(version: string, features: RevisionFeatures): RevisionProfile {
  const f = Object.freeze({ ...features });
  return Object.freeze({
    version,
    features: f,
    shapes: 'schema',
    endCursor: undefined,
    shapeTool: (tool: Tool) => shapeTool(tool, f),
    shapeContent: (block: ContentBlock) => shapeContent(block, f),
    shapeCallResult: (result: CallToolResult, tool?: Pick<Tool, 'outputSchema'>) =>
      shapeCallResult(result, f, tool),
    shapeImplementation: (info: Implementation) => shapeImplementation(info, f),
    shapeServerCapabilities: (caps: ServerCapabilities) => shapeServerCapabilities(caps, f),
    shapeProgress: <T extends { message?: string }>(params: T) => shapeProgress(params, f),
    shapeResource: (resource: Resource) => shapeResource(resource, f),
    shapeResourceTemplate: (template: ResourceTemplate) => shapeResourceTemplate(template, f),
    shapeReadResult: (result: ReadResourceResult) => shapeReadResult(result, f),
    shapePrompt: (prompt: Prompt) => shapePrompt(prompt, f),
    shapePromptResult: (result: GetPromptResult) => shapePromptResult(result, f),
    shapeCompleteParams: (params: CompleteParams) => shapeCompleteParams(params, f),
    finishResult: <R extends object>(result: R, extras?: ResultExtras) => finishResult(result, f, extras),
  });
}
