/**
 * `npm run register`: publishes the slash commands to Discord. Per guild when DISCORD_GUILD_ID is
 * set (shows at once; for trying things out), otherwise globally (can take up to an hour to show).
 * `npm run register -- --remove` takes them away there instead: a server that has both its own copy
 * (from testing with DISCORD_GUILD_ID) and the global one shows every command twice.
 */
import { ConfigError, loadConfig } from '../src/config.js';
import { describeRegisterFailure, registerCommands } from '../src/bot/register.js';
import { commands } from '../src/commands/index.js';

const args = process.argv.slice(2);
const unknown = args.filter((arg) => arg !== '--remove');
if (unknown.length > 0) {
  console.error(`Unknown option ${unknown.join(' ')}: the only option is --remove.`);
  process.exit(1);
}
const remove = args.includes('--remove');

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  console.error(
    error instanceof ConfigError
      ? `${error.message}\n\nSee .env.example for every setting.`
      : `${remove ? 'Removing the commands' : 'Registration'} failed: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
const { guildId, apiUrl, applicationId } = config.discord;
try {
  const registered = await registerCommands({
    token: config.discord.token,
    applicationId,
    guildId,
    apiUrl,
    commands: remove ? [] : commands,
  });
  const where = guildId
    ? `in guild ${guildId}`
    : remove
      ? 'globally (they may take up to an hour to go)'
      : 'globally (may take up to an hour to show)';
  console.log(
    remove
      ? `Removed the commands ${where}.`
      : `Registered ${registered.length} commands ${where}: ${registered.map((c) => `/${c.name}`).join(', ')}`,
  );
} catch (error) {
  console.error(
    `${remove ? 'Removing the commands' : 'Registration'} failed: ${describeRegisterFailure(error, { guildId, apiUrl, applicationId })}`,
  );
  process.exit(1);
}
