import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolImageSchema, type ToolImage } from '@shared/domain';

/** Characters of a tool result the model reads at most; longer results are cut and say so. */
export const MAX_RESULT_CHARS = 100_000;

type Part = CallToolResult['content'][number];

function partText(part: Part): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.type} ${part.mimeType}, ${Math.floor((part.data.length * 3) / 4)} bytes]`;
    case 'resource':
      return 'text' in part.resource
        ? part.resource.text
        : `[resource ${part.resource.uri}${part.resource.mimeType ? ` (${part.resource.mimeType})` : ''}]`;
    case 'resource_link':
      return `[resource link ${part.uri}${part.name ? ` "${part.name}"` : ''}]`;
    default:
      return JSON.stringify(part);
  }
}

/**
 * What the model reads of a tool result: its parts as text one after another (images and other
 * binary parts named by type and size), or its structured content (or a protocol 2024-10 server's
 * `toolResult`) as JSON when it has no parts.
 */
export function resultText(result: Record<string, unknown>): string {
  const parts = Array.isArray(result.content) ? (result.content as Part[]) : [];
  let text =
    parts.length > 0
      ? parts.map(partText).join('\n')
      : result.structuredContent !== undefined
        ? JSON.stringify(result.structuredContent)
        : result.toolResult !== undefined
          ? JSON.stringify(result.toolResult)
          : '';
  if (text.length > MAX_RESULT_CHARS)
    text = `${text.slice(0, MAX_RESULT_CHARS)}\n[cut: the result has ${text.length} characters]`;
  return text;
}

/** Images a result carries that can be shown: raster types, valid base64, not too large, 8 at most. */
export function resultImages(result: Record<string, unknown>): ToolImage[] {
  const parts = Array.isArray(result.content) ? (result.content as Part[]) : [];
  const images: ToolImage[] = [];
  for (const part of parts) {
    if (part.type !== 'image' || images.length >= 8) continue;
    const image = toolImageSchema.safeParse({ mimeType: part.mimeType, data: part.data });
    if (image.success) images.push(image.data);
  }
  return images;
}
