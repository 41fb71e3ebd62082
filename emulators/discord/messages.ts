import { extname } from 'node:path';
import { EmbedType, MessageFlags, MessageReferenceType, MessageType } from 'discord-api-types/v10';
import type {
  APIAttachment,
  APIEmbed,
  APIEmbedImage,
  APIMessageInteraction,
  APIMessageInteractionMetadata,
  APIMessageReference,
  APIMessageTopLevelComponent,
  APIUser,
  Snowflake,
} from 'discord-api-types/v10';
import type { UploadedFile } from './body.js';
import { DiscordErrors } from './errors.js';
import type { SnowflakeGenerator } from './snowflake.js';
import { snowflakeTimestamp } from './snowflake.js';
import type { MessagePayload } from './validation.js';
import type { EmulatedMessage, EmulatorChannel, World } from './world.js';

/** Discord's upload limit for a guild without boosts: 10 MiB per file. */
export const ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;

/** Who sends a message and through what: decides type, author fields and which flags are allowed. */
export interface MessageOrigin {
  type: MessageType;
  author: APIUser;
  /** Set for interaction responses: Discord marks them with the application as webhook. */
  webhookId?: Snowflake;
  applicationId?: Snowflake;
  interactionMetadata?: APIMessageInteractionMetadata;
  interaction?: APIMessageInteraction;
  /** The clicked message, on the response to a message component. */
  messageReference?: APIMessageReference;
  /** Only interaction responses may be ephemeral. */
  allowEphemeral: boolean;
  /** Flags the emulator adds itself (Loading for a deferred reply). */
  extraFlags?: number;
}

const ATTACHMENT_SCHEME = 'attachment://';

const SETTABLE_FLAGS =
  MessageFlags.SuppressEmbeds | MessageFlags.SuppressNotifications | MessageFlags.IsComponentsV2;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.pdf': 'application/pdf',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
};

/** Width and height of a PNG or GIF, read from its header, as Discord reports for images. */
function imageSize(data: Buffer): { width: number; height: number } | undefined {
  const isPng =
    data.length >= 24 && data.readUInt32BE(0) === 0x89504e47 && data.readUInt32BE(12) === 0x49484452;
  if (isPng) return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
  const isGif = data.length >= 10 && data.subarray(0, 3).toString('latin1') === 'GIF';
  if (isGif) return { width: data.readUInt16LE(6), height: data.readUInt16LE(8) };
  return undefined;
}

function contentTypeOf(file: UploadedFile, filename: string): string {
  const declared = file.contentType.split(';')[0]?.trim() ?? '';
  if (declared !== '' && declared !== 'application/octet-stream') return file.contentType;
  return CONTENT_TYPES[extname(filename).toLowerCase()] ?? 'application/octet-stream';
}

/** Builds, edits and stores messages from validated payloads. */
export class MessageFactory {
  constructor(
    private readonly world: World,
    private readonly ids: SnowflakeGenerator,
    private readonly baseUrl: () => string,
  ) {}

  create(
    channel: Pick<EmulatorChannel, 'id' | 'guild_id'>,
    payload: MessagePayload,
    files: readonly UploadedFile[],
    origin: MessageOrigin,
  ): EmulatedMessage {
    const id = this.ids.next();
    const allowed = SETTABLE_FLAGS | (origin.allowEphemeral ? MessageFlags.Ephemeral : 0);
    const flags = ((payload.flags ?? 0) & allowed) | (origin.extraFlags ?? 0);
    const ephemeral = (flags & MessageFlags.Ephemeral) !== 0;
    const content = payload.content ?? '';
    const placed = this.placeFiles(
      (payload.embeds ?? []).map(toApiEmbed),
      this.attachments(id, channel.id, payload.attachments, files, [], ephemeral),
    );
    const message: EmulatedMessage = {
      id,
      channel_id: channel.id,
      ...(channel.guild_id === undefined ? {} : { guild_id: channel.guild_id }),
      author: origin.author,
      content,
      timestamp: new Date(snowflakeTimestamp(id)).toISOString(),
      edited_timestamp: null,
      tts: payload.tts ?? false,
      pinned: false,
      type: origin.type,
      flags,
      attachments: placed.attachments,
      embeds: placed.embeds,
      components: toComponents(payload.components),
      ...this.mentions(content, payload, channel.guild_id, origin.webhookId !== undefined),
      ...(origin.webhookId === undefined ? {} : { webhook_id: origin.webhookId }),
      ...(origin.applicationId === undefined ? {} : { application_id: origin.applicationId }),
      ...(origin.interactionMetadata === undefined
        ? {}
        : { interaction_metadata: origin.interactionMetadata }),
      ...(origin.interaction === undefined ? {} : { interaction: origin.interaction }),
      ...(origin.messageReference === undefined ? {} : { message_reference: origin.messageReference }),
    };
    const reference = payload.message_reference;
    if (reference) {
      const referenced = this.world.messages.get(reference.message_id)?.message;
      if (!referenced || referenced.channel_id !== channel.id) {
        throw DiscordErrors.invalidFormBody([
          {
            path: ['message_reference'],
            code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE',
            message: 'Unknown message',
          },
        ]);
      }
      message.type = MessageType.Reply;
      message.message_reference = {
        type: MessageReferenceType.Default,
        message_id: referenced.id,
        channel_id: channel.id,
        ...(channel.guild_id === undefined ? {} : { guild_id: channel.guild_id }),
      };
      message.referenced_message = referenced;
    }
    return message;
  }

  /**
   * Applies an edit: fields present in the payload replace the old ones (`null` clears), new files
   * are added, and `attachments` (when given) lists the old attachments to keep, those the old
   * embeds show included.
   */
  edit(message: EmulatedMessage, payload: MessagePayload, files: readonly UploadedFile[]): EmulatedMessage {
    const ephemeral = ((message.flags ?? 0) & MessageFlags.Ephemeral) !== 0;
    let flags = (message.flags ?? 0) & ~MessageFlags.Loading;
    if (payload.flags !== undefined && payload.flags !== null) {
      flags = (flags & ~MessageFlags.SuppressEmbeds) | (payload.flags & MessageFlags.SuppressEmbeds);
      flags |= payload.flags & MessageFlags.IsComponentsV2;
    }
    const content = payload.content === undefined ? message.content : (payload.content ?? '');
    const held = [...message.attachments, ...this.filesShownIn(message)];
    const placed = this.placeFiles(
      payload.embeds === undefined ? message.embeds : (payload.embeds ?? []).map(toApiEmbed),
      payload.attachments === undefined && files.length === 0
        ? held
        : this.attachments(
            message.id,
            message.channel_id,
            payload.attachments,
            files,
            payload.attachments === undefined ? held : [],
            ephemeral,
            held,
          ),
    );
    const edited: EmulatedMessage = {
      ...message,
      content,
      flags,
      edited_timestamp: new Date(snowflakeTimestamp(this.ids.next())).toISOString(),
      embeds: placed.embeds,
      ...(payload.components === undefined ? {} : { components: toComponents(payload.components) }),
      attachments: placed.attachments,
    };
    if (payload.content !== undefined) {
      Object.assign(
        edited,
        this.mentions(content, payload, message.guild_id, message.webhook_id !== undefined),
      );
    }
    return edited;
  }

  /**
   * Resolves a payload's `attachments` against uploaded `files[n]` parts (matched by `id` = `n`)
   * and, on edits, the message's existing attachments (matched by snowflake). Files the payload
   * does not mention are attached too, as Discord does.
   */
  private attachments(
    messageId: Snowflake,
    channelId: Snowflake,
    refs: MessagePayload['attachments'],
    files: readonly UploadedFile[],
    kept: readonly APIAttachment[],
    ephemeral: boolean,
    existing: readonly APIAttachment[] = [],
  ): APIAttachment[] {
    const result: APIAttachment[] = [...kept];
    const used = new Set<string>();
    for (const ref of refs ?? []) {
      const key = String(ref.id);
      const file = files.find((candidate) => candidate.key === key);
      if (file) {
        used.add(key);
        result.push(
          this.storeFile(
            messageId,
            channelId,
            file,
            ref.filename ?? file.filename,
            ref.description,
            ephemeral,
          ),
        );
        continue;
      }
      const old = existing.find((attachment) => attachment.id === key);
      if (old && !result.includes(old)) result.push(old);
    }
    for (const file of files) {
      if (!used.has(file.key))
        result.push(this.storeFile(messageId, channelId, file, file.filename, undefined, ephemeral));
    }
    if (result.length > 10) {
      throw DiscordErrors.invalidFormBody([
        { path: ['attachments'], code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 10 or fewer in length.' },
      ]);
    }
    return result;
  }

  private storeFile(
    messageId: Snowflake,
    channelId: Snowflake,
    file: UploadedFile,
    filename: string,
    description: string | undefined,
    ephemeral: boolean,
  ): APIAttachment {
    if (file.data.length > ATTACHMENT_SIZE_LIMIT) throw DiscordErrors.entityTooLarge();
    const id = this.ids.next();
    const url = `${this.baseUrl()}/attachments/${channelId}/${id}/${encodeURIComponent(filename)}`;
    const size = imageSize(file.data);
    const attachment: APIAttachment = {
      id,
      filename,
      size: file.data.length,
      url,
      proxy_url: url,
      content_type: contentTypeOf(file, filename),
      ...(description === undefined ? {} : { description }),
      ...(size ? { width: size.width, height: size.height } : {}),
      ...(ephemeral ? { ephemeral: true } : {}),
    };
    this.world.attachments.set(id, { attachment, data: file.data, channelId, messageId });
    return attachment;
  }

  /**
   * Points `attachment://name` media of the embeds at the file of that name, as Discord rewrites
   * them (the file's url and proxy url, its size and type), and leaves the files the embeds show
   * out of `attachments`: Discord lists only the files no embed uses (discord/discord-api-docs#1340;
   * #8279: "attachments used in embeds and components are not included"). `files` are all the
   * files the message holds, so one an edit stops showing is listed again.
   */
  private placeFiles(
    embeds: readonly APIEmbed[],
    files: readonly APIAttachment[],
  ): { embeds: APIEmbed[]; attachments: APIAttachment[] } {
    const shown = new Set<Snowflake>();
    const fileAt = (url: string | undefined): APIAttachment | undefined => {
      if (url === undefined) return undefined;
      const name = url.startsWith(ATTACHMENT_SCHEME) ? url.slice(ATTACHMENT_SCHEME.length) : undefined;
      // An embed read back and sent again names the file by the url Discord gave it.
      const file = files.find((candidate) =>
        name === undefined ? candidate.url === url : candidate.filename === name,
      );
      if (file) shown.add(file.id);
      return file;
    };
    const media = (image: APIEmbedImage | undefined): APIEmbedImage | undefined => {
      const file = fileAt(image?.url);
      if (!image || !file) return image;
      return {
        url: file.url,
        proxy_url: file.proxy_url,
        ...(typeof file.width === 'number' && typeof file.height === 'number'
          ? { width: file.width, height: file.height }
          : {}),
        ...(file.content_type === undefined ? {} : { content_type: file.content_type }),
      };
    };
    const icon = <T extends { icon_url?: string; proxy_icon_url?: string }>(
      part: T | undefined,
    ): T | undefined => {
      const file = fileAt(part?.icon_url);
      return part && file ? { ...part, icon_url: file.url, proxy_icon_url: file.proxy_url } : part;
    };
    const placed = embeds.map((embed) => {
      const result: APIEmbed = { ...embed };
      const image = media(embed.image);
      const thumbnail = media(embed.thumbnail);
      const author = icon(embed.author);
      const footer = icon(embed.footer);
      if (image) result.image = image;
      if (thumbnail) result.thumbnail = thumbnail;
      if (author) result.author = author;
      if (footer) result.footer = footer;
      return result;
    });
    return { embeds: placed, attachments: files.filter((file) => !shown.has(file.id)) };
  }

  /** The message's own files that its embeds show (and so are not in its `attachments`). */
  private filesShownIn(message: EmulatedMessage): APIAttachment[] {
    const urls = message.embeds.flatMap((embed) => [
      embed.image?.url,
      embed.thumbnail?.url,
      embed.author?.icon_url,
      embed.footer?.icon_url,
    ]);
    const files: APIAttachment[] = [];
    for (const url of urls) {
      // The emulator serves a file at /attachments/{channel id}/{attachment id}/{name}.
      const id = url === undefined ? undefined : /\/attachments\/\d+\/(\d+)\/[^/]*$/.exec(url)?.[1];
      const stored = id === undefined ? undefined : this.world.attachments.get(id);
      const isOwn = stored?.messageId === message.id && stored.attachment.url === url;
      if (stored && isOwn && !files.some((file) => file.id === stored.attachment.id)) {
        files.push(stored.attachment);
      }
    }
    return files;
  }

  /**
   * Users and roles pinged by the content, as far as `allowed_mentions` lets them be. Without it,
   * a regular message parses every kind, while interaction responses and follow-ups parse user
   * mentions only (Discord's message reference, "Allowed Mentions"). The emulator's only webhook
   * messages are those of interactions (`webhookId` is the application's).
   */
  private mentions(
    content: string,
    payload: MessagePayload,
    guildId: Snowflake | undefined,
    fromInteraction: boolean,
  ): Pick<EmulatedMessage, 'mentions' | 'mention_roles' | 'mention_everyone'> {
    const allowed = payload.allowed_mentions ?? undefined;
    const parse = new Set(
      allowed ? (allowed.parse ?? []) : fromInteraction ? ['users'] : ['users', 'roles', 'everyone'],
    );
    const userIds = new Set([...content.matchAll(/<@!?(\d{17,20})>/g)].map((match) => match[1] ?? ''));
    const roleIds = new Set([...content.matchAll(/<@&(\d{17,20})>/g)].map((match) => match[1] ?? ''));
    const guildRoles = guildId === undefined ? [] : (this.world.guilds.get(guildId)?.roles ?? []);
    const mentions = [...userIds]
      .filter((id) => parse.has('users') || allowed?.users?.includes(id) === true)
      .flatMap((id) => {
        const user = this.world.user(id);
        return user ? [user] : [];
      });
    const mentionRoles = [...roleIds].filter(
      (id) =>
        guildRoles.some((role) => role.id === id) &&
        (parse.has('roles') || allowed?.roles?.includes(id) === true),
    );
    return {
      mentions,
      mention_roles: mentionRoles,
      mention_everyone: parse.has('everyone') && /@(everyone|here)\b/.test(content),
    };
  }
}

/**
 * True when a message shows nothing: Discord refuses such a message with 50006. Content of nothing
 * but whitespace counts as none: Discord trims it, and a message of spaces or new lines is refused.
 */
export function isEmptyMessage(message: EmulatedMessage): boolean {
  return (
    message.content.trim() === '' &&
    message.embeds.length === 0 &&
    (message.components?.length ?? 0) === 0 &&
    message.attachments.length === 0 &&
    (message.sticker_items?.length ?? 0) === 0 &&
    message.poll === undefined
  );
}

function toApiEmbed(embed: NonNullable<MessagePayload['embeds']>[number]): APIEmbed {
  return { type: EmbedType.Rich, ...embed };
}

/** Components were checked by `componentErrors`; Discord echoes them as sent. */
function toComponents(components: MessagePayload['components']): APIMessageTopLevelComponent[] {
  return components ?? [];
}
