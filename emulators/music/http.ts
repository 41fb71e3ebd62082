/** Request and reply plumbing shared by the emulator's API and accounts handlers. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface EmulatorRequest {
  method: string;
  url: URL;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  rawBody: string;
}

export interface Reply {
  status: number;
  /** JSON when an object, HTML when a string, nothing when undefined. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** An API error: `{ error: { status, message, reason? } }`. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toReply(): Reply {
    const error: Record<string, unknown> = { status: this.status, message: this.message };
    if (this.reason !== undefined) error['reason'] = this.reason;
    return { status: this.status, body: { error }, headers: this.headers };
  }
}

/** An OAuth error from the token endpoint: always 400, `{ error, error_description }`. */
export class OAuthFailure extends Error {
  constructor(
    readonly code: string,
    readonly description: string,
  ) {
    super(description);
  }

  toReply(): Reply {
    return { status: 400, body: { error: this.code, error_description: this.description } };
  }
}

export async function readRequest(req: IncomingMessage, base: string): Promise<EmulatorRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const url = new URL(req.url ?? '/', base);
  return {
    method: req.method ?? 'GET',
    url,
    path: url.pathname,
    query: url.searchParams,
    headers: req.headers,
    rawBody: Buffer.concat(chunks).toString('utf8'),
  };
}

export function writeReply(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  let payload: string | undefined;
  if (typeof reply.body === 'string') {
    headers['content-type'] ??= 'text/html; charset=utf-8';
    payload = reply.body;
  } else if (reply.body !== undefined) {
    headers['content-type'] = 'application/json; charset=utf-8';
    payload = JSON.stringify(reply.body);
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}

/**
 * The JSON body, `{}` when there is none; 400 when it does not parse or is not an object (with
 * `notAnObject` as the message for JSON that parses but is not an object, where the service is known
 * to say something else).
 */
export function jsonBody(req: EmulatorRequest, notAnObject = 'Error parsing JSON.'): Record<string, unknown> {
  if (req.rawBody.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(req.rawBody);
  } catch {
    throw new ApiFailure(400, 'Error parsing JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ApiFailure(400, notAnObject);
  return parsed as Record<string, unknown>;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A path matcher: a string is an exact pathname, a RegExp is tested against the pathname. */
export type PathMatcher = string | RegExp;

export function matchesPath(matcher: PathMatcher | undefined, path: string): boolean {
  if (matcher === undefined) return true;
  return typeof matcher === 'string' ? matcher === path : matcher.test(path);
}
