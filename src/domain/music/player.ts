/** The member's devices and the two player commands the service offers: pause and next. */
import { z } from 'zod';
import { unanswered } from '../../services/http/errors.js';
import {
  ChosenDeviceNotPlayingError,
  NoActiveDeviceError,
  UnconfirmedSkipError,
  type Device,
} from '../../services/music/index.js';
import { byTypedName, formatCount, joinList, quoteText } from '../text.js';
import { readCached, within } from './cache.js';
import type { MusicDeps } from './deps.js';
import { MusicInputError } from './errors.js';

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

/**
 * A device by id, or by name as typed (case and surrounding spaces ignored), else folded alike
 * (`Alice's phone` for “Alice’s phone”; see `byTypedName`). Several answering to the name
 * (`Living Room 🔊` and `Living Room 📺` for `living room`) are refused, naming them: a command
 * is not sent to a device picked at random.
 */
export function findDevice(devices: readonly Device[], input: string): Device | undefined {
  const wanted = input.trim();
  const byId = devices.find((device) => device.id === wanted);
  if (byId !== undefined) return byId;
  const named = byTypedName(devices, input, (device) => device.name);
  if (named.length > 1) {
    throw new MusicInputError(
      `${formatCount(named.length)} of your devices answer to “${quoteText(input)}”: ${deviceNames(named)}. ` +
        'Pick one from the suggestions.',
    );
  }
  return named[0];
}

export type PlayerCommand = 'pause' | 'next';

/** Where the device to act on came from: typed in a command's option, or carried by a panel's button. */
export type DeviceSource = 'option' | 'panel';

export interface PlayerOutcome {
  command: PlayerCommand;
  /** Where the command went: the chosen device, else the active one (if the service lists it). */
  device: Device | undefined;
  devices: Device[];
}

const quoted = (device: Device) => `“${quoteText(device.name)}”`;

/** `“A”, “B”, and “C”`; past ten, `…, “J”, and 3 more`. */
function deviceNames(devices: readonly Device[]): string {
  const names = devices.map((device) => `“${quoteText(device.name, 40)}”`);
  return joinList(names, { max: 10 }) || 'none';
}

/**
 * The shape of the service's device ids (40 hex characters): what a suggestion puts in the option.
 * Typed as it is and matching no device, it is a suggestion from before the device went (or an
 * older list), not a name.
 */
const DEVICE_ID = /^[0-9a-f]{40}$/i;

function unknownDevice(devices: readonly Device[], input: string, source: DeviceSource): MusicInputError {
  if (source === 'option' && DEVICE_ID.test(input.trim()))
    return new MusicInputError(
      devices.length === 0
        ? 'That device is no longer among your devices, and you have none right now: open the music app on one.'
        : `That device is no longer among your devices. Your devices: ${deviceNames(devices)}.`,
    );
  if (source === 'option')
    return new MusicInputError(
      `You have no device called “${quoteText(input)}”. Your devices: ${deviceNames(devices)}.`,
    );
  return new MusicInputError(
    devices.length === 0
      ? 'The device this panel was set to is no longer among your devices, and you have none right ' +
          'now: open the music app on one, then press ↻ Refresh.'
      : `The device this panel was set to is no longer among your devices. Your devices: ` +
          `${deviceNames(devices)}. Press ↻ Refresh, or pick another device.`,
  );
}

/**
 * The service pauses and skips on the active device (the one playing, or paused last): a chosen
 * device that is not it gets NO_ACTIVE_DEVICE. Say so, and which device is active when the list
 * shows it (active is not playing: it may be paused, and Next works there all the same).
 */
function notActiveMessage(chosen: Device, devices: readonly Device[]): string {
  const start = `start playing on ${quoted(chosen)} first`;
  // The list said it was active, the service found it not (it went idle meanwhile).
  if (chosen.is_active) return `The music service says ${quoted(chosen)} is not active any more: ${start}.`;
  const head = `${quoted(chosen)} is not your active device, and Pause and Next work only on that one`;
  const active = devices.find((device) => device.is_active && device.id !== chosen.id);
  if (active === undefined) return `${head}: ${start}.`;
  if (active.is_restricted)
    return `${head}. Your active device is ${quoted(active)}, which does not accept remote commands: ${start}.`;
  return `${head}. Your active device is ${quoted(active)}: pick it, or ${start}.`;
}

/** A device the service marks as restricted accepts no commands through the API. */
const restrictedError = (device: Device) =>
  new MusicInputError(
    `${quoted(device)} does not accept remote commands: the music service marks it as restricted. Pick another device.`,
  );

/**
 * The active device is restricted. Another device cannot be picked instead: Pause and Next work
 * only on the active one (see {@link notActiveMessage}), so the member acts there, or makes another
 * device the active one by playing on it.
 */
const restrictedActiveError = (device: Device, command: PlayerCommand) =>
  new MusicInputError(
    `Your active device ${quoted(device)} does not accept remote commands (the music service marks it ` +
      `as restricted): ${command === 'pause' ? 'pause it there' : 'skip the track there'}, or start ` +
      'playing on another device first.',
  );

async function runPlayerCommand(
  deps: MusicDeps,
  userId: string,
  command: PlayerCommand,
  deviceInput: string | undefined,
  source: DeviceSource,
): Promise<PlayerOutcome> {
  const devices = await listDevices(deps, userId);
  let target: Device | undefined;
  if (deviceInput !== undefined && deviceInput.trim() !== '') {
    // A button carries the id it was given; only a typed option may name a device.
    target =
      source === 'panel'
        ? devices.find((device) => device.id === deviceInput)
        : findDevice(devices, deviceInput);
    if (target === undefined) throw unknownDevice(devices, deviceInput, source);
    // The service lists some devices without an id (upstream-facts: `id` may be null): nothing can
    // name them in a command, though one of them may be the active device.
    if (target.id === null) {
      throw new MusicInputError(
        `The music service gives ${quoted(target)} no id, so a command cannot be sent to it by name. ` +
          'Leave the device out to act on your active device, if that is the one.',
      );
    }
    if (target.is_restricted) throw restrictedError(target);
  } else {
    // Without a device named, the command goes to the active one: refused there when it is restricted.
    const active = devices.find((device) => device.is_active);
    if (active?.is_restricted === true) throw restrictedActiveError(active, command);
  }
  const options = target?.id ? { deviceId: target.id } : {};
  try {
    if (command === 'pause') await deps.client.player.pause(userId, options);
    else await deps.client.player.next(userId, options);
  } catch (error) {
    if (target !== undefined && error instanceof NoActiveDeviceError)
      throw new ChosenDeviceNotPlayingError(error, notActiveMessage(target, devices));
    // Next is never retried: pressing it again after such a failure could skip two tracks.
    if (command === 'next' && unanswered(error)) throw new UnconfirmedSkipError(error);
    throw error;
  }
  target ??= devices.find((device) => device.is_active);
  return { command, device: target, devices };
}

/** `/music pause` and the panel's Pause button (`source`: where `device` came from). */
export const pausePlayback = (
  deps: MusicDeps,
  userId: string,
  device?: string,
  source: DeviceSource = 'option',
) => runPlayerCommand(deps, userId, 'pause', device, source);

/** `/music next` and the panel's Next button (`source`: where `device` came from). */
export const skipToNext = (
  deps: MusicDeps,
  userId: string,
  device?: string,
  source: DeviceSource = 'option',
) => runPlayerCommand(deps, userId, 'next', device, source);
