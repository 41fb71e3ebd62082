/** The member's devices and the two player commands the service offers: pause and next. */
import { z } from 'zod';
import type { Device } from '../../services/music/index.js';
import { readCached, within } from './cache.js';
import type { MusicDeps } from './deps.js';
import { MusicInputError, shorten } from './errors.js';

/** Devices are listed for autocomplete from a copy this fresh, or from a quick call. */
const DEVICE_CACHE_TTL_MS = 60_000;

const deviceChoicesSchema = z.array(z.object({ id: z.string(), name: z.string(), restricted: z.boolean() }));
export type DeviceChoice = z.output<typeof deviceChoicesSchema>[number];

const devicesKey = (userId: string) => `devices:${userId}`;

export async function listDevices(deps: MusicDeps, userId: string): Promise<Device[]> {
  const devices = await deps.client.player.devices(userId);
  const choices: DeviceChoice[] = devices.flatMap((device) =>
    device.id === null ? [] : [{ id: device.id, name: device.name, restricted: device.is_restricted }],
  );
  await deps.cache.set(devicesKey(userId), choices, DEVICE_CACHE_TTL_MS);
  return devices;
}

/** Devices for autocomplete: the recent copy, or a call that must answer within `timeoutMs`. */
export async function deviceChoices(
  deps: MusicDeps,
  userId: string,
  timeoutMs: number,
): Promise<DeviceChoice[]> {
  const hit = await readCached(deps.cache, devicesKey(userId), deviceChoicesSchema);
  if (hit !== undefined) return hit;
  await within(listDevices(deps, userId), timeoutMs);
  return (await readCached(deps.cache, devicesKey(userId), deviceChoicesSchema)) ?? [];
}

/** A device by id, or by name as typed (case and surrounding spaces ignored). */
export function findDevice(devices: readonly Device[], input: string): Device | undefined {
  const wanted = input.trim();
  return (
    devices.find((device) => device.id === wanted) ??
    devices.find((device) => device.name.trim().toLowerCase() === wanted.toLowerCase())
  );
}

export type PlayerCommand = 'pause' | 'next';

export interface PlayerOutcome {
  command: PlayerCommand;
  /** Where the command went: the chosen device, else the active one (if the service lists it). */
  device: Device | undefined;
  devices: Device[];
}

async function runPlayerCommand(
  deps: MusicDeps,
  userId: string,
  command: PlayerCommand,
  deviceInput: string | undefined,
): Promise<PlayerOutcome> {
  const devices = await listDevices(deps, userId);
  let target: Device | undefined;
  if (deviceInput !== undefined && deviceInput.trim() !== '') {
    target = findDevice(devices, deviceInput);
    if (target === undefined || target.id === null) {
      const names = devices.slice(0, 10).map((device) => `“${shorten(device.name, 40)}”`);
      if (devices.length > 10) names.push(`${devices.length - 10} more`);
      throw new MusicInputError(
        `You have no device called “${shorten(deviceInput)}”. Your devices: ${names.join(', ') || 'none'}.`,
      );
    }
    if (target.is_restricted) {
      throw new MusicInputError(
        `“${shorten(target.name)}” does not accept remote commands: the music service marks it as restricted. Pick another device.`,
      );
    }
  }
  const options = target?.id ? { deviceId: target.id } : {};
  if (command === 'pause') await deps.client.player.pause(userId, options);
  else await deps.client.player.next(userId, options);
  target ??= devices.find((device) => device.is_active);
  return { command, device: target, devices };
}

/** `/music pause` and the panel's Pause button. */
export const pausePlayback = (deps: MusicDeps, userId: string, device?: string) =>
  runPlayerCommand(deps, userId, 'pause', device);

/** `/music next` and the panel's Next button. */
export const skipToNext = (deps: MusicDeps, userId: string, device?: string) =>
  runPlayerCommand(deps, userId, 'next', device);
