/** Buttons and the message shape every music renderer returns (plain JSON, ready to send). */
import { ActionRowBuilder, ButtonBuilder } from '@discordjs/builders';
import {
  ButtonStyle,
  type APIActionRowComponent,
  type APIButtonComponent,
  type APIEmbed,
} from 'discord-api-types/v10';
import { clip, LABEL_MAX } from './music-text.js';

export interface MusicMessage {
  content?: string;
  embeds: APIEmbed[];
  components: APIActionRowComponent<APIButtonComponent>[];
}

export interface ButtonSpec {
  customId: string;
  label: string;
  style?: ButtonStyle;
  disabled?: boolean;
}

export const MAX_ROWS = 5;
export const MAX_BUTTONS_PER_ROW = 5;

export function button(spec: ButtonSpec): ButtonBuilder {
  return new ButtonBuilder()
    .setCustomId(spec.customId)
    .setLabel(clip(spec.label, LABEL_MAX) || '…')
    .setStyle(spec.style ?? ButtonStyle.Secondary)
    .setDisabled(spec.disabled ?? false);
}

/** One action row per group, each split into rows of five; at most five rows in all. */
export function buttonRows(
  groups: readonly (readonly ButtonSpec[])[],
): APIActionRowComponent<APIButtonComponent>[] {
  const rows: ButtonSpec[][] = [];
  for (const group of groups) {
    for (let start = 0; start < group.length; start += MAX_BUTTONS_PER_ROW)
      rows.push(group.slice(start, start + MAX_BUTTONS_PER_ROW));
  }
  return rows
    .filter((row) => row.length > 0)
    .slice(0, MAX_ROWS)
    .map((row) => new ActionRowBuilder<ButtonBuilder>().addComponents(row.map(button)).toJSON());
}

export function linkButtonRow(url: string, text: string): APIActionRowComponent<APIButtonComponent> {
  return new ActionRowBuilder<ButtonBuilder>()
    .addComponents(new ButtonBuilder().setStyle(ButtonStyle.Link).setLabel(clip(text, LABEL_MAX)).setURL(url))
    .toJSON();
}
