/** `/music devices`, `/music pause|next` and the player panel. Pure: data in, message JSON out. */
import { ButtonStyle } from 'discord-api-types/v10';
import type { Device } from '../../services/music/index.js';
import { encodableDeviceId, playerButton } from './music-ids.js';
import { buttonRows, type ButtonSpec, type MusicMessage } from './music-components.js';
import { clip, EMBED_LIMITS, fitEmbed, fitLines, label, md, oneLine, plural } from './music-text.js';

/** Device choice buttons on a panel: three rows of five. */
export const MAX_DEVICE_BUTTONS = 15;

export function deviceLine(device: Device, target?: string): string {
  const marks = [
    device.type === '' ? undefined : md(device.type, 40),
    device.volume_percent === null || device.volume_percent === undefined
      ? undefined
      : `volume ${device.volume_percent}%`,
    device.is_private_session ? 'private session' : undefined,
    device.is_active ? '**active**' : undefined,
    device.is_restricted ? '**not controllable** (the service refuses remote commands)' : undefined,
    target !== undefined && device.id === target ? '**buttons act here**' : undefined,
  ].filter((mark): mark is string => mark !== undefined);
  const icon = device.is_restricted ? '🔒' : device.is_active ? '▶️' : '▫️';
  return `${icon} ${md(device.name, 100, 'Unnamed device')}${marks.length > 0 ? ` — ${marks.join(' · ')}` : ''}`;
}

function deviceList(devices: readonly Device[], max: number, target?: string): string {
  if (devices.length === 0)
    return 'No devices right now. Open the music app on a phone, computer or speaker, then try again.';
  return fitLines(
    devices.map((device) => deviceLine(device, target)),
    max,
    (hidden) => `…and ${plural(hidden, 'more device')}`,
  );
}

/** `/music devices`, and the device list shown with a "no active device" error. */
export function renderDevices(devices: readonly Device[], title = 'Your devices'): MusicMessage {
  return {
    embeds: [
      fitEmbed({
        title,
        description: deviceList(devices, EMBED_LIMITS.description),
        footer: '▶️ active · 🔒 does not accept remote commands',
      }),
    ],
    components: [],
  };
}

export interface PlayerPanelInput {
  ownerId: string;
  devices: readonly Device[];
  /** The device the buttons act on; none means the active one. */
  targetId?: string | undefined;
  /** What just happened, e.g. "Paused on Kitchen speaker." */
  status?: string | undefined;
}

/** The panel: devices, Pause / Next / Refresh, and a choice of device when there are several. */
export function renderPlayerPanel(input: PlayerPanelInput): MusicMessage {
  const target = input.devices.find((device) => device.id !== null && device.id === input.targetId);
  const targetId = target?.id ?? '';
  const active = input.devices.find((device) => device.is_active);
  const aim = target ?? active;
  const lines = [
    `Panel of <@${input.ownerId}>: only they can use its buttons.`,
    aim === undefined
      ? 'Buttons act on: your active device (none right now).'
      : `Buttons act on: ${md(aim.name, 100, 'Unnamed device')}${target === undefined ? ' (the active device)' : ''}.`,
    ...(input.status === undefined ? [] : [`**${clip(oneLine(input.status), 400)}**`]),
  ];

  const id = (action: 'pause' | 'next' | 'refresh' | 'device', device: string) =>
    playerButton.encode({ owner: input.ownerId, action, device });
  const controls: ButtonSpec[] = [
    { customId: id('pause', targetId), label: '⏸ Pause', style: ButtonStyle.Primary },
    { customId: id('next', targetId), label: '⏭ Next', style: ButtonStyle.Primary },
    { customId: id('refresh', targetId), label: '↻ Refresh' },
  ];
  const choosable = input.devices.filter((device) => !device.is_restricted && encodableDeviceId(device.id));
  const choices: ButtonSpec[] =
    choosable.length < 2
      ? []
      : choosable.slice(0, MAX_DEVICE_BUTTONS).map((device) => ({
          customId: id('device', device.id ?? ''),
          label: label(device.name, 80, 'Unnamed device'),
          style: device.id === aim?.id ? ButtonStyle.Success : ButtonStyle.Secondary,
        }));
  const embed = fitEmbed({
    title: 'Player',
    description: lines.join('\n'),
    fields: [
      { name: 'Devices', value: deviceList(input.devices, EMBED_LIMITS.fieldValue, targetId || undefined) },
    ],
    // The device buttons are there only when there is a choice to make.
    footer: `${choices.length > 0 ? 'Pick a device below to send the buttons there. ' : ''}Refresh re-reads your devices.`,
  });
  return { embeds: [embed], components: buttonRows([controls, choices]) };
}

export interface PlayerOutcomeInput {
  command: 'pause' | 'next';
  device: Device | undefined;
}

/** The sentence for a player command that went through. */
export function playerStatus(outcome: PlayerOutcomeInput): string {
  const where = outcome.device === undefined ? '' : ` on ${md(outcome.device.name, 100, 'your device')}`;
  return outcome.command === 'pause' ? `Paused${where}.` : `Skipped to the next track${where}.`;
}

/** `/music pause` and `/music next`: a short confirmation. */
export function renderPlayerOutcome(outcome: PlayerOutcomeInput): MusicMessage {
  const icon = outcome.command === 'pause' ? '⏸' : '⏭';
  return { content: `${icon} ${playerStatus(outcome)}`, embeds: [], components: [] };
}
