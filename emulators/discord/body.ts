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
 * Reads a request body the way Discord accepts it: by its `Content-Type`, JSON
 * (`application/json`), multipart/form-data with a `payload_json` part and `files[n]` parts, or a
 * URL-encoded form (its fields as strings, as a webhook takes `content=...`). Malformed JSON
 * answers 400 / 50109. A body of any other type, or with none, is not read at all: Discord then
 * handles the request as if it had no body (a message comes back 400 / 50006 "Cannot send an empty
 * message", as HTTP clients that sent JSON without the header reported in 2019).
 */
export async function parseBody(contentType: string | undefined, raw: Buffer): Promise<ParsedBody> {
  const type = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (type === 'multipart/form-data') {
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
  if (type === 'application/json') return { json: parseJson(raw.toString('utf8')), files: [] };
  if (type === 'application/x-www-form-urlencoded')
    return { json: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))), files: [] };
  return { json: undefined, files: [] };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw DiscordErrors.invalidJson();
  }
}
