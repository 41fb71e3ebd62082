/**
 * fast-check arbitraries for the reliability suite: chat-input interactions built from the
 * commands the bot registered (so every generated payload is one Discord could send), and forged
 * `custom_id`s derived from the ones the bot really put on its messages.
 */
import fc from 'fast-check';
import {
  ApplicationCommandOptionType,
  type APIApplicationCommand,
  type APIApplicationCommandOption,
} from 'discord-api-types/v10';

export interface Ids {
  users: readonly string[];
  channels: readonly string[];
  roles: readonly string[];
}

export interface GeneratedSlash {
  name: string;
  subcommandGroup?: string;
  subcommand?: string;
  options: Record<string, string | number | boolean>;
  /** The name of an autocomplete option to type into instead of running the command, if any. */
  focused?: string;
}

/** Strings a user could type: unicode, control characters, markup, huge ones near the limit. */
export function userString(maxLength = 6000, minLength = 0): fc.Arbitrary<string> {
  const max = Math.max(minLength, Math.min(maxLength, 6000));
  const pieces = fc.constantFrom(
    '@everyone',
    '<@1>',
    '```',
    '\u0000',
    '\u202e',
    '👩‍👩‍👧‍👦',
    'Zürich',
    '東京',
    "'; DROP TABLE x; --",
    '../../etc/passwd',
    '%00%ff',
    'geo:999,999|x',
    'geo:52.5,13.4|Berlin',
    'spotify:track:xyz',
    ' ',
  );
  return fc
    .oneof(
      { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: Math.min(max, 64) }) },
      { weight: 3, arbitrary: fc.array(pieces, { maxLength: 6 }).map((parts) => parts.join('')) },
      { weight: 1, arbitrary: fc.constant('x'.repeat(max)) },
      { weight: 1, arbitrary: fc.constant('🌧'.repeat(Math.floor(max / 2))) },
    )
    .map((value) => {
      // Discord counts UTF-16 units for max_length; keep within the declared bounds.
      let clipped = value.slice(0, max);
      if (clipped.length < minLength) clipped = clipped.padEnd(minLength, 'a');
      return clipped;
    });
}

function optionValue(
  option: APIApplicationCommandOption,
  ids: Ids,
): fc.Arbitrary<string | number | boolean> | undefined {
  const withChoices = option as { choices?: { value: string | number }[] };
  if (withChoices.choices && withChoices.choices.length > 0) {
    return fc.constantFrom(...withChoices.choices.map((choice) => choice.value));
  }
  switch (option.type) {
    case ApplicationCommandOptionType.String: {
      const bounds = option as { min_length?: number; max_length?: number };
      return userString(bounds.max_length ?? 6000, bounds.min_length ?? 0);
    }
    case ApplicationCommandOptionType.Integer:
    case ApplicationCommandOptionType.Number: {
      const bounds = option as { min_value?: number; max_value?: number };
      const min = bounds.min_value ?? -(2 ** 31);
      const max = bounds.max_value ?? 2 ** 31;
      return option.type === ApplicationCommandOptionType.Integer
        ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
        : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case ApplicationCommandOptionType.Boolean:
      return fc.boolean();
    case ApplicationCommandOptionType.User:
      return fc.constantFrom(...ids.users);
    case ApplicationCommandOptionType.Channel:
      return fc.constantFrom(...ids.channels);
    case ApplicationCommandOptionType.Role:
      return fc.constantFrom(...ids.roles);
    case ApplicationCommandOptionType.Mentionable:
      return fc.constantFrom(...ids.users, ...ids.roles);
    default:
      return undefined;
  }
}

function leafOptions(
  path: Omit<GeneratedSlash, 'options'>,
  options: readonly APIApplicationCommandOption[],
  ids: Ids,
): fc.Arbitrary<GeneratedSlash> | undefined {
  const entries: Record<string, fc.Arbitrary<string | number | boolean>> = {};
  const required: string[] = [];
  const autocomplete: string[] = [];
  for (const option of options) {
    const value = optionValue(option, ids);
    if (!value) {
      if ((option as { required?: boolean }).required) return undefined;
      continue;
    }
    entries[option.name] = value;
    if ((option as { required?: boolean }).required) required.push(option.name);
    if ((option as { autocomplete?: boolean }).autocomplete) autocomplete.push(option.name);
  }
  const record = fc.record(entries, { requiredKeys: required });
  const focused =
    autocomplete.length > 0 ? fc.option(fc.constantFrom(...autocomplete), { freq: 3 }) : fc.constant(null);
  return fc.tuple(record, focused).map(([values, focus]) => ({
    ...path,
    options: values,
    ...(focus === null ? {} : { focused: focus }),
  }));
}

/** Every (command, group, subcommand) leaf of the registered commands, with generated options. */
export function slashArbitrary(
  commands: readonly APIApplicationCommand[],
  ids: Ids,
): fc.Arbitrary<GeneratedSlash> {
  const leaves: fc.Arbitrary<GeneratedSlash>[] = [];
  for (const command of commands) {
    const options = command.options ?? [];
    const subs = options.filter(
      (option) =>
        option.type === ApplicationCommandOptionType.Subcommand ||
        option.type === ApplicationCommandOptionType.SubcommandGroup,
    );
    if (subs.length === 0) {
      const leaf = leafOptions({ name: command.name }, options, ids);
      if (leaf) leaves.push(leaf);
      continue;
    }
    for (const sub of subs) {
      if (sub.type === ApplicationCommandOptionType.SubcommandGroup) {
        for (const inner of sub.options ?? []) {
          const leaf = leafOptions(
            { name: command.name, subcommandGroup: sub.name, subcommand: inner.name },
            inner.options ?? [],
            ids,
          );
          if (leaf) leaves.push(leaf);
        }
      } else if (sub.type === ApplicationCommandOptionType.Subcommand) {
        const leaf = leafOptions({ name: command.name, subcommand: sub.name }, sub.options ?? [], ids);
        if (leaf) leaves.push(leaf);
      }
    }
  }
  return fc.oneof(...leaves);
}

/**
 * A `custom_id` a client could send for a bot message: a real one truncated, with a segment
 * swapped for junk, with a foreign user id, or made up; always 1–100 characters, as Discord allows.
 */
export function forgedCustomId(real: readonly string[], ids: Ids): fc.Arbitrary<string> {
  const base = real.length > 0 ? fc.constantFrom(...real) : fc.constant('music:x');
  const truncated = base.chain((id) =>
    fc.integer({ min: 1, max: Math.max(1, id.length) }).map((n) => id.slice(0, n)),
  );
  const swapped = fc
    .tuple(base, fc.nat(), fc.string({ unit: 'grapheme', minLength: 0, maxLength: 20 }))
    .map(([id, at, junk]) => {
      const parts = id.split(':');
      parts[at % parts.length] = junk;
      return parts.join(':');
    });
  const foreignUser = fc
    .tuple(base, fc.constantFrom(...ids.users, '0', '99999999999999999999'))
    .map(([id, user]) => id.replace(/\d{15,21}/g, user));
  const made = fc.oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 100 }),
    fc.constantFrom(
      'music',
      'weather',
      'music:',
      ':',
      '::::',
      'help',
      'weather:page:-1',
      'music:page:999999999999',
    ),
  );
  return fc
    .oneof(truncated, swapped, foreignUser, made)
    .map((id) => id.slice(0, 100))
    .filter((id) => id.length > 0);
}
