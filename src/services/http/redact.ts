/**
 * Redaction of secrets from anything that may reach a log line or an error message:
 * URLs (query parameters), header maps and free text.
 */

/** Query and form parameter names whose values are secrets. */
export const SECRET_PARAMS: ReadonlySet<string> = new Set([
  'appid',
  'api_key',
  'apikey',
  'key',
  'code',
  'state',
  // A start link's ticket (`/link/start?ticket=…`), which begins linking for the member it was made for.
  'ticket',
  'code_verifier',
  'client_secret',
  'access_token',
  'refresh_token',
  'token',
  'id_token',
]);

/** Header names whose values are secrets. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
]);

export const REDACTED = '[REDACTED]';

/** Returns the URL with every secret query parameter's value replaced; keeps the rest readable. */
export function redactUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactText(String(url));
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAMS.has(name.toLowerCase())) parsed.searchParams.set(name, REDACTED);
  }
  // URLSearchParams encodes the brackets; keep the marker readable.
  return parsed.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED);
}

/** Returns a copy of the headers with secret values replaced. */
export function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value,
    ]),
  );
}

const secretAssignment = new RegExp(`\\b(${[...SECRET_PARAMS].join('|')})=([^&\\s"']+)`, 'gi');
const bearer = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
/**
 * Discord's webhook and interaction tokens travel in the path, not the query:
 * `/webhooks/{id}/{token}/…` and `/interactions/{id}/{token}/callback`. Either lets whoever holds it
 * post as the app (an interaction token for 15 minutes), so the segment after the id is removed.
 */
const pathToken = /(\/(?:webhooks|interactions)\/\d{1,20}\/)([^/?#\s"']+)/g;

/**
 * Removes secrets from free text: `name=value` pairs with a secret name, `Bearer`/`Basic`
 * credentials, webhook and interaction tokens in Discord paths, and every literal secret in `known`
 * (tokens the caller holds).
 */
export function redactText(text: string, known: Iterable<string> = []): string {
  let out = text.replace(secretAssignment, (_m, name: string) => `${name}=${REDACTED}`);
  out = out.replace(bearer, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(pathToken, (_m, prefix: string) => `${prefix}${REDACTED}`);
  for (const secret of known) {
    // Short strings would redact ordinary words; real secrets are long.
    if (secret.length < 8) continue;
    // Hex digits mean the same in either case (an encryption key may be written in mixed case).
    out = HEX.test(secret) ? out.replace(anyCase(secret), REDACTED) : out.split(secret).join(REDACTED);
  }
  return out;
}

const HEX = /^[0-9a-f]+$/i;
/** The few secrets a process holds are redacted from every log line: each pattern is built once. */
const anyCasePatterns = new Map<string, RegExp>();
function anyCase(hex: string): RegExp {
  let pattern = anyCasePatterns.get(hex);
  if (!pattern) {
    if (anyCasePatterns.size >= 64) anyCasePatterns.clear();
    pattern = new RegExp(hex, 'gi');
    anyCasePatterns.set(hex, pattern);
  }
  return pattern;
}

/**
 * A copy of a parsed body safe to keep on an error: every string passed through {@link redactText},
 * and the value of every key named like a secret parameter replaced.
 */
export function redactValue(value: unknown, known: Iterable<string> = []): unknown {
  const secrets = [...known];
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node === 'string') return redactText(node, secrets);
    if (typeof node !== 'object' || node === null || depth > 32) return node;
    if (Array.isArray(node)) return node.map((item) => walk(item, depth + 1));
    return Object.fromEntries(
      Object.entries(node).map(([name, item]) => [
        name,
        SECRET_PARAMS.has(name.toLowerCase()) && item !== null && item !== undefined
          ? REDACTED
          : walk(item, depth + 1),
      ]),
    );
  };
  return walk(value, 0);
}
