/**
 * The member's player. Commands answer 204, or 200 with an empty or non-JSON body: their bodies are
 * never parsed. Refusals arrive typed: `PremiumRequiredError`, `NoActiveDeviceError`,
 * `PlayerRestrictionError`.
 */
import type { MusicContext } from './context.js';
import { devicesSchema, type Device } from './schemas.js';

export interface PlayerApi {
  /** The member's devices; some may be missing depending on type. */
  devices(userId: string): Promise<Device[]>;
  /** Pauses playback on the active device, or on `deviceId`. */
  pause(userId: string, options?: { deviceId?: string }): Promise<void>;
  /** Skips to the next track in the queue. */
  next(userId: string, options?: { deviceId?: string }): Promise<void>;
}

export function createPlayerApi(ctx: MusicContext): PlayerApi {
  return {
    async devices(userId) {
      const result = await ctx.json({ userId }, { url: '/v1/me/player/devices' }, devicesSchema);
      return result.devices;
    },
    pause: (userId, options = {}) =>
      ctx.empty(
        { userId },
        { method: 'PUT', url: '/v1/me/player/pause', query: { device_id: options.deviceId } },
      ),
    next: (userId, options = {}) =>
      ctx.empty(
        { userId },
        { method: 'POST', url: '/v1/me/player/next', query: { device_id: options.deviceId } },
      ),
  };
}
