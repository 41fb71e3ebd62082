/** Requests to the music emulator, as an app would send them. */
import type { MusicEmulator } from '../../emulators/music/index.js';

/** `POST /api/token` for an app token (client credentials, with the client's Basic credentials). */
export function requestAppToken(emulator: MusicEmulator): Promise<Response> {
  const basic = Buffer.from(`${emulator.clientId}:${emulator.clientSecret}`).toString('base64');
  return fetch(`${emulator.authUrl}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
    body: 'grant_type=client_credentials',
  });
}

/** A call to the music emulator's API with `token`: its status, `Retry-After` and parsed body. */
export async function callMusicApi(
  emulator: MusicEmulator,
  token: string,
  path: string,
  method = 'GET',
): Promise<{ status: number; retryAfter: string | null; body: unknown }> {
  const response = await fetch(`${emulator.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
}
