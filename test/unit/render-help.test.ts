import { SlashCommandBuilder } from '@discordjs/builders';
import { describe, expect, it } from 'vitest';
import { renderHelp } from '../../src/bot/render/help.js';
import { commands } from '../../src/commands/index.js';

describe('the /help embed', () => {
  it('lists every subcommand of every registered command, within Discord’s limits', () => {
    const embed = renderHelp(commands.map((command) => ({ command: command.data.toJSON() }))).toJSON();
    const text = (embed.fields ?? []).map((field) => field.value).join('\n');
    // Every invocation a member can type, walked from the registered data itself.
    type Option = { type: number; name: string; options?: Option[] };
    const invocations = commands.flatMap((command) => {
      const data = command.data.toJSON() as { name: string; options?: Option[] };
      const subs = (data.options ?? []).flatMap((option): string[] => {
        if (option.type === 1) return [`/${data.name} ${option.name}`];
        if (option.type === 2)
          return (option.options ?? []).map((sub) => `/${data.name} ${option.name} ${sub.name}`);
        return [];
      });
      return subs.length > 0 ? subs : [`/${data.name}`];
    });
    expect(invocations.length).toBeGreaterThan(30);
    for (const invocation of invocations) expect(text).toContain(`\`${invocation}\``);
    for (const field of embed.fields ?? []) expect(field.value.length).toBeLessThanOrEqual(1024);
    const total =
      (embed.title ?? '').length +
      (embed.description ?? '').length +
      (embed.fields ?? []).reduce((sum, f) => sum + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(6000);
  });

  it('speaks a German member’s language: the commands as their command picker names them', () => {
    const entries = commands.map((command) => ({ command: command.data.toJSON() }));
    const embed = renderHelp(entries, 'de').toJSON();
    expect(embed.title).toBe('Was ich kann');
    const byName: Record<string, string> = {};
    for (const field of embed.fields ?? []) {
      const command = field.name.split(' ')[0]!;
      byName[command] = `${byName[command] ?? ''}\n${field.value}`;
    }
    // The weather command has German names and descriptions: those, as `/wetter jetzt`.
    expect(byName['/wetter']).toContain('`/wetter jetzt` Aktuelles Wetter an einem Ort');
    expect(byName['/wetter']).toContain('`/wetter zuhause festlegen`');
    expect(Object.keys(byName)).not.toContain('/weather');
    // A command without German names is listed as the picker shows it: in English.
    expect(byName['/music']).toContain('`/music playlist view`');
    expect(byName['/help']).toContain('`/help` Alle Befehle dieses Bots auflisten');
    // Any other locale sees the default names, English words.
    const french = renderHelp(entries, 'fr').toJSON();
    expect(french.title).toBe('What I can do');
    expect(french.fields?.map((field) => field.name)).toContain('/weather');
  });

  it('marks a switched-off command and a continued field in the member’s language', () => {
    const big = new SlashCommandBuilder().setName('big').setDescription('many subcommands');
    for (let i = 0; i < 25; i++) {
      big.addSubcommand((sub) => sub.setName(`sub${i}`).setDescription('x'.repeat(90)));
    }
    const embed = renderHelp([{ command: big.toJSON(), switchedOff: true }], 'de').toJSON();
    expect(embed.fields?.map((f) => f.name)).toEqual([
      '/big (auf diesem Bot ausgeschaltet)',
      '/big (Fortsetzung) (auf diesem Bot ausgeschaltet)',
      '/big (Fortsetzung) (auf diesem Bot ausgeschaltet)',
    ]);
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
