/**
 * How `toolwire resources`, `read`, `prompts` and `prompt` print what they get: one block per resource,
 * template or prompt (name and title, then indented facts), a resource's contents as they are (text as
 * text, binary as a one-line summary), a prompt's messages under their role. A line that shows what the
 * server names (a name, title, URI, MIME type, description, argument) is one line whatever line breaks the
 * server put in it (written out as `\n`: `oneLine`), so that it cannot write what reads as a line of its own.
 * @module
 */
import type {
  GetPromptResult,
  Implementation,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from '../protocol/index.js';
import { base64Size, formatBlock } from './format-result.js';
import { oneLine } from './terminal-text.js';

/** `protocol-fixture 1.0.0 (protocol 2025-11-25): 4 resources, 2 templates`. */
export function serverLine(
  server: Implementation | undefined,
  protocolVersion: string | undefined,
  counts: ReadonlyArray<[count: number, noun: string]>,
): string {
  const header = `${server?.name ?? 'server'} ${server?.version ?? ''}`.trim();
  const parts = counts.map(([count, noun]) => `${count} ${noun}${count === 1 ? '' : 's'}`);
  return `${oneLine(header)} (protocol ${protocolVersion ?? '?'}): ${parts.join(', ')}\n`;
}

/** `name — title, mime, N bytes`: a resource's or template's second line. */
function nameLine(item: { name: string; title?: string; mimeType?: string }, size?: number): string {
  const name = item.title && item.title !== item.name ? `${item.name} — ${item.title}` : item.name;
  const facts = [name, item.mimeType, size === undefined ? undefined : `${size} bytes`];
  return `  ${facts.filter((fact) => fact !== undefined).join(', ')}`;
}

function firstLine(text: string, max = 120): string {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The block for one resource: its URI, then name and title, MIME type, size; its description. */
export function describeResource(resource: Resource): string {
  const lines = [resource.uri, nameLine(resource, resource.size)];
  if (resource.description) lines.push(`  ${firstLine(resource.description)}`);
  return lines.map(oneLine).join('\n');
}

/** The block for one resource template: its URI template, then as a resource's. */
export function describeTemplate(template: ResourceTemplate): string {
  const lines = [template.uriTemplate, nameLine(template)];
  if (template.description) lines.push(`  ${firstLine(template.description)}`);
  return lines.map(oneLine).join('\n');
}

/** The block for one prompt: name and title, description, its arguments (`topic (required), style?`). */
export function describePrompt(prompt: Prompt): string {
  const lines = [
    prompt.title && prompt.title !== prompt.name ? `${prompt.name} — ${prompt.title}` : prompt.name,
  ];
  if (prompt.description) lines.push(`  ${firstLine(prompt.description)}`);
  const args = (prompt.arguments ?? []).map((arg) =>
    arg.required ? `${arg.name} (required)` : `${arg.name}?`,
  );
  lines.push(`  arguments: ${args.length === 0 ? '(none)' : args.join(', ')}`);
  return lines.map(oneLine).join('\n');
}

/**
 * A read resource as text: one content's text as it is; a binary content as
 * `[blob uri mime, N bytes]`; several contents each under a `--- uri (mime)` line.
 */
export function formatContents(result: ReadResourceResult): string {
  const several = result.contents.length > 1;
  const parts = result.contents.map((content) => {
    const mime = content.mimeType ? ` ${content.mimeType}` : '';
    const body =
      'text' in content
        ? content.text.endsWith('\n') || content.text === ''
          ? content.text
          : `${content.text}\n`
        : `${oneLine(`[blob ${content.uri}${mime}, ${base64Size(content.blob)} bytes]`)}\n`;
    return several ? `${oneLine(`--- ${content.uri}${mime}`)}\n${body}` : body;
  });
  return parts.join('');
}

/** A prompt's messages: `[user]` (or `[assistant]`), then the content as `toolwire call` prints it. */
export function formatPrompt(result: GetPromptResult): string {
  const parts = result.description ? [`${result.description}\n`] : [];
  for (const message of result.messages) parts.push(`[${message.role}]\n${formatBlock(message.content)}\n`);
  return parts.join('\n');
}
