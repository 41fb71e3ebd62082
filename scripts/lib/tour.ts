/**
 * The demo's scripted tour: every command, driven through the Discord emulator like a member
 * would (autocomplete included), each answer checked. Alice owns the server and links the premium
 * music account; Bob is the second member, who finds Alice's panels refuse him.
 */
import type { APIMessage } from 'discord-api-types/v10';
import type { DiscordEmulator } from '../../emulators/discord/index.js';
import type { MusicEmulator } from '../../emulators/music/index.js';
import type { WeatherEmulator } from '../../emulators/weather/index.js';
import { completeLink } from '../../emulators/music/walk.js';
import { messageText, type Names } from './print.js';

export interface TourWorld {
  discord: DiscordEmulator;
  music: MusicEmulator;
  weather: WeatherEmulator;
  guildId: string;
  channelId: string;
  /** The member who owns the server, links the premium music account and runs the tour. */
  userId: string;
  /** A second member, to see the owner-only panels refuse someone else. */
  otherUserId: string;
}

/** Who and where the tour's mentions name. */
function namesOf(world: TourWorld): Names {
  return { [world.userId]: '@Alice', [world.otherUserId]: '@Bob', [world.channelId]: '#general' };
}

type Answer = Pick<APIMessage, 'id' | 'content' | 'embeds' | 'components' | 'attachments' | 'flags'>;

interface Step {
  say: string;
  run(world: TourWorld, print: (line: string) => void): Promise<Answer>;
  /** What the answer must show for the step to count as passed. */
  expect(answer: Answer): boolean;
}

type OptionValues = Record<string, string | number | boolean>;

interface CommandPath {
  group?: string;
  sub?: string;
  options?: OptionValues;
  userId?: string;
}

function slash(world: TourWorld, name: string, path: CommandPath = {}) {
  return world.discord.slash({
    guildId: world.guildId,
    channelId: world.channelId,
    userId: path.userId ?? world.userId,
    name,
    ...(path.group === undefined ? {} : { subcommandGroup: path.group }),
    ...(path.sub === undefined ? {} : { subcommand: path.sub }),
    ...(path.options === undefined ? {} : { options: path.options }),
  });
}

/** Types `typed` into `focused` and takes the bot's first choice whose name contains `want`. */
async function pick(
  world: TourWorld,
  name: string,
  path: CommandPath & { focused: string; typed: string; want?: string },
  print: (line: string) => void,
): Promise<string> {
  const choices = await world.discord.autocomplete({
    guildId: world.guildId,
    channelId: world.channelId,
    userId: path.userId ?? world.userId,
    name,
    ...(path.group === undefined ? {} : { subcommandGroup: path.group }),
    ...(path.sub === undefined ? {} : { subcommand: path.sub }),
    options: { ...path.options, [path.focused]: path.typed },
    focused: path.focused,
  });
  const choice = choices.find((c) => path.want === undefined || c.name.includes(path.want));
  if (!choice) throw new Error(`no autocomplete choice for "${path.typed}" contains "${path.want ?? ''}"`);
  print(`  (autocomplete "${path.typed}" → ${choice.name})`);
  return String(choice.value);
}

interface ButtonLike {
  type: number;
  label?: string;
  url?: string;
  custom_id?: string;
}

function buttons(message: Pick<APIMessage, 'components'>): ButtonLike[] {
  return (message.components ?? []).flatMap(
    (row) => (row as { components?: ButtonLike[] }).components?.filter((c) => c.type === 2) ?? [],
  );
}

function linkUrl(message: Pick<APIMessage, 'components'>): string {
  const url = buttons(message).find((button) => typeof button.url === 'string')?.url;
  if (url === undefined) throw new Error('no link button in the answer');
  return url;
}

function buttonLabelled(message: Pick<APIMessage, 'components'>, label: RegExp) {
  const button = buttons(message).find((candidate) => label.test(candidate.label ?? ''));
  if (button?.custom_id === undefined) throw new Error(`no button labelled ${label.source} in the answer`);
  return { customId: button.custom_id, label: button.label ?? label.source };
}

/** Clicks a button by label and returns the message it leaves: the updated one, or the reply. */
async function click(
  world: TourWorld,
  message: Answer,
  label: RegExp,
  print: (line: string) => void,
  userId = world.userId,
): Promise<Answer> {
  print(messageText(message, namesOf(world)));
  const button = buttonLabelled(message, label);
  print(`  (${userId === world.userId ? 'Alice' : 'Bob'} presses ${button.label})`);
  const handle = world.discord.clickButton({ userId, message, customId: button.customId });
  return handle.reply();
}

const text = (answer: Pick<APIMessage, 'content' | 'embeds'>): string =>
  [
    answer.content,
    ...answer.embeds.flatMap((e) => [
      e.title,
      e.description,
      e.footer?.text,
      ...(e.fields ?? []).flatMap((f) => [f.name, f.value]),
    ]),
  ]
    .filter((part): part is string => typeof part === 'string')
    .join('\n');

const shows = (pattern: RegExp) => (answer: Answer) => pattern.test(text(answer));
const hasChart = (answer: Answer) =>
  answer.embeds.length > 0 &&
  (answer.attachments.some((a) => a.content_type === 'image/png') ||
    answer.embeds.some((e) => e.image?.url !== undefined));
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const springfield = (world: TourWorld, name: string, path: CommandPath, print: (line: string) => void) =>
  pick(world, name, { ...path, focused: 'place', typed: 'Springfield', want: 'Missouri' }, print);

const weather = (sub: string, options: OptionValues = {}, group?: string) => ({
  name: 'weather',
  path: { sub, options, ...(group === undefined ? {} : { group }) } satisfies CommandPath,
});

/** A weather step whose `place` comes from the Springfield autocomplete. */
function weatherAt(sub: string, options: OptionValues, expect: (answer: Answer) => boolean): Step {
  return {
    say: `/weather ${sub} place:Springfield (Missouri, from autocomplete) ${Object.entries(options)
      .map(([k, v]) => `${k}:${String(v)}`)
      .join(' ')}`,
    async run(world, print) {
      const { name, path } = weather(sub, options);
      const place = await springfield(world, name, path, print);
      return slash(world, name, { ...path, options: { ...options, place } }).reply(15_000);
    },
    expect,
  };
}

/** A schedule step that picks the schedule through the bot's `id` autocomplete. */
function scheduleStep(sub: string, expect: RegExp): Step {
  return {
    say: `/weather schedule ${sub} id:(the Springfield schedule, from autocomplete)`,
    async run(world, print) {
      const id = await pick(
        world,
        'weather',
        { group: 'schedule', sub, focused: 'id', typed: '', want: 'Springfield' },
        print,
      );
      return slash(world, 'weather', { group: 'schedule', sub, options: { id } }).reply(15_000);
    },
    expect: shows(expect),
  };
}

function music(sub: string, options: OptionValues = {}, group?: string): CommandPath {
  return { sub, options, ...(group === undefined ? {} : { group }) };
}

/**
 * Road trip is Alice's private playlist: the bot answers about it to her alone, never in the
 * channel. Having seen it in her suggestions, the bot acknowledges in private and answers in
 * place; otherwise its answer is a private follow-up.
 */
async function privately(handle: ReturnType<typeof slash>): Promise<Answer> {
  const ack = await handle.waitForCallback(15_000);
  const inPrivate = ((ack.data as { flags?: number } | undefined)?.flags ?? 0) & 64;
  return inPrivate ? handle.reply(15_000) : handle.waitForFollowUp(15_000);
}

const playlistPick = (world: TourWorld, sub: string, print: (line: string) => void) =>
  pick(
    world,
    'music',
    { group: 'playlist', sub, focused: 'playlist', typed: 'Road', want: 'Road trip' },
    print,
  );

export const steps: Step[] = [
  {
    say: '/help',
    run: (world) => slash(world, 'help').reply(),
    expect: (answer) => (answer.embeds[0]?.fields?.length ?? 0) > 0,
  },

  // ---------------------------------------------------------------- weather
  weatherAt('now', {}, (answer) => answer.embeds[0]?.title?.startsWith('Springfield, Missouri') === true),
  weatherAt('hourly', { hours: 24 }, hasChart),
  weatherAt('daily', { days: 7 }, hasChart),
  weatherAt('history', { hours: 24 }, hasChart),
  weatherAt('stats', { month: 7, day: 15 }, shows(/Springfield/)),
  {
    say: '/weather accumulated place:Springfield start:(30 days ago)',
    async run(world, print) {
      const { name, path } = weather('accumulated');
      const start = isoDay(world.weather.now() - 30 * 86_400_000);
      const place = await springfield(world, name, { ...path, options: { start } }, print);
      return slash(world, name, { ...path, options: { start, place } }).reply(15_000);
    },
    expect: shows(/Springfield/),
  },
  {
    say: '/weather units units:metric',
    run: (world) => slash(world, 'weather', { sub: 'units', options: { units: 'metric' } }).reply(),
    expect: shows(/metric/i),
  },
  {
    say: '/weather home set place:Paris (France, from autocomplete)',
    async run(world, print) {
      const path = { group: 'home', sub: 'set' };
      const place = await pick(
        world,
        'weather',
        { ...path, focused: 'place', typed: 'Paris', want: 'France' },
        print,
      );
      return slash(world, 'weather', { ...path, options: { place } }).reply();
    },
    expect: shows(/Paris/),
  },
  {
    say: '/weather home show',
    run: (world) => slash(world, 'weather', { group: 'home', sub: 'show' }).reply(),
    expect: shows(/Paris/),
  },
  {
    say: '/weather now  (no place: the home place)',
    run: (world) => slash(world, 'weather', { sub: 'now' }).reply(15_000),
    expect: (answer) => answer.embeds[0]?.title?.startsWith('Paris') === true,
  },
  {
    say: '/weather now place:10117, DE  (a postal code and its country)',
    run: (world) => slash(world, 'weather', { sub: 'now', options: { place: '10117, DE' } }).reply(15_000),
    expect: (answer) => answer.embeds[0]?.title === 'Berlin (10117), DE',
  },
  {
    say: '/weather home server place:London (England)  (Alice owns the server)',
    async run(world, print) {
      const path = { group: 'home', sub: 'server' };
      const place = await pick(
        world,
        'weather',
        { ...path, focused: 'place', typed: 'London', want: 'England' },
        print,
      );
      return slash(world, 'weather', { ...path, options: { place } }).reply();
    },
    expect: shows(/London/),
  },
  {
    say: '/weather home server place:London  as Bob, without Manage Server',
    run: (world) =>
      slash(world, 'weather', {
        group: 'home',
        sub: 'server',
        options: { place: 'London' },
        userId: world.otherUserId,
      }).reply(),
    expect: shows(/may manage this server/),
  },
  {
    say: '/weather home clear',
    run: (world) => slash(world, 'weather', { group: 'home', sub: 'clear' }).reply(),
    expect: (answer) => text(answer).length > 0,
  },
  {
    say: '/weather home server-clear',
    run: (world) => slash(world, 'weather', { group: 'home', sub: 'server-clear' }).reply(),
    expect: (answer) => text(answer).length > 0,
  },
  {
    say: '/weather schedule add place:Springfield time:07:00 timezone:America/Chicago kind:today',
    async run(world, print) {
      const path = { group: 'schedule', sub: 'add' };
      const place = await springfield(world, 'weather', path, print);
      const timezone = await pick(
        world,
        'weather',
        {
          ...path,
          options: { place, time: '07:00' },
          focused: 'timezone',
          typed: 'Chicago',
          want: 'Chicago',
        },
        print,
      );
      return slash(world, 'weather', {
        ...path,
        options: { place, time: '07:00', timezone, kind: 'today' },
      }).reply(15_000);
    },
    expect: shows(/07:00/),
  },
  {
    say: '/weather schedule list',
    run: (world) => slash(world, 'weather', { group: 'schedule', sub: 'list' }).reply(),
    expect: shows(/Springfield/),
  },
  scheduleStep('test', /Springfield|posted/i),
  scheduleStep('pause', /pause/i),
  scheduleStep('resume', /resume|running|again/i),
  scheduleStep('remove', /remove|delete/i),

  // ---------------------------------------------------------------- music
  {
    say: '/music status  (before linking)',
    run: (world) => slash(world, 'music', music('status')).reply(),
    expect: shows(/\/music link/),
  },
  {
    say: '/music link  (then the member opens the button and agrees on the music service)',
    async run(world, print) {
      const handle = slash(world, 'music', music('link'));
      const prompt = await handle.reply();
      print(messageText(prompt, namesOf(world)));
      const page = await completeLink(world.music, linkUrl(prompt), world.music.fixtures!.users.premium);
      print(`  (browser) ${/<h1>(.*?)<\/h1>/.exec(page.body)?.[1] ?? page.status}`);
      print('  (the ephemeral message is then edited to:)');
      return handle.waitForEdit();
    },
    expect: (answer) => answer.embeds[0]?.title === 'Music account linked',
  },
  {
    say: '/music status',
    run: (world) => slash(world, 'music', music('status')).reply(),
    expect: (answer) => answer.embeds[0]?.title === 'Your music account',
  },
  {
    say: '/music album album:(the 120-track album, by id), then Next',
    async run(world, print) {
      const album = world.music.fixtures!.catalog.longAlbumId;
      const answer = await slash(world, 'music', music('album', { album })).reply(15_000);
      return click(world, answer, /Tracks ▶/, print);
    },
    expect: shows(/page 2 of 6/),
  },
  {
    say: '/music album album:(the album just seen, from autocomplete of recent albums)',
    async run(world, print) {
      const album = await pick(world, 'music', { ...music('album'), focused: 'album', typed: '' }, print);
      return slash(world, 'music', music('album', { album })).reply(15_000);
    },
    expect: shows(/Tracks 1–20 of 120/),
  },
  {
    say: '/music artist artist:(by id)',
    run: (world) =>
      slash(world, 'music', music('artist', { artist: world.music.fixtures!.catalog.artistId })).reply(
        15_000,
      ),
    expect: (answer) => answer.embeds.length > 0,
  },
  {
    say: '/music artists artists:(three ids)',
    run: (world) =>
      slash(
        world,
        'music',
        music('artists', { artists: world.music.fixtures!.artistIds.slice(0, 3).join(',') }),
      ).reply(15_000),
    expect: (answer) => answer.embeds.length > 0,
  },
  {
    say: '/music library save albums:(the EP)',
    run: (world) =>
      slash(
        world,
        'music',
        music('save', { albums: world.music.fixtures!.catalog.epAlbumId }, 'library'),
      ).reply(15_000),
    expect: shows(/sav/i),
  },
  {
    say: '/music library remove albums:(the EP)',
    run: (world) =>
      slash(
        world,
        'music',
        music('remove', { albums: world.music.fixtures!.catalog.epAlbumId }, 'library'),
      ).reply(15_000),
    expect: shows(/out of your library/),
  },
  {
    say: '/music devices',
    run: (world) => slash(world, 'music', music('devices')).reply(15_000),
    expect: (answer) => answer.embeds[0]?.title === 'Your devices',
  },
  {
    say: '/music player, then Pause on the panel',
    async run(world, print) {
      const panel = await slash(world, 'music', music('player')).reply(15_000);
      return click(world, panel, /Pause/, print);
    },
    expect: shows(/Paused/),
  },
  {
    say: '/music player, then Bob presses Alice’s Pause',
    async run(world, print) {
      const panel = await slash(world, 'music', music('player')).reply(15_000);
      return click(world, panel, /Pause/, print, world.otherUserId);
    },
    expect: shows(/only they can use its buttons/),
  },
  {
    say: '/music next',
    run: (world) => slash(world, 'music', music('next')).reply(15_000),
    expect: shows(/next track/i),
  },
  {
    say: '/music pause  (after the member pressed play in the music app)',
    run(world) {
      world.music.setPlayer(world.music.fixtures!.users.premium, { isPlaying: true });
      return slash(world, 'music', music('pause')).reply(15_000);
    },
    expect: shows(/Paused/),
  },
  {
    say: '/music playlist view playlist:Everything, Forever, then Last',
    async run(world, print) {
      const playlist = await pick(
        world,
        'music',
        { ...music('view', {}, 'playlist'), focused: 'playlist', typed: 'Every', want: 'Everything' },
        print,
      );
      const first = await slash(world, 'music', music('view', { playlist }, 'playlist')).reply(15_000);
      return click(world, first, /Last/, print);
    },
    expect: (answer) => {
      const footer = /Page ([\d,]+) of ([\d,]+)/.exec(answer.embeds[0]?.footer?.text ?? '');
      return footer !== null && footer[1] === footer[2] && footer[1] !== '1';
    },
  },
  {
    say: '/music playlist add playlist:Road trip items:(two tracks) position:1 (a private playlist: Alice alone sees the answer)',
    async run(world, print) {
      const playlist = await playlistPick(world, 'add', print);
      const items = world.music.fixtures!.trackIds.slice(0, 2).join(',');
      return privately(slash(world, 'music', music('add', { playlist, items, position: 1 }, 'playlist')));
    },
    expect: shows(/Added 2 items/),
  },
  {
    say: '/music playlist move playlist:Road trip from:1 to:3',
    async run(world, print) {
      const playlist = await playlistPick(world, 'move', print);
      return privately(slash(world, 'music', music('move', { playlist, from: 1, to: 3 }, 'playlist')));
    },
    expect: shows(/Moved/),
  },
  {
    say: '/music playlist remove playlist:Road trip position:1 count:2, then confirm',
    async run(world, print) {
      const playlist = await playlistPick(world, 'remove', print);
      const ask = await privately(
        slash(world, 'music', music('remove', { playlist, position: 1, count: 2 }, 'playlist')),
      );
      return click(world, ask, /^Remove/, print);
    },
    expect: shows(/Removed 2 items/),
  },
  {
    say: '/music playlist replace playlist:Road trip items:(one track), then Cancel',
    async run(world, print) {
      const playlist = await playlistPick(world, 'replace', print);
      const items = world.music.fixtures!.trackIds[5] ?? '';
      const ask = await privately(slash(world, 'music', music('replace', { playlist, items }, 'playlist')));
      return click(world, ask, /Cancel/, print);
    },
    expect: shows(/cancel|nothing/i),
  },
  {
    say: '/music unlink',
    run: (world) => slash(world, 'music', music('unlink')).reply(15_000),
    expect: shows(/unlink/i),
  },
];

/** Runs every step, printing what the bot answered; returns the number of failed steps. */
export async function runTour(
  world: TourWorld,
  print: (line: string) => void = console.log,
): Promise<number> {
  let failed = 0;
  for (const step of steps) {
    print(`\n> ${step.say}`);
    try {
      const answer = await step.run(world, print);
      print(messageText(answer, namesOf(world)));
      if (!step.expect(answer)) {
        failed++;
        print('  !! the answer was not what the tour expected');
      }
    } catch (error) {
      failed++;
      print(`  !! failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  // The tour paused the premium account's music (the panel's Pause, then /music pause): it plays
  // again, as if Alice pressed play in the music app, so the first Pause a newcomer presses pauses.
  const premium = world.music.fixtures?.users.premium;
  if (premium !== undefined) world.music.setPlayer(premium, { isPlaying: true });
  return failed;
}
