/**
 * `bindPayloadGetters` swaps discord.js's `MessagePayload` target getters (which call `require()`
 * each time) for ones with the classes bound once: every reply, edit and post goes through them, so
 * they must answer exactly as discord.js's own for every kind of target.
 */
import {
  ChannelType,
  ChatInputCommandInteraction,
  Client,
  Guild,
  GuildMember,
  InteractionWebhook,
  Message,
  MessagePayload,
  TextChannel,
  User,
  Webhook,
  WebhookClient,
} from 'discord.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createDiscordClient } from '../../src/bot/client.js';
import { bindPayloadGetters } from '../../src/bot/payload-getters.js';

const GETTERS = ['isWebhook', 'isUser', 'isMessage', 'isMessageManager', 'isInteraction'] as const;
/** discord.js's own getters, kept to be called on a payload with `.call`. */
const stock = Object.fromEntries(
  GETTERS.map((name) => {
    const descriptor = Object.getOwnPropertyDescriptor(MessagePayload.prototype, name);
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the payload as `this`
    return [name, descriptor?.get];
  }),
);

const client = new Client({ intents: [] });
const webhookClient = new WebhookClient({ id: '4', token: 'webhook-token' });
afterAll(async () => {
  webhookClient.destroy();
  await client.destroy();
});

/** discord.js's structures, built as it builds them from Discord's payloads. */
const make = <T>(type: unknown, ...args: unknown[]): T =>
  Reflect.construct(type as new (...parts: unknown[]) => T, args);
const rawUser = { id: '1', username: 'alice', discriminator: '0', avatar: null, global_name: null };
const guild = make<Guild>(Guild, client, { id: '2', name: 'Guild', unavailable: false });
const channel = make<TextChannel>(
  TextChannel,
  guild,
  { id: '6', type: ChannelType.GuildText, name: 'general' },
  client,
);
const targets: Record<string, unknown> = {
  user: make<User>(User, client, rawUser),
  member: make<GuildMember>(GuildMember, client, { user: rawUser, roles: [], joined_at: null }, guild),
  webhook: make<Webhook>(Webhook, client, { id: '3', token: 'hook-token', type: 1 }),
  webhookClient,
  interactionWebhook: make<InteractionWebhook>(InteractionWebhook, client, '5', 'interaction-token'),
  channel,
  messageManager: channel.messages,
  message: make<Message>(Message, client, {
    id: '7',
    channel_id: '6',
    author: rawUser,
    content: '',
    timestamp: new Date(0).toISOString(),
    edited_timestamp: null,
    embeds: [],
    attachments: [],
    mentions: [],
    mention_roles: [],
    pinned: false,
    tts: false,
    type: 0,
  }),
  interaction: make<ChatInputCommandInteraction>(ChatInputCommandInteraction, client, {
    id: '8',
    application_id: '9',
    type: 2,
    token: 'interaction-token',
    version: 1,
    user: rawUser,
    data: { id: '10', name: 'help', type: 1 },
    channel_id: '6',
    locale: 'en-US',
    app_permissions: '0',
    entitlements: [],
    authorizing_integration_owners: {},
  }),
  other: {},
};

/** For each target, the getters that answer true: discord.js's own (`stock`), or those in place now. */
const answers = (useStock: boolean) =>
  Object.fromEntries(
    Object.entries(targets).map(([kind, target]) => {
      const payload = new MessagePayload(target as never, {});
      const read = (name: (typeof GETTERS)[number]) =>
        useStock ? Boolean(stock[name]?.call(payload)) : payload[name];
      return [kind, GETTERS.filter(read)];
    }),
  );
const bound = () =>
  GETTERS.filter(
    (name) => Object.getOwnPropertyDescriptor(MessagePayload.prototype, name)?.get !== stock[name],
  );

describe('MessagePayload target getters with the classes bound once', () => {
  it('are in place once the bot’s Discord client is made', async () => {
    expect(bound()).toEqual([]);
    const bot = createDiscordClient({ apiUrl: 'http://127.0.0.1:9/api' });
    try {
      expect(bound()).toEqual(GETTERS);
    } finally {
      await bot.destroy();
    }
  });

  it('answer exactly as discord.js’s own for every kind of target', () => {
    const before = answers(true);
    // The targets are what the stock getters say they are (so the comparison below means something).
    expect(before).toEqual({
      user: ['isUser'],
      member: ['isUser'],
      webhook: ['isWebhook'],
      webhookClient: ['isWebhook'],
      interactionWebhook: ['isInteraction'],
      channel: [],
      messageManager: ['isMessageManager'],
      message: ['isMessage'],
      interaction: ['isInteraction'],
      other: [],
    });
    bindPayloadGetters();
    bindPayloadGetters();
    expect(bound()).toEqual(GETTERS);
    expect(answers(false)).toEqual(before);
  });
});
