// A tool's result as a person reads it: text as text, images and audio of allowed types from their
// base64 only, resource links (readable through the gateway's resources/read, and openable as a link
// when they are http(s)), embedded resources, structuredContent as a tree checked against the tool's
// outputSchema, and an error result marked as one. Nothing from the result ever becomes HTML.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Schema } from '../schema/schema.js';
import { validate } from '../schema/validate.js';
import { JsonTree } from './json-tree.js';
import { audioUrl, imageUrl, webUrl } from './safe-media.js';

type Block = Record<string, unknown> & { type?: unknown };

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The contents of a resource (embedded, or read through the gateway). */
function ResourceContents({ contents }: { contents: Record<string, unknown> }) {
  const mimeType = str(contents.mimeType);
  const text = str(contents.text);
  const blob = str(contents.blob);
  const image = blob === undefined ? undefined : imageUrl(mimeType, blob);
  const audio = blob === undefined ? undefined : audioUrl(mimeType, blob);
  return (
    <div class="resource-contents">
      <div class="meta">
        <span class="uri">{str(contents.uri) ?? ''}</span>
        {mimeType && <span class="mime"> ({mimeType})</span>}
      </div>
      {text !== undefined && <pre class="text-block">{text}</pre>}
      {image && <img src={image} alt={`resource ${str(contents.uri) ?? ''}`} class="result-image" />}
      {audio && <audio controls src={audio} aria-label={`resource ${str(contents.uri) ?? ''}`} />}
      {blob !== undefined && !image && !audio && (
        <p class="muted">binary contents, {Math.floor((blob.length * 3) / 4)} bytes (not shown)</p>
      )}
    </div>
  );
}

function ResourceLink({ block }: { block: Block }) {
  const uri = str(block.uri) ?? '';
  const [read, setRead] = useState<{ contents?: Record<string, unknown>[]; error?: string } | undefined>();
  const link = webUrl(uri);
  return (
    <div class="resource-link">
      <div>
        <strong>{str(block.title) ?? str(block.name) ?? uri}</strong> <span class="uri">{uri}</span>
        {str(block.mimeType) && <span class="mime"> ({str(block.mimeType)})</span>}
      </div>
      {str(block.description) && <p class="muted">{str(block.description)}</p>}
      <div class="actions">
        <button
          type="button"
          onClick={() => {
            setRead({});
            api.read(uri).then(
              (result) => setRead({ contents: result.contents as unknown as Record<string, unknown>[] }),
              (error: Error) => setRead({ error: error.message }),
            );
          }}
        >
          Read resource
        </button>
        {link && (
          <a href={link} target="_blank" rel="noopener noreferrer">
            Open link
          </a>
        )}
      </div>
      {read?.error !== undefined && <p class="error-text">{read.error}</p>}
      {read?.contents?.map((contents, index) => (
        <ResourceContents key={index} contents={contents} />
      ))}
    </div>
  );
}

function ContentBlock({ block }: { block: Block }) {
  switch (block.type) {
    case 'text':
      return <pre class="text-block">{str(block.text) ?? ''}</pre>;
    case 'image': {
      const src = imageUrl(block.mimeType, block.data);
      return src ? (
        <img src={src} alt={`image (${String(block.mimeType)})`} class="result-image" />
      ) : (
        <p class="muted">an image of type {String(block.mimeType)} (not shown: not an allowed image type)</p>
      );
    }
    case 'audio': {
      const src = audioUrl(block.mimeType, block.data);
      return src ? (
        <audio controls src={src} aria-label={`audio (${String(block.mimeType)})`} />
      ) : (
        <p class="muted">audio of type {String(block.mimeType)} (not played: not an allowed audio type)</p>
      );
    }
    case 'resource_link':
      return <ResourceLink block={block} />;
    case 'resource': {
      const resource = block.resource;
      return resource !== null && typeof resource === 'object' ? (
        <ResourceContents contents={resource as Record<string, unknown>} />
      ) : (
        <JsonTree value={block} />
      );
    }
    default:
      return <JsonTree value={block} label="content block" />;
  }
}

/**
 * A tool call's result. `errorSays`: what the banner of an `isError` result says (by default that the tool
 * reported it; the gateway's own refusals say so instead). `fresh`: the result just came, for a call the person
 * made or watched run, and its error banner is an alert (said at once by a screen reader); the result of a
 * call that ended before it was opened is read like the rest of the page.
 */
export function ResultView({
  result,
  outputSchema,
  errorSays = 'The tool reported an error (isError)',
  fresh = false,
}: {
  result: unknown;
  outputSchema?: unknown;
  errorSays?: string;
  fresh?: boolean;
}) {
  if (result === null || typeof result !== 'object') return <JsonTree value={result} />;
  const { content, structuredContent, isError } = result as Record<string, unknown>;
  const blocks = Array.isArray(content) ? (content as Block[]) : [];
  const issues =
    structuredContent !== undefined && outputSchema !== undefined && isError !== true
      ? validate(outputSchema as Schema, structuredContent)
      : undefined;
  return (
    <div class={isError === true ? 'result is-error' : 'result'} data-testid="result">
      {isError === true && (
        <p class="error-banner" role={fresh ? 'alert' : undefined}>
          {errorSays}
        </p>
      )}
      {blocks.map((block, index) => (
        <div class="content-block" key={index}>
          <ContentBlock block={block} />
        </div>
      ))}
      {structuredContent !== undefined && (
        <section class="structured">
          <h4>
            structuredContent{' '}
            {issues === undefined ? (
              <span class="badge">no outputSchema check</span>
            ) : issues.some((issue) => issue.kind === 'too-complex') ? (
              <span class="badge warn">outputSchema too complex to check here (the gateway checks it)</span>
            ) : issues.length === 0 ? (
              <span class="badge ok">matches outputSchema</span>
            ) : (
              <span class="badge bad">breaks outputSchema</span>
            )}
          </h4>
          {issues && issues.length > 0 && issues.every((issue) => issue.kind === undefined) && (
            <ul class="field-issues">
              {issues.map((issue, index) => (
                <li key={index}>
                  {issue.path || '(root)'} {issue.message}
                </li>
              ))}
            </ul>
          )}
          <JsonTree value={structuredContent} label="structuredContent" />
        </section>
      )}
    </div>
  );
}
