import type Keyv from 'keyv';
import type { MusicClient } from '../../services/music/index.js';

/** What the music domain functions work with; built per interaction from the bot context. */
export interface MusicDeps {
  client: MusicClient;
  /** Short-lived copies of upstream answers (namespace `music-cache`). */
  cache: Keyv;
  /** Each member's recently used albums and artists (namespace `music-recent`). */
  recent: Keyv;
}
