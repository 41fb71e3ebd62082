import { RESTJSONErrorCodes } from 'discord-api-types/v10';
import type {
  RESTError,
  RESTErrorData,
  RESTErrorFieldInformation,
  RESTRateLimit,
} from 'discord-api-types/v10';

/** One field problem, addressed by its path in the request body (`['embeds', 0, 'title']`). */
export interface FieldError {
  path: readonly (string | number)[];
  code: string;
  message: string;
}

/**
 * An answer the emulator gives instead of a success: thrown inside route handlers and turned into
 * a response with Discord's JSON error shape.
 */
export class DiscordHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: RESTError | RESTRateLimit,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(`${status} ${body.message}`);
    this.name = 'DiscordHttpError';
  }

  get code(): number {
    return this.body.code ?? 0;
  }
}

function coded(status: number, code: RESTJSONErrorCodes, message: string): DiscordHttpError {
  return new DiscordHttpError(status, { code, message });
}

/** Nests field errors the way Discord does: `{ embeds: { 0: { title: { _errors: [...] } } } }`. */
export function nestFieldErrors(errors: readonly FieldError[]): RESTErrorData {
  type Node = { [k: string]: Node | RESTErrorFieldInformation[] };
  const root: Node = {};
  for (const error of errors) {
    let node = root;
    for (const segment of error.path) {
      const key = String(segment);
      const next = node[key];
      if (next === undefined || Array.isArray(next)) {
        const created: Node = {};
        node[key] = created;
        node = created;
      } else {
        node = next;
      }
    }
    const list = node['_errors'];
    const info = { code: error.code, message: error.message };
    if (Array.isArray(list)) list.push(info);
    else node['_errors'] = [info];
  }
  return root as RESTErrorData;
}

/** Discord's answers, by name. Messages are Discord's own wording. */
export const DiscordErrors = {
  badRequest: () => new DiscordHttpError(400, { code: 0, message: '400: Bad Request' }),
  unauthorized: () => new DiscordHttpError(401, { code: 0, message: '401: Unauthorized' }),
  notFound: () => new DiscordHttpError(404, { code: 0, message: '404: Not Found' }),
  methodNotAllowed: () => new DiscordHttpError(405, { code: 0, message: '405: Method Not Allowed' }),
  invalidJson: () =>
    coded(400, RESTJSONErrorCodes.RequestBodyContainsInvalidJSON, 'The request body contains invalid JSON.'),
  unknownApplication: () => coded(404, RESTJSONErrorCodes.UnknownApplication, 'Unknown Application'),
  notAuthorizedForApplication: () =>
    coded(
      403,
      RESTJSONErrorCodes.NotAuthorizedToPerformThisActionOnThisApplication,
      'You are not authorized to perform this action on this application',
    ),
  unknownChannel: () => coded(404, RESTJSONErrorCodes.UnknownChannel, 'Unknown Channel'),
  unknownGuild: () => coded(404, RESTJSONErrorCodes.UnknownGuild, 'Unknown Guild'),
  unknownMember: () => coded(404, RESTJSONErrorCodes.UnknownMember, 'Unknown Member'),
  unknownMessage: () => coded(404, RESTJSONErrorCodes.UnknownMessage, 'Unknown Message'),
  unknownUser: () => coded(404, RESTJSONErrorCodes.UnknownUser, 'Unknown User'),
  unknownWebhook: () => coded(404, RESTJSONErrorCodes.UnknownWebhook, 'Unknown Webhook'),
  unknownInteraction: () => coded(404, RESTJSONErrorCodes.UnknownInteraction, 'Unknown interaction'),
  unknownCommand: () =>
    coded(404, RESTJSONErrorCodes.UnknownApplicationCommand, 'Unknown application command'),
  entityTooLarge: () => coded(413, RESTJSONErrorCodes.RequestEntityTooLarge, 'Request entity too large'),
  alreadyAcknowledged: () =>
    coded(
      400,
      RESTJSONErrorCodes.InteractionHasAlreadyBeenAcknowledged,
      'Interaction has already been acknowledged.',
    ),
  missingAccess: () => coded(403, RESTJSONErrorCodes.MissingAccess, 'Missing Access'),
  missingPermissions: () => coded(403, RESTJSONErrorCodes.MissingPermissions, 'Missing Permissions'),
  cannotEditOthersMessage: () =>
    coded(
      403,
      RESTJSONErrorCodes.CannotEditMessageAuthoredByAnotherUser,
      'Cannot edit a message authored by another user',
    ),
  emptyMessage: () => coded(400, RESTJSONErrorCodes.CannotSendAnEmptyMessage, 'Cannot send an empty message'),
  nonTextChannel: () =>
    coded(
      400,
      RESTJSONErrorCodes.CannotSendMessagesInNonTextChannel,
      'Cannot send messages in a non-text channel',
    ),
  invalidWebhookToken: () => coded(401, RESTJSONErrorCodes.InvalidWebhookToken, 'Invalid Webhook Token'),
  maxApplicationCommands: (limit: number) =>
    coded(
      400,
      RESTJSONErrorCodes.MaximumNumberOfApplicationCommandsReached,
      `Maximum number of application commands reached (${limit})`,
    ),
  invalidFormBody: (errors: readonly FieldError[]) =>
    new DiscordHttpError(400, {
      code: RESTJSONErrorCodes.InvalidFormBodyOrContentType,
      message: 'Invalid Form Body',
      errors: nestFieldErrors(errors),
    }),
} as const;
