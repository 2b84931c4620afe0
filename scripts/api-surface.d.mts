import type { ProjectReflection, ReflectionKind } from 'typedoc';

/** docs/API.md. */
export declare const API_MD: string;
/** docs/API.md's text for a converted TypeDoc project (`kindName(kind)` names a reflection's kind). */
export declare function surfaceMarkdown(
  project: ProjectReflection,
  kindName: (kind: ReflectionKind) => string,
): string;
