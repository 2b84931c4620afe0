/**
 * What a protocol revision has on the wire. Each revision's module declares one of these;
 * the shaping functions read nothing else.
 * @module
 */
export interface RevisionFeatures {
  /** JSON-RPC batches may be received (2025-03-26 only). */
  batching: boolean;
  /** `Tool.annotations` (ToolAnnotations). */
  toolAnnotations: boolean;
  /** `audio` content blocks. */
  audioContent: boolean;
  /** `message` on progress notifications. */
  progressMessage: boolean;
  /** the `completions` server capability. */
  completions: boolean;
  /** `context.arguments` in `completion/complete` params. */
  completionContext: boolean;
  /** `title` on tools and implementations (BaseMetadata). */
  titles: boolean;
  /** `outputSchema` on tools and `structuredContent` on results. */
  structuredContent: boolean;
  /** `resource_link` content blocks. */
  resourceLinks: boolean;
  /** `_meta` on tools and content blocks; `lastModified` in content annotations. */
  contentMeta: boolean;
  /** the `elicitation` client capability and `elicitation/create`. */
  elicitation: boolean;
  /**
   * Elicitation as 2025-11-25 has it: `mode` and URL mode, the `form` / `url` members of the `elicitation`
   * client capability; in a form's `requestedSchema`, `$schema`, a `default` on every kind of field (before:
   * on booleans only), titled single-select (`oneOf`) and multi-select (`type: "array"`) enums.
   */
  elicitationModes: boolean;
  /**
   * Sampling as 2025-11-25 has it: `tools` / `toolChoice` in `sampling/createMessage`, a message's content as
   * a list of blocks, `tool_use` / `tool_result` blocks, `_meta` on messages, and the `tools` / `context`
   * members of the `sampling` client capability.
   */
  samplingTools: boolean;
  /** `icons` on tools, resource links and implementations; `description`/`websiteUrl` on implementations. */
  icons: boolean;
  /** `$schema` inside `inputSchema` / `outputSchema`; JSON Schema 2020-12 is the default dialect. */
  schemaDialect: boolean;
  /** experimental tasks: `tasks` capabilities, `Tool.execution`. */
  tasks: boolean;
  /** the `id` of an error response may be omitted when it could not be read. */
  optionalErrorId: boolean;
  /**
   * The stateless era (2026-07-28): no handshake, the version and client capabilities in every request's
   * `_meta`; `resultType` on every result and `ttlMs` + `cacheScope` on list and read results; no `ping`,
   * `logging/setLevel` or `resources/subscribe`; an unknown resource is -32602; no server→client requests.
   */
  stateless: boolean;
}
