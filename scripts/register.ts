/**
 * `npm run register`: publishes the slash commands to Discord. Per guild when DISCORD_GUILD_ID is
 * set (shows at once; for trying things out), otherwise globally (can take up to an hour to show).
 */
import { ConfigError, loadConfig } from '../src/config.js';
import { registerCommands } from '../src/bot/register.js';
import { commands } from '../src/commands/index.js';

try {
  const config = loadConfig();
  const registered = await registerCommands({
    token: config.discord.token,
    applicationId: config.discord.applicationId,
    guildId: config.discord.guildId,
    apiUrl: config.discord.apiUrl,
    commands,
  });
  const where = config.discord.guildId
    ? `in guild ${config.discord.guildId}`
    : 'globally (may take up to an hour to show)';
  console.log(
    `Registered ${registered.length} commands ${where}: ${registered.map((c) => `/${c.name}`).join(', ')}`,
  );
} catch (error) {
  console.error(
    error instanceof ConfigError ? error.message : `Registration failed: ${(error as Error).message}`,
  );
  process.exit(1);
}
