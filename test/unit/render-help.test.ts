import { SlashCommandBuilder } from '@discordjs/builders';
import { describe, expect, it } from 'vitest';
import { renderHelp } from '../../src/bot/render/help.js';
import { commands } from '../../src/commands/index.js';

describe('the /help embed', () => {
  it('lists every subcommand of every registered command, within Discord’s limits', () => {
    const embed = renderHelp(commands.map((command) => ({ command: command.data.toJSON() }))).toJSON();
    const text = (embed.fields ?? []).map((field) => field.value).join('\n');
    expect(text).toContain('`/music playlist view`');
    expect(text).toContain('`/weather schedule add`');
    expect(text).toContain('`/help`');
    for (const field of embed.fields ?? []) expect(field.value.length).toBeLessThanOrEqual(1024);
    const total =
      (embed.title ?? '').length +
      (embed.description ?? '').length +
      (embed.fields ?? []).reduce((sum, f) => sum + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(6000);
  });

  it('continues a command with many long subcommands over several fields', () => {
    const big = new SlashCommandBuilder().setName('big').setDescription('many subcommands');
    for (let i = 0; i < 25; i++) {
      big.addSubcommand((sub) => sub.setName(`sub${i}`).setDescription('x'.repeat(90)));
    }
    const embed = renderHelp([{ command: big.toJSON() }]).toJSON();
    expect(embed.fields?.map((f) => f.name)).toEqual(['/big', '/big (continued)', '/big (continued)']);
    expect((embed.fields ?? []).flatMap((f) => f.value.split('\n'))).toHaveLength(25);
  });
});
