/** Requests to the music emulator's accounts service, as an app would send them. */
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
