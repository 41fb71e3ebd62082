import { Response } from 'undici';
import { DiscordErrors } from './errors.js';

/** A file part of a multipart request: `files[n]` (or `file`), with its bytes. */
export interface UploadedFile {
  /** `n` of `files[n]`, which the payload's `attachments[].id` refers to. */
  key: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface ParsedBody {
  /** The JSON body, or the multipart request's `payload_json` (or its plain fields). */
  json: unknown;
  files: UploadedFile[];
}

const FILE_FIELD = /^files\[(.+)\]$/;

/**
 * Reads a request body the way Discord accepts it: JSON, or multipart/form-data with a
 * `payload_json` part and `files[n]` parts. Malformed JSON answers 400 / 50109.
 */
export async function parseBody(contentType: string | undefined, raw: Buffer): Promise<ParsedBody> {
  if (contentType?.toLowerCase().startsWith('multipart/form-data')) {
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    const files: UploadedFile[] = [];
    const fields: Record<string, unknown> = {};
    let payload: unknown;
    let fileIndex = 0;
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') {
        if (name === 'payload_json') payload = parseJson(value);
        else fields[name] = value;
        continue;
      }
      const key = FILE_FIELD.exec(name)?.[1] ?? String(fileIndex);
      fileIndex += 1;
      files.push({
        key,
        filename: value.name,
        contentType: value.type,
        data: Buffer.from(await value.arrayBuffer()),
      });
    }
    return { json: payload ?? fields, files };
  }
  if (raw.length === 0) return { json: undefined, files: [] };
  return { json: parseJson(raw.toString('utf8')), files: [] };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw DiscordErrors.invalidJson();
  }
}
