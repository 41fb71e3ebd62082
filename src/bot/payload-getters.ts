import {
  BaseInteraction,
  GuildMember,
  InteractionWebhook,
  Message,
  MessageManager,
  MessagePayload,
  User,
  Webhook,
  WebhookClient,
} from 'discord.js';

/**
 * What each of `MessagePayload`'s target getters tests, with the classes bound once: the same
 * classes and the same answers as discord.js 14's own getters.
 */
const TARGET_TESTS: Readonly<Record<string, (target: unknown) => boolean>> = {
  isWebhook: (target) => target instanceof Webhook || target instanceof WebhookClient,
  isUser: (target) => target instanceof User || target instanceof GuildMember,
  isMessage: (target) => target instanceof Message,
  isMessageManager: (target) => target instanceof MessageManager,
  isInteraction: (target) => target instanceof BaseInteraction || target instanceof InteractionWebhook,
};

/**
 * Every reply, edit, follow-up and channel message goes through discord.js's `MessagePayload`,
 * which finds out what it is sent to with getters that call `require()` for the classes each time
 * (to break import cycles). Node keeps a relative lookup only for the module that loaded the file
 * first, so from `MessagePayload` each call is a full resolution of the path: about 10 µs and a few
 * kB of garbage, and an edit makes four (measured on this machine with discord.js 14.28.1: the
 * three getters 31 µs together, 0.34 µs with the classes bound once; on a burst of deferred
 * commands, a tenth of all the bytes the bot allocated). This defines the getters again with the
 * classes bound once. A getter that a later discord.js no longer defines as one (or makes
 * unchangeable) is left as it is. Safe to call more than once.
 */
export function bindPayloadGetters(): void {
  for (const [name, test] of Object.entries(TARGET_TESTS)) {
    const own = Object.getOwnPropertyDescriptor(MessagePayload.prototype, name);
    if (own?.get === undefined || own.configurable !== true) continue;
    Object.defineProperty(MessagePayload.prototype, name, {
      configurable: true,
      enumerable: own.enumerable ?? false,
      get(this: MessagePayload) {
        return test(this.target);
      },
    });
  }
}
