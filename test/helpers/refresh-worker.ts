/**
 * A second bot process for the refresh tests: opens the shared Redis storage, asks for one
 * member's access token `COUNT` times at once through the real token source and prints the tokens
 * it got as JSON. Run with tsx; configured by environment.
 */
import { Keyring } from '../../src/auth/seal.js';
import { MusicOAuth } from '../../src/auth/oauth.js';
import { createTokenSource } from '../../src/auth/tokens.js';
import { TokenVault } from '../../src/auth/vault.js';
import { createStorage } from '../../src/storage/index.js';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const storage = await createStorage({
  dataDir: 'unused',
  redisUrl: env('REDIS_URL'),
  redisPrefix: env('REDIS_PREFIX'),
});
const vault = new TokenVault(storage, new Keyring(Buffer.from(env('VAULT_KEY'), 'base64')));
const oauth = new MusicOAuth({
  authUrl: env('AUTH_URL'),
  clientId: env('CLIENT_ID'),
  redirectUri: env('REDIRECT_URI'),
});
const source = createTokenSource({ vault, oauth, storage });
// Start together with the other process: say ready, then wait for the go signal on stdin.
process.stderr.write('ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
process.stdin.destroy();
const tokens = await Promise.all(
  Array.from({ length: Number(env('COUNT')) }, () => source.getAccessToken(env('USER_ID'))),
);
await storage.close();
process.stdout.write(JSON.stringify(tokens), () => process.exit(0));
