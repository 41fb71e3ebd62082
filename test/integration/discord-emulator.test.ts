import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ActionRowBuilder,
  ApplicationCommandOptionType,
  ButtonBuilder,
  ButtonStyle,
  ChannelType,
  DiscordAPIError,
  EmbedBuilder,
  MessageFlags,
  PermissionFlagsBits,
  RESTEvents,
  Routes,
} from 'discord.js';
import type { Interaction, TextChannel } from 'discord.js';
import { InteractionResponseType, MessageType } from 'discord-api-types/v10';
import type {
  APIGuild,
  APIUser,
  RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord-api-types/v10';
import { shardIdForGuild, startDiscordEmulator } from '../../emulators/discord/index.js';
import type { DiscordEmulator, EmulatorChannel } from '../../emulators/discord/index.js';
import { loginToEmulator } from '../helpers/discord-client.js';
import type { EmulatedClient } from '../helpers/discord-client.js';

/** How long discord.js waits for a guild named in READY whose GUILD_CREATE never comes. */
const GUILD_WAIT_MS = 15_000;
/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

const WEATHER_COMMAND = {
  name: 'weather',
  description: 'Weather for a city',
  options: [
    {
      type: ApplicationCommandOptionType.String,
      name: 'city',
      description: 'City',
      required: true,
      autocomplete: true,
    },
    {
      type: ApplicationCommandOptionType.Integer,
      name: 'days',
      description: 'Days ahead',
      min_value: 1,
      max_value: 7,
    },
    { type: ApplicationCommandOptionType.Boolean, name: 'metric', description: 'Metric units' },
    { type: ApplicationCommandOptionType.User, name: 'for', description: 'Who asks' },
  ],
} satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;
const PLAYLIST_COMMAND = {
  name: 'playlist',
  description: 'Playlists',
  options: [
    {
      type: ApplicationCommandOptionType.Subcommand,
      name: 'show',
      description: 'Show a playlist',
      options: [
        { type: ApplicationCommandOptionType.String, name: 'id', description: 'Playlist id', required: true },
      ],
    },
  ],
} satisfies RESTPostAPIChatInputApplicationCommandsJSONBody;

async function expectDiscordError(
  promise: Promise<unknown>,
  status: number,
  code: number,
): Promise<DiscordAPIError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(DiscordAPIError);
  const apiError = error as DiscordAPIError;
  expect({ status: apiError.status, code: apiError.code }).toEqual({ status, code });
  return apiError;
}

function pagerRow(page: number) {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder()
      .setCustomId(`page:${page - 1}`)
      .setLabel('Back')
      .setStyle(ButtonStyle.Secondary),
    new ButtonBuilder()
      .setCustomId(`page:${page + 1}`)
      .setLabel('Next')
      .setStyle(ButtonStyle.Primary),
    new ButtonBuilder().setURL('https://example.com/').setLabel('Open').setStyle(ButtonStyle.Link),
  );
}

describe('the Discord emulator, driven through the real discord.js client', () => {
  let clockOffsetMs = 0;
  let emu: DiscordEmulator;
  let bot: EmulatedClient;
  let guild: APIGuild;
  let channel: EmulatorChannel;
  let user: APIUser;

  const nextInteraction = async <T extends Interaction>(
    guard: (interaction: Interaction) => interaction is T,
  ) => {
    const interaction = await bot.nextInteraction();
    if (!guard(interaction)) throw new Error(`Unexpected interaction type ${interaction.type}`);
    return interaction;
  };
  const isChatInput = (interaction: Interaction) => interaction.isChatInputCommand();
  const textChannel = (id: string) => bot.client.channels.cache.get(id) as TextChannel;

  beforeAll(async () => {
    emu = await startDiscordEmulator({ now: () => Date.now() + clockOffsetMs });
    guild = emu.createGuild({ name: 'Skybeat HQ' });
    channel = emu.createChannel(guild.id, { name: 'general' });
    user = emu.createUser({ username: 'ada', locale: 'de' });
    bot = await loginToEmulator(emu);
    await bot.client.application.commands.set([WEATHER_COMMAND, PLAYLIST_COMMAND], guild.id);
  });

  afterAll(async () => {
    await bot.client.destroy();
    await emu.close();
  });

  beforeEach(() => bot.clearInteractions());
  afterEach(() => {
    clockOffsetMs = 0;
    emu.setRateLimit(null);
  });

  it('logs the client in without waiting out missing guilds, with the guild and its channel in the cache', () => {
    // discord.js waits 15 s for a guild whose GUILD_CREATE never comes; how fast it is belongs in bench/.
    expect(bot.readyMs).toBeLessThan(GUILD_WAIT_MS);
    expect(bot.client.user.id).toBe(emu.botUser.id);
    expect(bot.client.guilds.cache.get(guild.id)?.name).toBe('Skybeat HQ');
    const cached = textChannel(channel.id);
    expect(cached.type).toBe(ChannelType.GuildText);
    expect(cached.name).toBe('general');
    expect(emu.connectedShards()).toEqual([expect.objectContaining({ shardId: 0, shardCount: 1 })]);
  });

  it('registers guild commands with ids, as Discord returns them', () => {
    const commands = emu.commands(guild.id);
    expect(commands.map((command) => command.name).sort()).toEqual(['playlist', 'weather']);
    expect(commands.every((command) => /^\d{17,20}$/.test(command.id))).toBe(true);
    expect(emu.commands()).toEqual([]);
  });

  it('delivers a slash command with typed options and returns the embed reply', async () => {
    const handle = emu.slash({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'weather',
      options: { city: 'Oslo', days: 3, metric: true, for: user.id },
    });
    const interaction = await nextInteraction(isChatInput);
    expect(interaction.commandName).toBe('weather');
    expect(interaction.options.getString('city', true)).toBe('Oslo');
    expect(interaction.options.getInteger('days')).toBe(3);
    expect(interaction.options.getBoolean('metric')).toBe(true);
    expect(interaction.options.getUser('for')?.username).toBe('ada');
    expect(interaction.locale).toBe('de');
    expect(interaction.channel?.id).toBe(channel.id);

    await interaction.reply({ embeds: [new EmbedBuilder().setTitle('Oslo').setDescription('Sunny, 21 °C')] });
    const reply = await handle.reply();
    expect(reply.embeds[0]).toMatchObject({ title: 'Oslo', description: 'Sunny, 21 °C' });
    expect(reply).toMatchObject({
      type: MessageType.ChatInputCommand,
      webhook_id: emu.applicationId,
      author: { id: emu.botUser.id },
      interaction_metadata: { id: handle.id, authorizing_integration_owners: { '0': guild.id } },
    });
    expect(handle.callbacks.map((callback) => callback.type)).toEqual([
      InteractionResponseType.ChannelMessageWithSource,
    ]);
    expect(emu.messages(channel.id).at(-1)?.id).toBe(reply.id);
  });

  it('sends subcommands nested as Discord does', async () => {
    emu.slash({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'playlist',
      subcommand: 'show',
      options: { id: 'p1' },
    });
    const interaction = await nextInteraction(isChatInput);
    expect(interaction.options.getSubcommand()).toBe('show');
    expect(interaction.options.getString('id')).toBe('p1');
    await interaction.reply({ content: 'ok', flags: MessageFlags.Ephemeral });
  });

  it('refuses to send a command that is not registered, naming the registered ones', () => {
    expect(() =>
      emu.slash({ guildId: guild.id, channelId: channel.id, userId: user.id, name: 'nope' }),
    ).toThrow(/No command \/nope.*\/weather/);
  });

  it('shows a deferred ephemeral reply once it is edited', async () => {
    const handle = emu.slash({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'weather',
      options: { city: 'Rome' },
    });
    const interaction = await nextInteraction(isChatInput);
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    expect(handle.original()?.flags).toBe(MessageFlags.Ephemeral | MessageFlags.Loading);

    await interaction.editReply({ content: 'Rome: cloudy' });
    const reply = await handle.reply();
    expect(reply.content).toBe('Rome: cloudy');
    expect(reply.flags).toBe(MessageFlags.Ephemeral);
    expect(await handle.waitForEdit(1)).toMatchObject({ content: 'Rome: cloudy' });
    expect(emu.messages(channel.id).some((message) => message.id === reply.id)).toBe(false);
    const fetched = await interaction.fetchReply();
    expect(fetched.content).toBe('Rome: cloudy');
  });

  it('posts follow-ups after the reply', async () => {
    const handle = emu.slash({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'weather',
      options: { city: 'Lima' },
    });
    const interaction = await nextInteraction(isChatInput);
    await interaction.reply({ content: 'Lima: warm' });
    const followUp = await interaction.followUp({ content: 'Also: windy', flags: MessageFlags.Ephemeral });

    const received = await handle.waitForFollowUp();
    expect(received).toMatchObject({
      id: followUp.id,
      content: 'Also: windy',
      flags: MessageFlags.Ephemeral,
    });
    expect(received.interaction_metadata).toMatchObject({
      original_response_message_id: (await handle.reply()).id,
    });

    await interaction.followUp({ content: 'Chart', files: [{ attachment: PNG, name: 'lima.png' }] });
    const withFile = await handle.waitForFollowUp(undefined, 2);
    expect(withFile.attachments[0]).toMatchObject({ filename: 'lima.png', content_type: 'image/png' });
    expect(emu.fileData(withFile.attachments[0]!).equals(PNG)).toBe(true);
  });

  it('answers with_response callbacks with the created message', async () => {
    emu.slash({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'weather',
      options: { city: 'Kyiv' },
    });
    const interaction = await nextInteraction(isChatInput);
    const response = await interaction.reply({ content: 'Kyiv: snow', withResponse: true });
    expect(response.resource?.message?.content).toBe('Kyiv: snow');
  });

  it('updates the message a button sits on, in place', async () => {
    const handle = emu.slash({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'weather',
      options: { city: 'Bern' },
    });
    const command = await nextInteraction(isChatInput);
    await command.reply({ content: 'Page 1', components: [pagerRow(1)] });
    const page1 = await handle.reply();

    expect(() => emu.clickButton({ userId: user.id, message: page1, customId: 'page:9' })).toThrow(
      /no Button with custom_id "page:9"/,
    );
    const click = emu.clickButton({ userId: user.id, message: page1, customId: 'page:2' });
    const button = await nextInteraction((interaction) => interaction.isButton());
    expect(button.customId).toBe('page:2');
    expect(button.message.id).toBe(page1.id);
    await button.update({ content: 'Page 2', components: [pagerRow(2)] });

    const page2 = await click.reply();
    expect(page2).toMatchObject({ id: page1.id, content: 'Page 2' });
    expect(page2.edited_timestamp).not.toBeNull();
    expect(emu.message(page1.id)?.content).toBe('Page 2');
    expect(emu.messages(channel.id).filter((message) => message.id === page1.id)).toHaveLength(1);
  });

  it('edits the clicked message after deferUpdate, and replaces a deferred reply with the first follow-up', async () => {
    const handle = emu.slash({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'weather',
      options: { city: 'Faro' },
    });
    const command = await nextInteraction(isChatInput);
    await command.deferReply();
    expect(handle.original()).toMatchObject({ content: '', flags: MessageFlags.Loading });
    await command.followUp({ content: 'Page 1', components: [pagerRow(1)] });
    const page1 = await handle.reply();
    expect(page1).toMatchObject({ content: 'Page 1', flags: 0 });
    expect(handle.followUps.map((message) => message.id)).toEqual([page1.id]);

    const click = emu.clickButton({ userId: user.id, message: page1, customId: 'page:2' });
    const button = await nextInteraction((interaction) => interaction.isButton());
    await button.deferUpdate();
    await button.editReply({ content: 'Page 2' });
    expect(await click.reply()).toMatchObject({ id: page1.id, content: 'Page 2' });
  });

  it('returns the choices the bot answers autocomplete with', async () => {
    const choices = emu.autocomplete({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'weather',
      options: { days: 2 },
      focused: 'city',
    });
    const interaction = await nextInteraction((candidate) => candidate.isAutocomplete());
    expect(interaction.options.getFocused()).toBe('');
    await interaction.respond([
      { name: 'Oslo', value: 'oslo' },
      { name: 'Osaka', value: 'osaka' },
    ]);
    expect(await choices).toEqual([
      { name: 'Oslo', value: 'oslo' },
      { name: 'Osaka', value: 'osaka' },
    ]);
  });

  it('rejects more than 25 autocomplete choices with 50035', async () => {
    const choices = emu.autocomplete({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'weather',
      options: { city: 'x' },
      focused: 'city',
      timeoutMs: 300,
    });
    const interaction = await nextInteraction((candidate) => candidate.isAutocomplete());
    const tooMany = Array.from({ length: 26 }, (_, index) => ({ name: `c${index}`, value: `c${index}` }));
    await expectDiscordError(interaction.respond(tooMany), 400, 50035);
    await expect(choices).rejects.toThrow(/Timed out/);
  });

  it('receives a file sent with channel.send, bytes intact', async () => {
    const sent = await textChannel(channel.id).send({
      content: 'Chart',
      files: [{ attachment: PNG, name: 'chart.png' }],
    });
    const message = await emu.waitForMessage((candidate) => candidate.id === sent.id);
    const [attachment] = message.attachments;
    expect(attachment).toMatchObject({
      filename: 'chart.png',
      content_type: 'image/png',
      size: PNG.length,
      width: 1,
      height: 1,
    });
    expect(emu.fileData(attachment!).equals(PNG)).toBe(true);
    const served = await fetch(attachment!.url);
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
    expect(sent.attachments.first()?.name).toBe('chart.png');
  });

  it('shows a file an embed uses in the embed instead of in attachments, and lists it again once an edit drops it', async () => {
    const sent = await textChannel(channel.id).send({
      embeds: [new EmbedBuilder().setTitle('Chart').setImage('attachment://chart.png')],
      files: [
        { attachment: PNG, name: 'chart.png' },
        { attachment: Buffer.from('a,b\n1,2\n'), name: 'data.csv' },
      ],
    });
    const message = await emu.waitForMessage((candidate) => candidate.id === sent.id);
    expect(message.attachments.map((attachment) => attachment.filename)).toEqual(['data.csv']);
    const image = message.embeds[0]?.image;
    expect(image).toMatchObject({ width: 1, height: 1, content_type: 'image/png' });
    expect(image?.url).toMatch(/\/chart\.png$/);
    expect(image?.proxy_url).toMatch(/\/chart\.png$/);
    const served = await fetch(image!.url);
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
    expect(sent.embeds[0]?.image?.url).toBe(image?.url);
    expect(sent.attachments.map((attachment) => attachment.name)).toEqual(['data.csv']);

    const kept = await sent.edit({ content: 'Same chart' });
    expect(kept.attachments.map((attachment) => attachment.name)).toEqual(['data.csv']);
    expect(kept.embeds[0]?.image?.url).toBe(image?.url);

    const edited = await sent.edit({ embeds: [new EmbedBuilder().setTitle('No chart')] });
    expect(edited.embeds[0]?.image).toBeNull();
    const files = emu.message(sent.id)?.attachments ?? [];
    expect(files.map((attachment) => attachment.filename).sort()).toEqual(['chart.png', 'data.csv']);
    expect(files.find((attachment) => attachment.filename === 'chart.png')?.url).toBe(image?.url);
  });

  it('refuses a first response after the real 3 s deadline with 10062', async () => {
    const handle = emu.slash({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'weather',
      options: { city: 'Late' },
    });
    const interaction = await nextInteraction(isChatInput);
    await new Promise((resolve) => setTimeout(resolve, 3_050));
    await expectDiscordError(interaction.reply({ content: 'too late' }), 404, 10062);
    expect(handle.refusals).toEqual([expect.objectContaining({ status: 404, code: 10062 })]);
    await expect(handle.reply(100)).rejects.toThrow(/Unknown interaction/);
  }, 10_000);

  it('refuses webhook edits once the interaction token is 15 minutes old', async () => {
    const handle = emu.slash({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'weather',
      options: { city: 'Old' },
    });
    const interaction = await nextInteraction(isChatInput);
    await interaction.reply({ content: 'fresh' });
    await handle.reply();
    clockOffsetMs = 15 * 60_000 + 1;
    await expectDiscordError(interaction.editReply({ content: 'stale' }), 401, 50027);
    await expectDiscordError(interaction.followUp({ content: 'stale' }), 401, 50027);
  });

  it('refuses a second initial response with 40060', async () => {
    const handle = emu.slash({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'weather',
      options: { city: 'Twice' },
    });
    await nextInteraction(isChatInput);
    const callback = (content: string) =>
      bot.client.rest.post(Routes.interactionCallback(handle.id, handle.token), {
        body: { type: InteractionResponseType.ChannelMessageWithSource, data: { content } },
        auth: false,
      });
    await callback('first');
    await expectDiscordError(callback('second'), 400, 40060);
  });

  it('rejects an embed over Discord limits with 50035 and the field path', async () => {
    const error = await expectDiscordError(
      textChannel(channel.id).send({ embeds: [{ title: 'T', description: 'x'.repeat(4097) }] }),
      400,
      50035,
    );
    expect(error.rawError).toMatchObject({
      errors: { embeds: { 0: { description: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH' }] } } } },
    });
    const fields = Array.from({ length: 3 }, (_, index) => ({ name: `f${index}`, value: 'v'.repeat(1024) }));
    const total = await expectDiscordError(
      textChannel(channel.id).send({ embeds: [{ description: 'd'.repeat(4000), fields }] }),
      400,
      50035,
    );
    expect(total.rawError).toMatchObject({
      errors: { embeds: { _errors: [{ code: 'MAX_EMBED_SIZE_EXCEEDED' }] } },
    });
  });

  it('rejects six buttons in a row and an empty message', async () => {
    const row = {
      type: 1,
      components: Array.from({ length: 6 }, (_, index) => ({
        type: 2,
        style: 1,
        label: `b${index}`,
        custom_id: `b${index}`,
      })),
    };
    await expectDiscordError(textChannel(channel.id).send({ content: 'x', components: [row] }), 400, 50035);
    await expectDiscordError(
      bot.client.rest.post(Routes.channelMessages(channel.id), { body: {} }),
      400,
      50006,
    );
    await expectDiscordError(textChannel(channel.id).send({ content: ' \n\t ' }), 400, 50006);
  });

  it('answers 403 / 50013 to a message in a channel without Send Messages', async () => {
    const readOnly = emu.createChannel(guild.id, { name: 'announcements' });
    emu.setBotPermissions(readOnly.id, { deny: PermissionFlagsBits.SendMessages });
    await expect
      .poll(() => textChannel(readOnly.id)?.permissionsFor(bot.client.user)?.has('SendMessages'))
      .toBe(false);
    await expectDiscordError(textChannel(readOnly.id).send('hello'), 403, 50013);
    expect(emu.messages(readOnly.id)).toEqual([]);
  });

  it('creates one message for a repeated nonce with enforce_nonce, two without', async () => {
    const target = textChannel(channel.id);
    const first = await target.send({ content: 'Daily forecast', nonce: 'sched-1', enforceNonce: true });
    const second = await target.send({ content: 'Daily forecast', nonce: 'sched-1', enforceNonce: true });
    expect(second.id).toBe(first.id);
    expect(emu.messages(channel.id).filter((message) => message.nonce === 'sched-1')).toHaveLength(1);
    // The same author's nonce, whichever channel (Discord's Create Message docs): the first message.
    const elsewhere = emu.createChannel(guild.id, { name: 'elsewhere' });
    await expect.poll(() => bot.client.channels.cache.has(elsewhere.id)).toBe(true);
    const third = await textChannel(elsewhere.id).send({
      content: 'Daily forecast',
      nonce: 'sched-1',
      enforceNonce: true,
    });
    expect(third.id).toBe(first.id);
    expect(emu.messages(elsewhere.id)).toEqual([]);

    await target.send({ content: 'Loose', nonce: 'loose-1' });
    await target.send({ content: 'Loose', nonce: 'loose-1' });
    expect(emu.messages(channel.id).filter((message) => message.nonce === 'loose-1')).toHaveLength(2);
  });

  it('answers 429 with retry_after, which discord.js waits out before succeeding', async () => {
    emu.setRateLimit({ route: /^\/channels\/\d+\/messages$/, remaining: 0, resetAfterMs: 300 });
    const rateLimited = once(bot.client.rest, RESTEvents.RateLimited);
    const started = Date.now();
    const message = await textChannel(channel.id).send('after the limit');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(message.content).toBe('after the limit');
    const [info] = (await rateLimited) as [{ retryAfter: number; global: boolean }];
    expect(info.global).toBe(false);
    expect(emu.requestCount({ method: 'POST', route: '/channels/:channelId/messages', status: 429 })).toBe(1);
    const refused = emu.requests.find((record) => record.status === 429);
    expect(refused?.path).toBe(`/channels/${channel.id}/messages`);
  });

  it('answers 404 / 10003 for a deleted channel and 404 / 0 for an unknown route', async () => {
    const doomed = emu.createChannel(guild.id, { name: 'doomed' });
    await expect.poll(() => bot.client.channels.cache.has(doomed.id)).toBe(true);
    const cached = textChannel(doomed.id);
    emu.deleteChannel(doomed.id);
    await expectDiscordError(cached.send('anyone?'), 404, 10003);
    await expect.poll(() => bot.client.channels.cache.has(doomed.id)).toBe(false);

    const response = await fetch(`${emu.restUrl}/v10/nowhere`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: '404: Not Found', code: 0 });
  });

  it('lets the client resume after a disconnect and replays what it missed', async () => {
    const resumed = once(emu.events, 'resume');
    emu.disconnectAll();
    const handle = emu.slash({
      guildId: guild.id,
      channelId: channel.id,
      userId: user.id,
      name: 'weather',
      options: { city: 'Resume' },
    });
    const interaction = await nextInteraction(isChatInput);
    await resumed;
    await interaction.reply('still here');
    expect((await handle.reply()).content).toBe('still here');
  });

  it('tells the client to reconnect (op 7): it resumes its session and misses nothing', async () => {
    const resumed = once(emu.events, 'resume') as Promise<[{ sessionId: string }]>;
    const identified = vi.fn();
    emu.events.on('identify', identified);
    try {
      expect(emu.requestReconnect()).toBe(1);
      const handle = emu.slash({
        guildId: guild.id,
        channelId: channel.id,
        userId: user.id,
        name: 'weather',
        options: { city: 'Reconnect' },
      });
      const interaction = await nextInteraction(isChatInput);
      const [{ sessionId }] = await resumed;
      await interaction.reply('moved');
      expect((await handle.reply()).content).toBe('moved');
      expect(emu.connectedShards().map((shard) => shard.sessionId)).toEqual([sessionId]);
      expect(identified).not.toHaveBeenCalled();
    } finally {
      emu.events.off('identify', identified);
    }
  });
});

describe('the Discord emulator with sharding and a fixed token', () => {
  it('sends each shard only its guilds, and interactions to the shard that holds the guild', async () => {
    const emu = await startDiscordEmulator({ shardCount: 2 });
    const guilds = [0, 1, 1].map((shard) => emu.createGuild({ shard: [shard, 2] }));
    const user = emu.createUser();
    const clients = await Promise.all(
      [0, 1].map((shard) => loginToEmulator(emu, { shards: shard, shardCount: 2 })),
    );
    try {
      for (const [shard, { client }] of clients.entries()) {
        const expected = guilds
          .filter((guild) => shardIdForGuild(guild.id, 2) === shard)
          .map((guild) => guild.id);
        expect([...client.guilds.cache.keys()].sort()).toEqual(expected.sort());
      }
      const late = emu.createGuild({ name: 'late' });
      const holder = clients[shardIdForGuild(late.id, 2)]!;
      await expect.poll(() => holder.client.guilds.cache.has(late.id)).toBe(true);

      const channel = emu.createChannel(late.id);
      await holder.client.application.commands.set([{ name: 'ping', description: 'Ping' }], late.id);
      emu.slash({ guildId: late.id, channelId: channel.id, userId: user.id, name: 'ping' });
      const interaction = await holder.nextInteraction();
      expect(interaction.guildId).toBe(late.id);
      expect(
        emu
          .connectedShards()
          .map((shard) => shard.shardId)
          .sort(),
      ).toEqual([0, 1]);
    } finally {
      await Promise.all(clients.map(({ client }) => client.destroy()));
      await emu.close();
    }
  });

  it('readies one client that holds both shards, each with its guild', async () => {
    const emu = await startDiscordEmulator({ shardCount: 2 });
    const guilds = [emu.createGuild({ shard: [0, 2] }), emu.createGuild({ shard: [1, 2] })];
    const bot = await loginToEmulator(emu, { shards: 'auto' });
    try {
      expect(bot.readyMs).toBeLessThan(GUILD_WAIT_MS);
      expect(bot.client.ws.shards.size).toBe(2);
      expect([...bot.client.guilds.cache.keys()].sort()).toEqual(guilds.map((guild) => guild.id).sort());
    } finally {
      await bot.client.destroy();
      await emu.close();
    }
  });

  it('refuses a client with the wrong token', async () => {
    const emu = await startDiscordEmulator({ botToken: 'right-token' });
    try {
      await expect(loginToEmulator(emu, { token: 'wrong-token' })).rejects.toThrow(/token/i);
      const response = await fetch(`${emu.restUrl}/v10/users/@me`, {
        headers: { Authorization: 'Bot wrong-token' },
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ message: '401: Unauthorized', code: 0 });
    } finally {
      await emu.close();
    }
  });
});

describe('the Discord emulator in the bot’s DMs and under a timeout', () => {
  it('sends a global command in the bot’s DM as Discord does, and only a command offered there', async () => {
    const emu = await startDiscordEmulator();
    const bot = await loginToEmulator(emu);
    try {
      const user = emu.createUser({ username: 'ada' });
      const guild = emu.createGuild({ name: 'Skybeat HQ' });
      await bot.client.application.commands.set([
        { name: 'anywhere', description: 'Offered in DMs by default' },
        { name: 'servers', description: 'Servers only', contexts: [0] },
        { name: 'legacy', description: 'Servers only, the old way', dm_permission: false },
      ]);
      await bot.client.application.commands.set([{ name: 'local', description: 'One guild' }], guild.id);
      const handle = emu.slash({ dm: true, userId: user.id, name: 'anywhere' });
      const interaction = await bot.nextInteraction();
      expect(interaction.inGuild()).toBe(false);
      expect(interaction.guildId).toBeNull();
      expect(interaction.user.id).toBe(user.id);
      expect(interaction.channelId).toBe(emu.dmChannel(user.id).id);
      expect(interaction.context).toBe(1);
      expect(handle.payload).not.toHaveProperty('member');
      if (!interaction.isChatInputCommand()) throw new Error('not a command');
      await interaction.reply({ content: 'hi' });
      expect((await handle.reply()).channel_id).toBe(emu.dmChannel(user.id).id);
      for (const name of ['servers', 'legacy', 'local'])
        expect(() => emu.slash({ dm: true, userId: user.id, name })).toThrow(
          /not offered in the bot's DMs|No global command/,
        );
    } finally {
      await bot.client.destroy();
      await emu.close();
    }
  });

  it('masks a timed-out member to View Channel and Read Message History, and times out no owner', async () => {
    const emu = await startDiscordEmulator();
    const bot = await loginToEmulator(emu);
    try {
      const owner = emu.createUser({ username: 'owner' });
      const guild = emu.createGuild({ name: 'Skybeat HQ', ownerId: owner.id });
      const channel = emu.createChannel(guild.id, { name: 'general' });
      expect(() => emu.timeoutMember(guild.id, owner.id, new Date(Date.now() + 60_000))).toThrow(/owner/);
      emu.timeoutMember(guild.id, emu.botUser.id, new Date(Date.now() + 60_000));
      const refused = await bot.client.rest
        .post(Routes.channelMessages(channel.id), { body: { content: 'hello' } })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DiscordAPIError);
      expect((refused as DiscordAPIError).code).toBe(50013);
      // The member update reaches the bot without the Guild Members intent.
      await expect
        .poll(() => bot.client.guilds.cache.get(guild.id)?.members.me?.isCommunicationDisabled())
        .toBe(true);
      emu.timeoutMember(guild.id, emu.botUser.id, null);
      await bot.client.rest.post(Routes.channelMessages(channel.id), { body: { content: 'hello' } });
      expect(emu.messages(channel.id).map((message) => message.content)).toEqual(['hello']);
    } finally {
      await bot.client.destroy();
      await emu.close();
    }
  });

  it('runs the app’s commands in a server it was added to without its bot, where the bot gets nothing else and may not post; adding and removing the bot tell it', async () => {
    // The emulator's clock a day ahead: the bot's joining is dated by it.
    const clock = () => Date.now() + 86_400_000;
    const emu = await startDiscordEmulator({ now: clock });
    const bot = await loginToEmulator(emu);
    try {
      const member = emu.createUser({ username: 'member' });
      const guild = emu.createGuild({ name: 'Commands only', botMember: false });
      const channel = emu.createChannel(guild.id, { name: 'general' });
      await bot.client.application.commands.set([WEATHER_COMMAND], guild.id);
      const post = () =>
        bot.client.rest
          .post(Routes.channelMessages(channel.id), { body: { content: 'hello' } })
          .catch((error: unknown) => error);
      const ask = () =>
        emu.slash({
          guildId: guild.id,
          channelId: channel.id,
          userId: member.id,
          name: 'weather',
          options: { city: 'Oslo' },
        });

      const handle = ask();
      const interaction = await bot.nextInteraction();
      if (!interaction.isChatInputCommand()) throw new Error('expected a slash command');
      expect(interaction.guildId).toBe(guild.id);
      expect(interaction.inCachedGuild()).toBe(false);
      expect(bot.client.guilds.cache.has(guild.id)).toBe(false);
      expect(bot.client.channels.cache.has(channel.id)).toBe(false);
      // @everyone's permissions there, with Embed Links and Attach Files, which answers always have.
      expect(interaction.appPermissions.has(PermissionFlagsBits.ViewChannel)).toBe(true);
      expect(interaction.appPermissions.has(PermissionFlagsBits.EmbedLinks)).toBe(true);
      expect(interaction.appPermissions.has(PermissionFlagsBits.AttachFiles)).toBe(true);
      await interaction.reply({ content: 'Oslo: sunny' });
      expect((await handle.reply()).content).toBe('Oslo: sunny');
      for (const refused of [
        await post(),
        await bot.client.rest.get(Routes.guild(guild.id)).catch((error: unknown) => error),
      ]) {
        expect(refused).toBeInstanceOf(DiscordAPIError);
        expect([(refused as DiscordAPIError).status, (refused as DiscordAPIError).code]).toEqual([
          403, 50001,
        ]);
      }

      const joined = once(bot.client, 'guildCreate');
      emu.addBot(guild.id);
      await joined;
      expect(bot.client.channels.cache.has(channel.id)).toBe(true);
      const joinedAt = bot.client.guilds.cache.get(guild.id)?.members.me?.joinedTimestamp ?? 0;
      expect(joinedAt).toBeGreaterThan(Date.now() + 86_000_000);
      await post();
      expect(emu.messages(channel.id).map((message) => message.content)).toContain('hello');
      expect(() => emu.addBot(guild.id)).toThrow(/already/);

      const left = once(bot.client, 'guildDelete');
      emu.removeBot(guild.id);
      const [gone] = (await left) as [{ id: string; available: boolean }];
      expect(gone.id).toBe(guild.id);
      expect(bot.client.guilds.cache.has(guild.id)).toBe(false);
      const after = await post();
      expect((after as DiscordAPIError).code).toBe(50001);
      // Its commands stay: a member can still run them there.
      const again = ask();
      const next = await bot.nextInteraction();
      if (!next.isChatInputCommand()) throw new Error('expected a slash command');
      expect(next.inCachedGuild()).toBe(false);
      await next.reply({ content: 'Oslo: rain' });
      expect((await again.reply()).content).toBe('Oslo: rain');
    } finally {
      await bot.client.destroy();
      await emu.close();
    }
  });
});
