export { DiscordEmulator, startDiscordEmulator } from './emulator.js';
export type { DiscordEmulatorOptions, PrivilegedIntent, RequestFilter } from './emulator.js';
export type { CallbackEvent, DiscordEmulatorEvents, RefusedRequest, RequestRecord } from './core.js';
export type { ConnectedShard } from './gateway.js';
export type {
  AutocompleteOptions,
  ComponentClickOptions,
  DmAutocompleteOptions,
  DmSlashCommandOptions,
  InteractionCallbackRecord,
  InteractionHandle,
  LocaleInput,
  SelectMenuOptions,
  SlashCommandOptions,
} from './interactions.js';
export type { RateLimitRule } from './ratelimit.js';
export type { UploadedFile } from './body.js';
export type { ChoiceInput } from './validation.js';
export type { EmulatedMessage, EmulatorChannel, EmulatorChannelType } from './world.js';
export { DEFAULT_PERMISSIONS } from './world.js';
export { shardIdForGuild, snowflakeTimestamp } from './snowflake.js';
