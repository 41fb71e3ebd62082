import { z } from 'zod';
import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ButtonStyle,
  ChannelType,
  ComponentType,
  InteractionResponseType,
  Locale,
  MessageFlags,
} from 'discord-api-types/v10';
import { DiscordErrors } from './errors.js';
import type { FieldError } from './errors.js';

/*
 * Request-body schemas for the routes the emulator serves, with Discord's limits. A failed check
 * answers 400 / 50035 "Invalid Form Body" with the nested `_errors` tree Discord sends. The inner
 * error codes (BASE_TYPE_MAX_LENGTH and friends) are Discord's for the length and type checks; for
 * the rarer component rules they are the closest code known, since Discord does not document them.
 */

const REQUIRED = 'This field is required';
export const maxLength = (max: number) => `Must be ${max} or fewer in length.`;
const lengthBetween = (min: number, max: number) => `Must be between ${min} and ${max} in length.`;

/**
 * How long Discord finds a string: in Unicode code points, not UTF-16 units (its API is Python 3,
 * whose `len` counts code points: discord/discord-api-docs#1315), so 😀 is one character, not two.
 * Every length rule written by hand below goes through this.
 */
export function discordLength(text: string): number {
  let length = 0;
  // The string iterator steps over whole code points, a surrogate pair at a time.
  for (const _ of text) length += 1;
  return length;
}

/** A string of at most `max` characters (zod's string length checks count code points, as Discord does). */
const upTo = (max: number) => z.string().max(max, maxLength(max));
/** A string of `min`..`max` characters. */
const between = (min: number, max: number) =>
  z.string().min(min, lengthBetween(min, max)).max(max, lengthBetween(min, max));

// ---------------------------------------------------------------- urls

/** Link targets: embed and author urls. */
const WEB_SCHEMES = ['http', 'https'] as const;
/** Media an embed shows, which may also name a file uploaded with the message. */
const MEDIA_SCHEMES = ['http', 'https', 'attachment'] as const;
/** Link buttons, which may also open a place inside the Discord client. */
const LINK_BUTTON_SCHEMES = ['http', 'https', 'discord'] as const;
const LINK_BUTTON_URL_MAX = 512;

/**
 * Discord's URL check: a well-formed absolute URL whose scheme is one of `schemes`. Returns the
 * field error's code and message, or `undefined` when the URL is acceptable.
 */
function urlProblem(value: string, schemes: readonly string[]): Omit<FieldError, 'path'> | undefined {
  const scheme = /^([a-z][a-z\d+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme !== undefined && !schemes.includes(scheme)) {
    return {
      code: 'URL_TYPE_INVALID_SCHEME',
      message: `Scheme "${scheme}" is not supported. Scheme must be one of (${schemes.map((name) => `'${name}'`).join(', ')}).`,
    };
  }
  if (scheme === undefined || !URL.canParse(value)) {
    return { code: 'URL_TYPE_INVALID_URL', message: 'Not a well formed URL.' };
  }
  return undefined;
}

/** A string field holding a URL with one of `schemes`. */
const urlField = (schemes: readonly string[]) =>
  z.string().superRefine((value, context) => {
    const problem = urlProblem(value, schemes);
    if (problem) {
      context.addIssue({ code: 'custom', message: problem.message, params: { discordCode: problem.code } });
    }
  });

// ---------------------------------------------------------------- embeds

/**
 * The whitespace Discord trims from embed text. Its API is Python 3, so this is taken to be what
 * `str.strip()` removes (the characters `str.isspace()` accepts), which differs from JavaScript's
 * `trim()`: it also removes U+001C–U+001F and U+0085, and keeps U+FEFF. That U+00A0 goes is seen on
 * Discord: a field value of a lone no-break space is refused, a lone U+200B is not
 * (discord-net/Discord.Net#758).
 */
const PYTHON_SPACE =
  '[\\t-\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const EDGE_WHITESPACE = new RegExp(`^${PYTHON_SPACE}+|${PYTHON_SPACE}+$`, 'g');

/**
 * Embed text, trimmed before its limits are measured and kept trimmed: "Leading and trailing
 * whitespace characters are not included (they are trimmed automatically)" (Discord's Embed
 * Limits). So 256 characters and trailing spaces make a valid title, stored without the spaces,
 * and the 6000 of a message count trimmed text.
 */
const embedText = () => z.string().overwrite((text) => text.replace(EDGE_WHITESPACE, ''));
/**
 * Embed text that must not be empty. Only whitespace is empty once trimmed, and Discord refuses
 * it (Discord.Net#758 saw a 400 for a field value of U+00A0). Which inner code it gives then is not
 * documented or reported: the emulator gives the one of an empty value, BASE_TYPE_REQUIRED.
 */
const requiredEmbedText = (max: number) => embedText().min(1, REQUIRED).max(max, maxLength(max));

const embedFooterSchema = z.object({
  text: requiredEmbedText(2048),
  icon_url: urlField(MEDIA_SCHEMES).exactOptional(),
});
const embedMediaSchema = z.object({
  url: urlField(MEDIA_SCHEMES),
  width: z.number().int().exactOptional(),
  height: z.number().int().exactOptional(),
});
const embedAuthorSchema = z.object({
  name: requiredEmbedText(256),
  url: urlField(WEB_SCHEMES).exactOptional(),
  icon_url: urlField(MEDIA_SCHEMES).exactOptional(),
});
const embedFieldSchema = z.object({
  name: requiredEmbedText(256),
  value: requiredEmbedText(1024),
  inline: z.boolean().exactOptional(),
});

/**
 * An ISO 8601 date or date and time, as Discord parses an embed's timestamp: a four-digit year,
 * optional seconds and fraction, `T` or a space, `Z` or an offset (or none: UTC). Anything else,
 * a number of milliseconds included, is refused with "Could not parse <value>. Should be ISO8601."
 * (the message Discord answered with, quoted in Discord4J/Discord4J#196 for an extended year).
 * The inner code is not documented; the emulator gives DATE_TIME_TYPE_PARSE.
 */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

function isIso8601(value: string): boolean {
  const match = ISO_8601.exec(value);
  if (!match) return false;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = match
    .slice(1, 7)
    .map((part) => (part === undefined ? 0 : Number(part)));
  // Real calendar dates only: 2024-02-30 parses as a pattern but names no day. (Set with
  // setUTCFullYear: Date.UTC reads years 0-99 as 1900-1999.)
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60
  );
}

const embedTimestamp = z.unknown().superRefine((value, context) => {
  if (typeof value === 'string' && isIso8601(value)) return;
  context.addIssue({
    code: 'custom',
    message: `Could not parse ${describeInput(value)}. Should be ISO8601.`,
    params: { discordCode: 'DATE_TIME_TYPE_PARSE' },
  });
}) as z.ZodType<string>;

export const embedSchema = z.object({
  title: embedText().max(256, maxLength(256)).exactOptional(),
  description: embedText().max(4096, maxLength(4096)).exactOptional(),
  url: urlField(WEB_SCHEMES).exactOptional(),
  timestamp: embedTimestamp.exactOptional(),
  color: z.number().int().min(0).max(0xffffff).exactOptional(),
  footer: embedFooterSchema.exactOptional(),
  image: embedMediaSchema.exactOptional(),
  thumbnail: embedMediaSchema.exactOptional(),
  author: embedAuthorSchema.exactOptional(),
  fields: z.array(embedFieldSchema).max(25, maxLength(25)).exactOptional(),
});
export type EmbedInput = z.infer<typeof embedSchema>;

/**
 * Characters Discord counts towards the 6000 shared by all embeds of a message, of an embed as
 * `embedSchema` gives it back: its text already trimmed.
 */
export function embedLength(embed: EmbedInput): number {
  let total = discordLength(embed.title ?? '') + discordLength(embed.description ?? '');
  total += discordLength(embed.footer?.text ?? '');
  total += discordLength(embed.author?.name ?? '');
  for (const field of embed.fields ?? []) total += discordLength(field.name) + discordLength(field.value);
  return total;
}

// ---------------------------------------------------------------- components

/** Components are kept as sent (Discord echoes them); their rules are checked by `componentErrors`. */
const componentSchema = z.looseObject({ type: z.number().int() });

const attachmentRefSchema = z.object({
  id: z.union([z.string(), z.number().int()]),
  filename: z.string().exactOptional(),
  description: upTo(1024).exactOptional(),
});

/**
 * `users` and `roles` may be `null` or empty, which lists no one: "Passing a falsy value such as
 * `null` or an empty array into the `users` field does not trigger a validation error" (Discord's
 * Allowed Mentions examples).
 */
const allowedMentionsSchema = z.object({
  parse: z.array(z.enum(['users', 'roles', 'everyone'])).exactOptional(),
  users: z.array(z.string()).max(100, maxLength(100)).nullable().exactOptional(),
  roles: z.array(z.string()).max(100, maxLength(100)).nullable().exactOptional(),
  replied_user: z.boolean().exactOptional(),
});

/**
 * The body of every message-creating or -editing route (channel messages, interaction responses,
 * webhook messages). `null` clears a field on edits, as Discord accepts.
 */
export const messagePayloadSchema = z.object({
  content: upTo(2000).nullable().exactOptional(),
  nonce: z
    .union([upTo(25), z.number().int()])
    .nullable()
    .exactOptional(),
  enforce_nonce: z.boolean().exactOptional(),
  tts: z.boolean().exactOptional(),
  embeds: z.array(embedSchema).max(10, maxLength(10)).nullable().exactOptional(),
  components: z.array(componentSchema).nullable().exactOptional(),
  flags: z.number().int().nullable().exactOptional(),
  attachments: z.array(attachmentRefSchema).max(10, maxLength(10)).nullable().exactOptional(),
  allowed_mentions: allowedMentionsSchema.nullable().exactOptional(),
  message_reference: z
    .object({ message_id: z.string(), channel_id: z.string().exactOptional() })
    .nullable()
    .exactOptional(),
});
export type MessagePayload = z.infer<typeof messagePayloadSchema>;

// Raw JSON holds plain numbers; the enum members are compared as numbers.
const LINK_STYLE: number = ButtonStyle.Link;
const PREMIUM_STYLE: number = ButtonStyle.Premium;
const BUTTON_STYLES: ReadonlySet<number> = new Set([
  ButtonStyle.Primary,
  ButtonStyle.Secondary,
  ButtonStyle.Success,
  ButtonStyle.Danger,
  ButtonStyle.Link,
  ButtonStyle.Premium,
]);
const SELECT_TYPES: ReadonlySet<number> = new Set([
  ComponentType.StringSelect,
  ComponentType.UserSelect,
  ComponentType.RoleSelect,
  ComponentType.MentionableSelect,
  ComponentType.ChannelSelect,
]);

type Path = (string | number)[];

const SNOWFLAKE = /^\d{17,20}$/;
/** Exactly one emoji, keycaps, flags and ZWJ sequences included (Unicode's RGI set). */
// Built at run time: TypeScript's target predates the `v` flag, which Node 20 has.
const ONE_EMOJI = new RegExp('^\\p{RGI_Emoji}$', 'v');
const VARIATION_SELECTORS = /[\uFE0E\uFE0F]/g;
const PICTOGRAPH = /^\p{Extended_Pictographic}$/u;

/**
 * One emoji as clients send it: a fully qualified one (Unicode's RGI set: keycaps, flags, skin
 * tones and ZWJ sequences included), or the same without or with a stray variation selector
 * ("▶", "❤", "⚽\uFE0F"), which keyboards and libraries send too. Whether Discord takes every
 * one of the latter is not documented; refusing them would refuse payloads it may well take.
 */
function isOneEmoji(name: string): boolean {
  if (ONE_EMOJI.test(name)) return true;
  const bare = name.replace(VARIATION_SELECTORS, '');
  return ONE_EMOJI.test(bare) || PICTOGRAPH.test(bare);
}
type RawComponent = Record<string, unknown>;

function isRecord(value: unknown): value is RawComponent {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Discord's rules for classic components: at most 5 action rows, 1–5 buttons or exactly one select
 * menu per row, custom ids of 1–100 characters unique within the message, link buttons with an
 * http(s) or discord url of at most 512 characters and no custom id, other buttons with a custom
 * id, labels up to 80 characters.
 */
export function componentErrors(components: readonly unknown[], isComponentsV2: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const seenCustomIds = new Map<string, Path>();
  const add = (path: Path, code: string, message: string) => errors.push({ path, code, message });

  const checkCustomId = (component: RawComponent, path: Path, required: boolean) => {
    const customId = component['custom_id'];
    if (customId === undefined) {
      if (required) add([...path, 'custom_id'], 'BASE_TYPE_REQUIRED', REQUIRED);
      return;
    }
    if (typeof customId !== 'string' || customId === '' || discordLength(customId) > 100) {
      add([...path, 'custom_id'], 'BASE_TYPE_BAD_LENGTH', lengthBetween(1, 100));
      return;
    }
    if (seenCustomIds.has(customId)) {
      add(
        [...path, 'custom_id'],
        'COMPONENT_CUSTOM_ID_DUPLICATED',
        'Component custom id cannot be duplicated',
      );
    } else {
      seenCustomIds.set(customId, path);
    }
  };

  const checkButton = (button: RawComponent, path: Path) => {
    const style = button['style'];
    if (typeof style !== 'number' || !BUTTON_STYLES.has(style)) {
      add([...path, 'style'], 'BASE_TYPE_CHOICES', 'Value must be one of {1, 2, 3, 4, 5, 6}.');
      return;
    }
    const label = button['label'];
    if (label !== undefined && (typeof label !== 'string' || discordLength(label) > 80)) {
      add([...path, 'label'], 'BASE_TYPE_MAX_LENGTH', maxLength(80));
    }
    const emoji = button['emoji'];
    if (emoji !== undefined) checkEmoji(emoji, [...path, 'emoji']);
    // A button shows a label, an emoji or both (Discord's Button reference); a premium button
    // shows its SKU instead. Refused at `label` as "This field is required" (discord.js#5675
    // quotes it for a button sent without one).
    if (style !== PREMIUM_STYLE && (label === undefined || label === '') && emoji === undefined) {
      add([...path, 'label'], 'BASE_TYPE_REQUIRED', REQUIRED);
    }
    if (style === LINK_STYLE) {
      const url = button['url'];
      if (typeof url !== 'string' || url.length === 0) {
        add([...path, 'url'], 'BASE_TYPE_REQUIRED', REQUIRED);
      } else if (discordLength(url) > LINK_BUTTON_URL_MAX) {
        add([...path, 'url'], 'BASE_TYPE_MAX_LENGTH', maxLength(LINK_BUTTON_URL_MAX));
      } else {
        const problem = urlProblem(url, LINK_BUTTON_SCHEMES);
        if (problem) add([...path, 'url'], problem.code, problem.message);
      }
      if (button['custom_id'] !== undefined) {
        add([...path, 'custom_id'], 'COMPONENT_INVALID_FIELD', 'Link buttons cannot have a custom id');
      }
    } else if (style === PREMIUM_STYLE) {
      if (typeof button['sku_id'] !== 'string') add([...path, 'sku_id'], 'BASE_TYPE_REQUIRED', REQUIRED);
    } else {
      checkCustomId(button, path, true);
      if (button['url'] !== undefined) {
        add([...path, 'url'], 'COMPONENT_INVALID_FIELD', 'Non-link buttons cannot have a url');
      }
    }
  };

  /**
   * A partial emoji: a custom one by `id` (its `name` then free), or a Unicode one by `name`, which
   * must be one emoji. Discord refuses an empty object or a name that is no emoji at `emoji.name`
   * with BUTTON_COMPONENT_INVALID_EMOJI "Invalid emoji" (bwmarrin/discordgo#1479 for `{}`;
   * woohyunjng/discord.py-components#39 for a bad name).
   */
  const checkEmoji = (emoji: unknown, path: Path) => {
    if (!isRecord(emoji)) {
      add(path, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
      return;
    }
    const id = emoji['id'];
    const name = emoji['name'];
    // A snowflake may come as a string or, from some libraries, as a JSON integer.
    const isCustom =
      (typeof id === 'string' && SNOWFLAKE.test(id)) ||
      (typeof id === 'number' && Number.isInteger(id) && id > 0);
    if (id !== undefined && id !== null && !isCustom) {
      add([...path, 'id'], 'NUMBER_TYPE_COERCE', `Value "${describeInput(id)}" is not snowflake.`);
      return;
    }
    if (!isCustom && (typeof name !== 'string' || !isOneEmoji(name))) {
      add([...path, 'name'], 'BUTTON_COMPONENT_INVALID_EMOJI', 'Invalid emoji');
    }
  };

  const checkSelect = (select: RawComponent, path: Path) => {
    checkCustomId(select, path, true);
    // Select Menu Structure: min_values 0-25 (default 1), max_values 1-25 (default 1).
    for (const [key, min] of [
      ['min_values', 0],
      ['max_values', 1],
    ] as const) {
      const value = select[key];
      if (value === undefined) continue;
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        add([...path, key], 'NUMBER_TYPE_COERCE', `Value "${describeInput(value)}" is not int.`);
      } else if (value < min) {
        add([...path, key], 'NUMBER_TYPE_MIN', `int value should be greater than or equal to ${min}.`);
      } else if (value > 25) {
        add([...path, key], 'NUMBER_TYPE_MAX', 'int value should be less than or equal to 25.');
      }
    }
    const placeholder = select['placeholder'];
    if (typeof placeholder === 'string' && discordLength(placeholder) > 150) {
      add([...path, 'placeholder'], 'BASE_TYPE_MAX_LENGTH', maxLength(150));
    }
    if (select['type'] === ComponentType.StringSelect) {
      const options = select['options'];
      if (!Array.isArray(options) || options.length < 1 || options.length > 25) {
        add([...path, 'options'], 'BASE_TYPE_BAD_LENGTH', lengthBetween(1, 25));
        return;
      }
      options.forEach((option: unknown, index) => {
        if (!isRecord(option)) return;
        for (const key of ['label', 'value'] as const) {
          const text = option[key];
          if (typeof text !== 'string' || text === '' || discordLength(text) > 100) {
            add([...path, 'options', index, key], 'BASE_TYPE_BAD_LENGTH', lengthBetween(1, 100));
          }
        }
        const description = option['description'];
        if (typeof description === 'string' && discordLength(description) > 100) {
          add([...path, 'options', index, 'description'], 'BASE_TYPE_MAX_LENGTH', maxLength(100));
        }
        if (option['emoji'] !== undefined) checkEmoji(option['emoji'], [...path, 'options', index, 'emoji']);
      });
    }
  };

  const checkRowChildren = (row: RawComponent, path: Path) => {
    const children = row['components'];
    if (!Array.isArray(children) || children.length < 1 || children.length > 5) {
      add([...path, 'components'], 'BASE_TYPE_BAD_LENGTH', lengthBetween(1, 5));
      return;
    }
    const hasSelect = children.some((child) => isRecord(child) && SELECT_TYPES.has(Number(child['type'])));
    if (hasSelect && children.length > 1) {
      add(
        [...path, 'components'],
        'COMPONENT_LAYOUT_WIDTH_EXCEEDED',
        'The specified component exceeds the maximum width',
      );
    }
    children.forEach((child: unknown, index) => {
      const childPath = [...path, 'components', index];
      if (!isRecord(child)) {
        add(childPath, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType');
      } else if (child['type'] === ComponentType.Button) {
        checkButton(child, childPath);
      } else if (SELECT_TYPES.has(Number(child['type']))) {
        checkSelect(child, childPath);
      } else {
        add(
          [...childPath, 'type'],
          'UNION_TYPE_CHOICES',
          'Value of field "type" must be one of (2, 3, 5, 6, 7, 8).',
        );
      }
    });
  };

  // Components v2 nest freely; only the rules that hold at every depth are checked there.
  const walkV2 = (component: RawComponent, path: Path) => {
    if (component['type'] === ComponentType.Button) checkButton(component, path);
    else if (SELECT_TYPES.has(Number(component['type']))) checkSelect(component, path);
    const accessory = component['accessory'];
    if (isRecord(accessory)) walkV2(accessory, [...path, 'accessory']);
    const children = component['components'];
    if (Array.isArray(children)) {
      children.forEach((child: unknown, index) => {
        if (isRecord(child)) walkV2(child, [...path, 'components', index]);
      });
    }
  };

  if (isComponentsV2) {
    components.forEach((component, index) => {
      if (isRecord(component)) walkV2(component, ['components', index]);
    });
    return errors;
  }
  if (components.length > 5) {
    add(['components'], 'BASE_TYPE_MAX_LENGTH', maxLength(5));
    return errors;
  }
  components.forEach((row, index) => {
    const path: Path = ['components', index];
    if (!isRecord(row) || row['type'] !== ComponentType.ActionRow) {
      add([...path, 'type'], 'UNION_TYPE_CHOICES', 'Value of field "type" must be one of (1,).');
      return;
    }
    checkRowChildren(row, path);
  });
  return errors;
}

/** Walks a message's components, yielding every button and select menu. */
export function* interactiveComponents(components: readonly unknown[] | undefined): Generator<RawComponent> {
  for (const component of components ?? []) {
    if (!isRecord(component)) continue;
    if (component['type'] === ComponentType.Button || SELECT_TYPES.has(Number(component['type']))) {
      yield component;
    }
    const accessory = component['accessory'];
    if (isRecord(accessory)) yield* interactiveComponents([accessory]);
    const children = component['components'];
    if (Array.isArray(children)) yield* interactiveComponents(children);
  }
}

/** Discord's checks on a message payload beyond its shape: embed total, components. */
export function messagePayloadErrors(payload: MessagePayload): FieldError[] {
  const errors: FieldError[] = [];
  const embeds = payload.embeds ?? [];
  const total = embeds.reduce((sum, embed) => sum + embedLength(embed), 0);
  if (total > 6000) {
    errors.push({
      path: ['embeds'],
      code: 'MAX_EMBED_SIZE_EXCEEDED',
      message: 'Embed size exceeds maximum size of 6000',
    });
  }
  const isComponentsV2 = ((payload.flags ?? 0) & MessageFlags.IsComponentsV2) !== 0;
  if (payload.components) errors.push(...componentErrors(payload.components, isComponentsV2));
  if (isComponentsV2) errors.push(...legacyFieldErrors(payload));
  // Allowed Mentions reference: a type both parsed and listed by id is a validation error. An empty
  // list (or null) lists no one, and is no error.
  const mentions = payload.allowed_mentions;
  for (const kind of ['users', 'roles'] as const) {
    if (mentions?.parse?.includes(kind) && (mentions[kind]?.length ?? 0) > 0) {
      errors.push({
        path: ['allowed_mentions'],
        code: 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
        message: `parse:["${kind}"] and ${kind}: [ids...] are mutually exclusive.`,
      });
    }
  }
  return errors;
}

/**
 * With IS_COMPONENTS_V2, "the `content` and `embeds` fields ... will fail with a 400" (Discord's
 * Create Message). Discord answers 50035 with MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2
 * at the field: "The 'content' field cannot be used when using MessageFlags.IS_COMPONENTS_V2" (as
 * bots meeting it quote it; the same for 'embeds'). A field sent as `null` passes, which is how a
 * message is moved to components v2 by an edit. Whether an empty string or list passes is not
 * documented: the emulator lets these falsy values through as well, as Discord's allowed_mentions
 * check does with `null` and `[]`.
 */
function legacyFieldErrors(payload: MessagePayload): FieldError[] {
  return (['content', 'embeds'] as const)
    .filter((field) => (payload[field]?.length ?? 0) > 0)
    .map((field) => ({
      path: [field],
      code: 'MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2',
      message: `The '${field}' field cannot be used when using MessageFlags.IS_COMPONENTS_V2`,
    }));
}

// ---------------------------------------------------------------- interaction callbacks

export const interactionCallbackSchema = z.object({
  type: z.enum(InteractionResponseType),
  data: z.unknown().optional(),
});

const choiceSchema = z.object({
  name: between(1, 100),
  name_localizations: z.record(z.string(), z.string()).nullable().exactOptional(),
  value: z.union([upTo(100), z.number()]),
});
export type ChoiceInput = z.infer<typeof choiceSchema>;

export const autocompleteResponseSchema = z.object({
  choices: z.array(choiceSchema).max(25, maxLength(25)),
});

export const modalResponseSchema = z.looseObject({
  custom_id: between(1, 100),
  title: between(1, 45),
  components: z.array(componentSchema).min(1, lengthBetween(1, 5)).max(5, lengthBetween(1, 5)),
});

// ---------------------------------------------------------------- application commands

const NAME_PATTERN = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const CONTEXT_MENU_NAME_PATTERN = /^[-_ '\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

const chatInputName = z
  .string()
  .regex(NAME_PATTERN, { error: 'String value did not match validation regex.' })
  .refine((name) => name === name.toLowerCase(), {
    error: 'Command name is invalid',
    params: { discordCode: 'APPLICATION_COMMAND_INVALID_NAME' },
  });

const optionChoiceSchema = z.object({
  name: between(1, 100),
  name_localizations: z.record(z.string(), z.string()).nullable().exactOptional(),
  value: z.union([upTo(100), z.number()]),
});

interface CommandOptionInput {
  type: ApplicationCommandOptionType;
  name: string;
  description: string;
  name_localizations?: Record<string, string> | null;
  description_localizations?: Record<string, string> | null;
  required?: boolean;
  autocomplete?: boolean;
  choices?: z.infer<typeof optionChoiceSchema>[];
  options?: CommandOptionInput[];
  channel_types?: ChannelType[];
  min_value?: number;
  max_value?: number;
  min_length?: number;
  max_length?: number;
}

const commandOptionSchema: z.ZodType<CommandOptionInput> = z.lazy(() =>
  z.object({
    type: z.enum(ApplicationCommandOptionType),
    name: chatInputName,
    description: between(1, 100),
    name_localizations: z.record(z.string(), z.string()).nullable().exactOptional(),
    description_localizations: z.record(z.string(), z.string()).nullable().exactOptional(),
    required: z.boolean().exactOptional(),
    autocomplete: z.boolean().exactOptional(),
    choices: z.array(optionChoiceSchema).max(25, maxLength(25)).exactOptional(),
    options: z.array(commandOptionSchema).max(25, maxLength(25)).exactOptional(),
    channel_types: z.array(z.enum(ChannelType)).exactOptional(),
    min_value: z.number().exactOptional(),
    max_value: z.number().exactOptional(),
    min_length: z.number().int().min(0).max(6000).exactOptional(),
    max_length: z.number().int().min(1).max(6000).exactOptional(),
  }),
);

export const commandSchema = z.object({
  name: z.string(),
  type: z.enum(ApplicationCommandType).exactOptional(),
  description: z.string().max(100, maxLength(100)).exactOptional(),
  name_localizations: z.record(z.string(), z.string()).nullable().exactOptional(),
  description_localizations: z.record(z.string(), z.string()).nullable().exactOptional(),
  options: z.array(commandOptionSchema).max(25, maxLength(25)).exactOptional(),
  default_member_permissions: z.string().nullable().exactOptional(),
  dm_permission: z.boolean().nullable().exactOptional(),
  nsfw: z.boolean().exactOptional(),
  integration_types: z.array(z.number().int()).exactOptional(),
  contexts: z.array(z.number().int()).nullable().exactOptional(),
});
export type CommandInput = z.infer<typeof commandSchema>;

const SUBCOMMAND_TYPES: ReadonlySet<ApplicationCommandOptionType> = new Set([
  ApplicationCommandOptionType.Subcommand,
  ApplicationCommandOptionType.SubcommandGroup,
]);

function optionListErrors(options: readonly CommandOptionInput[], path: Path, depth: number): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  let sawOptional = false;
  const hasSubcommands = options.some((option) => SUBCOMMAND_TYPES.has(option.type));
  options.forEach((option, index) => {
    const at = [...path, index];
    if (names.has(option.name)) {
      errors.push({
        path: [...at, 'name'],
        code: 'APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS',
        message: 'Option name already exists',
      });
    }
    names.add(option.name);
    errors.push(...optionLocalizationErrors(option, at));
    const isSub = SUBCOMMAND_TYPES.has(option.type);
    if (hasSubcommands && !isSub) {
      errors.push({
        path: [...at, 'type'],
        code: 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
        message: 'Sub-command and sub-command group option types are mutually exclusive to all other types',
      });
    }
    if (option.type === ApplicationCommandOptionType.SubcommandGroup && depth > 0) {
      errors.push({
        path: [...at, 'type'],
        code: 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
        message: 'Sub-command groups cannot be nested',
      });
    }
    if (!isSub) {
      if (option.required === true && sawOptional) {
        errors.push({
          path: [...at, 'required'],
          code: 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
          message: 'Required options must be placed before non-required options',
        });
      }
      if (option.required !== true) sawOptional = true;
      if (option.autocomplete === true && (option.choices?.length ?? 0) > 0) {
        errors.push({
          path: [...at, 'autocomplete'],
          code: 'APPLICATION_COMMAND_AUTOCOMPLETE_INVALID',
          message: 'Autocomplete cannot be enabled with choices',
        });
      }
      if (option.options !== undefined && option.options.length > 0) {
        errors.push({
          path: [...at, 'options'],
          code: 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
          message: 'Only sub-commands and groups may have options',
        });
      }
    } else if (option.options) {
      errors.push(...optionListErrors(option.options, [...at, 'options'], depth + 1));
    }
  });
  return errors;
}

const LOCALES: ReadonlySet<string> = new Set(Object.values(Locale));
const UNKNOWN_LOCALE = `Value must be one of (${[...LOCALES].map((locale) => `'${locale}'`).join(', ')}).`;
type Localizations = Readonly<Record<string, string>> | null | undefined;

/**
 * A localization map's keys are Discord locales (`de`, `pt-BR`, not `pt_BR`), each refused at its
 * own path as Discord does; `valueErrors` checks each translation under a known locale.
 */
function localizationErrors(
  map: Localizations,
  path: Path,
  valueErrors: (value: string, at: Path) => FieldError[],
): FieldError[] {
  const errors: FieldError[] = [];
  for (const [locale, value] of Object.entries(map ?? {})) {
    const at = [...path, locale];
    if (!LOCALES.has(locale)) errors.push({ path: at, code: 'BASE_TYPE_CHOICES', message: UNKNOWN_LOCALE });
    else errors.push(...valueErrors(value, at));
  }
  return errors;
}

/** A translated option name follows the option name's rules, refused at its locale. */
function localizedOptionName(value: string, at: Path): FieldError[] {
  if (!NAME_PATTERN.test(value)) {
    return [{ path: at, code: 'STRING_TYPE_REGEX', message: 'String value did not match validation regex.' }];
  }
  if (value !== value.toLowerCase()) {
    return [{ path: at, code: 'APPLICATION_COMMAND_INVALID_NAME', message: 'Command name is invalid' }];
  }
  return [];
}

/** A translated description or choice name: 1 to 100 characters. */
const localizedText =
  (max: number) =>
  (value: string, at: Path): FieldError[] =>
    value === '' || discordLength(value) > max
      ? [{ path: at, code: 'BASE_TYPE_BAD_LENGTH', message: lengthBetween(1, max) }]
      : [];

/** The translations of an option (or subcommand) and of its choices. */
function optionLocalizationErrors(option: CommandOptionInput, at: Path): FieldError[] {
  return [
    ...localizationErrors(option.name_localizations, [...at, 'name_localizations'], localizedOptionName),
    ...localizationErrors(
      option.description_localizations,
      [...at, 'description_localizations'],
      localizedText(100),
    ),
    ...(option.choices ?? []).flatMap((choice, index) =>
      localizationErrors(
        choice.name_localizations,
        [...at, 'choices', index, 'name_localizations'],
        localizedText(100),
      ),
    ),
  ];
}

/**
 * A command's translated names: a bad locale is refused at its key, but a bad translated command
 * name is one error on the whole map, as Discord answers it (it does not say which locale).
 */
function commandLocalizationErrors(command: CommandInput, path: Path, isChatInput: boolean): FieldError[] {
  const namePath = [...path, 'name_localizations'];
  const pattern = isChatInput ? NAME_PATTERN : CONTEXT_MENU_NAME_PATTERN;
  let badName = false;
  const errors = localizationErrors(command.name_localizations, namePath, (value) => {
    if (!pattern.test(value) || (isChatInput && value !== value.toLowerCase())) badName = true;
    return [];
  });
  if (badName) {
    errors.push({
      path: namePath,
      code: 'APPLICATION_COMMAND_INVALID_NAME',
      message: 'Command name is invalid',
    });
  }
  if (isChatInput) {
    errors.push(
      ...localizationErrors(
        command.description_localizations,
        [...path, 'description_localizations'],
        localizedText(100),
      ),
    );
  }
  return errors;
}

/** Discord's limit on the characters of one command, its options and choices together. */
const COMMAND_SIZE_LIMIT = 8000;

/** The length of a field that may be translated: its longest version counts. */
function longestVersion(text: string | undefined, localizations: Localizations): number {
  return Math.max(
    discordLength(text ?? ''),
    ...Object.values(localizations ?? {}).map((value) => discordLength(value)),
  );
}

/** The characters of an option (a subcommand or group with everything under it) and its choices. */
function optionSize(option: CommandOptionInput): number {
  let size =
    longestVersion(option.name, option.name_localizations) +
    longestVersion(option.description, option.description_localizations);
  for (const choice of option.choices ?? []) {
    size += longestVersion(choice.name, choice.name_localizations) + discordLength(String(choice.value));
  }
  for (const child of option.options ?? []) size += optionSize(child);
  return size;
}

/**
 * The characters Discord counts towards a command's 8000: the name, description and value of the
 * command, its options (subcommands and groups included) and their choices; of a translated field
 * only its longest version.
 */
export function commandSize(command: CommandInput): number {
  let size =
    longestVersion(command.name, command.name_localizations) +
    longestVersion(command.description, command.description_localizations);
  for (const option of command.options ?? []) size += optionSize(option);
  return size;
}

/** Rules on a command that depend on its type or span several options. */
export function commandErrors(command: CommandInput, path: Path = []): FieldError[] {
  const errors: FieldError[] = [];
  const type = command.type ?? ApplicationCommandType.ChatInput;
  if (type === ApplicationCommandType.ChatInput) {
    const parsed = chatInputName.safeParse(command.name);
    if (!parsed.success) {
      errors.push({
        path: [...path, 'name'],
        code: 'APPLICATION_COMMAND_INVALID_NAME',
        message: 'Command name is invalid',
      });
    }
    const description = command.description ?? '';
    if (description === '' || discordLength(description) > 100) {
      errors.push({
        path: [...path, 'description'],
        code: 'BASE_TYPE_BAD_LENGTH',
        message: lengthBetween(1, 100),
      });
    }
    errors.push(...optionListErrors(command.options ?? [], [...path, 'options'], 0));
  } else if (!CONTEXT_MENU_NAME_PATTERN.test(command.name)) {
    errors.push({
      path: [...path, 'name'],
      code: 'APPLICATION_COMMAND_INVALID_NAME',
      message: 'Command name is invalid',
    });
  }
  errors.push(...commandLocalizationErrors(command, path, type === ApplicationCommandType.ChatInput));
  if (commandSize(command) > COMMAND_SIZE_LIMIT) {
    errors.push({
      path: [...path],
      code: 'APPLICATION_COMMAND_TOO_LARGE',
      message: `Command exceeds maximum size (${COMMAND_SIZE_LIMIT})`,
    });
  }
  return errors;
}

// ---------------------------------------------------------------- parsing

function describeInput(input: unknown): string {
  return typeof input === 'string' ? input : (JSON.stringify(input) ?? String(input));
}

/** Turns one zod issue into Discord's field error. */
function toFieldError(issue: z.core.$ZodIssue, prefix: Path): FieldError {
  const path: Path = [
    ...prefix,
    ...issue.path.map((segment) => (typeof segment === 'number' ? segment : String(segment))),
  ];
  const message = issue.message;
  switch (issue.code) {
    case 'custom': {
      const code: unknown = issue.params?.['discordCode'];
      return { path, code: typeof code === 'string' ? code : 'BASE_TYPE_INVALID', message };
    }
    case 'too_big':
    case 'too_small': {
      if (message === REQUIRED) return { path, code: 'BASE_TYPE_REQUIRED', message };
      if (message.startsWith('Must be between')) return { path, code: 'BASE_TYPE_BAD_LENGTH', message };
      if (message.endsWith('or fewer in length.')) return { path, code: 'BASE_TYPE_MAX_LENGTH', message };
      const isMax = issue.code === 'too_big';
      const bound = isMax ? issue.maximum : issue.minimum;
      return {
        path,
        code: isMax ? 'NUMBER_TYPE_MAX' : 'NUMBER_TYPE_MIN',
        message: `int value should be ${isMax ? 'less' : 'greater'} than or equal to ${String(bound)}.`,
      };
    }
    case 'invalid_format':
      return { path, code: 'STRING_TYPE_REGEX', message: 'String value did not match validation regex.' };
    case 'invalid_value':
      return {
        path,
        code: 'BASE_TYPE_CHOICES',
        message: `Value must be one of (${issue.values.map((value) => describeInput(value)).join(', ')}).`,
      };
    default:
      return { path, code: 'BASE_TYPE_INVALID', message };
  }
}

/** Messages for type errors in Discord's words; length messages come from the schemas themselves. */
const discordIssueMessages: z.core.$ZodErrorMap = (issue) => {
  if (issue.code !== 'invalid_type' && issue.code !== 'invalid_union') return undefined;
  if (issue.input === undefined) return REQUIRED;
  if (issue.code === 'invalid_type') {
    switch (issue.expected) {
      case 'boolean':
        return 'Must be either true or false.';
      case 'number':
      case 'int':
        return `Value "${describeInput(issue.input)}" is not int.`;
      case 'object':
        return 'Only dictionaries may be used in a DictType';
      case 'array':
        return 'Only iterables may be used in a ListType';
      default:
        return `Could not interpret "${describeInput(issue.input)}" as ${issue.expected}.`;
    }
  }
  return `Value "${describeInput(issue.input)}" is not valid.`;
};

function issueCode(error: FieldError): FieldError {
  if (error.message === REQUIRED) return { ...error, code: 'BASE_TYPE_REQUIRED' };
  if (error.message === 'Must be either true or false.') return { ...error, code: 'BASE_TYPE_BOOLEAN' };
  if (error.message.endsWith('is not int.')) return { ...error, code: 'NUMBER_TYPE_COERCE' };
  if (error.message.includes('DictType')) return { ...error, code: 'DICT_TYPE_CONVERT' };
  if (error.message.includes('ListType')) return { ...error, code: 'LIST_TYPE_CONVERT' };
  return error;
}

/**
 * Parses `input` with `schema`, or throws 400 / 50035 with Discord's nested errors. `prefix`
 * places the errors inside the body (`['data']` for an interaction callback's message).
 */
export function parseBody<T extends z.ZodType>(schema: T, input: unknown, prefix: Path = []): z.infer<T> {
  const result = schema.safeParse(input, { error: discordIssueMessages });
  if (result.success) return result.data;
  throw DiscordErrors.invalidFormBody(
    result.error.issues.map((issue) => issueCode(toFieldError(issue, prefix))),
  );
}

/** Throws 400 / 50035 when `errors` is not empty, with each path under `prefix`. */
export function throwFieldErrors(errors: readonly FieldError[], prefix: Path = []): void {
  if (errors.length === 0) return;
  throw DiscordErrors.invalidFormBody(
    errors.map((error) => ({ ...error, path: [...prefix, ...error.path] })),
  );
}
