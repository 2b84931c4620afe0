/**
 * The icons of an upstream that the gateway passes on (of what it lists: tools, prompts, resources,
 * templates; of the `resource_link` blocks in its call results and prompt messages; of its `serverInfo`, as
 * `gateway.upstreams()` and the console show it): only those whose `src` is an `https:`, `http:` or `data:`
 * URI, as the spec has them. The spec has a client
 * reject icon URIs of unsafe schemes (`javascript:`, `file:`, `ftp:`, `ws:` …); the gateway is its
 * upstreams' client, and its callers' hosts may show what it lists as it lists it, so a hostile upstream's
 * `javascript:` link or `file://` path (which a host that fetched it could leak credentials to) stops here.
 * The rest of each icon is passed on as it is.
 * @module
 */
import type { CallToolResult, ContentBlock, GetPromptResult, Icon } from '../index.js';

const SAFE_SCHEMES = new Set(['https:', 'http:', 'data:']);

/** Whether an icon's `src` is a URI of a scheme the gateway passes on. */
function isSafe(icon: unknown): boolean {
  const src = (icon as { src?: unknown } | null)?.src;
  if (typeof src !== 'string') return true; // malformed: the server's own checks refuse it, saying why
  if (!URL.canParse(src)) return false;
  return SAFE_SCHEMES.has(new URL(src).protocol);
}

/**
 * `item` with only its safe icons (the same object when they all are, or it has none): `icons` left out
 * when none is left.
 */
export function withSafeIcons<T extends { icons?: Icon[] }>(item: T): T {
  const { icons } = item;
  if (!Array.isArray(icons) || icons.every(isSafe)) return item;
  const kept = icons.filter(isSafe);
  const { icons: _dropped, ...rest } = item;
  return (kept.length === 0 ? rest : { ...rest, icons: kept }) as T;
}

/** `block` with only its safe icons when it is a `resource_link` (the same block otherwise). */
function safeBlock(block: ContentBlock): ContentBlock {
  // Not trusted to be a block: an upstream's result is as its client took it.
  if (typeof block !== 'object' || block === null || block.type !== 'resource_link') return block;
  return withSafeIcons(block);
}

/** A tool result whose `resource_link` blocks have only their safe icons (the same object when they all do). */
export function withSafeResultIcons(result: CallToolResult): CallToolResult {
  const content: unknown = result.content;
  if (!Array.isArray(content)) return result;
  const blocks = content as ContentBlock[];
  const safe = blocks.map(safeBlock);
  return safe.every((block, i) => block === blocks[i]) ? result : { ...result, content: safe };
}

/** A prompt whose messages' `resource_link` blocks have only their safe icons (the same object when they all do). */
export function withSafePromptIcons(result: GetPromptResult): GetPromptResult {
  const messages: unknown = result.messages;
  if (!Array.isArray(messages)) return result;
  const list = messages as GetPromptResult['messages'];
  const safe = list.map((message) => {
    const content = safeBlock(message.content);
    return content === message.content ? message : { ...message, content };
  });
  return safe.every((message, i) => message === list[i]) ? result : { ...result, messages: safe };
}
