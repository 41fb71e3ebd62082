/**
 * The permissions (scopes) a music link holds, in the member's words: for `/music status`, and for
 * the pages and the message that say a link was made with fewer than the bot asked for.
 */
import { MUSIC_SCOPES } from './oauth.js';

/** What each scope lets the bot do. */
export const SCOPE_WORDS: Readonly<Record<string, string>> = {
  'user-read-private': 'see your profile and whether it is premium',
  'user-library-modify': 'save and remove albums in your library',
  'user-read-playback-state': 'see your devices',
  'user-modify-playback-state': 'pause and skip',
  'playlist-read-private': 'read your playlists',
  'playlist-read-collaborative': 'read playlists you collaborate on',
  'playlist-modify-public': 'edit your public playlists',
  'playlist-modify-private': 'edit your private playlists',
};

/** What a link made with the `missing` permissions not granted cannot do, and why linking again may not help. */
export function notGrantedText(missing: readonly string[]): string {
  return (
    `The music service did not grant everything the bot asked for, so it cannot ${missing.join('; ')}. ` +
    'Linking again asks for the same; the music service decides what it grants.'
  );
}

/**
 * What the bot asks for that the service did not grant, in words (RFC 6749 §5.1: the token answer
 * names the scope granted when it differs from the one asked for). Linking again asks for the same,
 * and the service decides what it grants: the member is told, rather than sent round in a loop.
 */
export function missingScopes(granted: readonly string[]): string[] {
  return MUSIC_SCOPES.filter((scope) => !granted.includes(scope)).map((scope) => SCOPE_WORDS[scope] ?? scope);
}
