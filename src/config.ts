import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** The environment the service reads, validated once at start so a typo fails fast. */
export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  ADMIN_EMAIL: Type.String({ minLength: 3, default: 'admin@example.com' }),
  ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 12 })),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  MAIL_FROM: Type.String({ default: 'GRC Service <grc@localhost>' }),
  /** How long the SMTP server may take to connect, greet or answer before a delivery try fails (it is retried later). */
  SMTP_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 600, default: 30 }),
  SESSION_HOURS: Type.Integer({ minimum: 1, maximum: 720, default: 12 }),
  COOKIE_SECURE: Type.Boolean({ default: false }),
  /** Behind a reverse proxy: take the client address from the last X-Forwarded-For entry (the proxy's own view). */
  TRUST_PROXY: Type.Boolean({ default: false }),
  /** Window for folding identical refusals and for the per-client limit (docs/refusals.md); 0 audits every refusal alone. */
  REFUSAL_WINDOW_SECONDS: Type.Integer({ minimum: 0, maximum: 3600, default: 60 }),
  /** Refused requests a client address may make per window before it is answered 429; 0 for no limit. */
  REFUSALS_PER_CLIENT: Type.Integer({ minimum: 0, maximum: 100_000, default: 30 }),
  /**
   * Refusal entries all client addresses together may add per window before further refusals are folded into one
   * entry per kind whatever their address, path or reason (docs/refusals.md); 0 for no such budget.
   */
  REFUSAL_ENTRIES_PER_WINDOW: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 300 }),
  /** How often the background sweep runs (expired sessions, refusal summaries, count compaction, mail). */
  SWEEP_INTERVAL_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  /** Largest evidence file accepted, in MB (docs/evidence.md). */
  EVIDENCE_MAX_FILE_MB: Type.Integer({ minimum: 1, maximum: 5120, default: 100 }),
  /** S3-compatible storage for evidence files; without a bucket they are kept under DATA_DIR/evidence. */
  S3_BUCKET: Type.Optional(Type.String({ minLength: 3 })),
  S3_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://' })),
  S3_REGION: Type.Optional(Type.String()),
  S3_ACCESS_KEY_ID: Type.Optional(Type.String()),
  S3_SECRET_ACCESS_KEY: Type.Optional(Type.String()),
  /** Identity provider for assistants' access tokens (Settings › AI assistants): issuer and keys under <authority>/<tenant>. */
  IDP_AUTHORITY: Type.String({ pattern: '^https?://', default: 'https://login.microsoftonline.com' }),
  /**
   * Key for secrets the service must read back (two-factor secrets), encrypted with AES-256-GCM: 32 random bytes as
   * base64 (`openssl rand -base64 32`). Without it they are stored unencrypted (docs/people.md).
   */
  ENCRYPTION_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$' })),
  /** The address people reach the service at (e.g. https://grc.example.com), for links it hands out such as the sign-in redirect URI; else each request's origin. */
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+(/.*)?$' })),
  /**
   * Further host names (optionally with :port, comma-separated) people reach the service at besides PUBLIC_URL's. The
   * AI-assistant endpoint answers only requests whose Host and Origin name one of these (DNS-rebinding protection);
   * with neither set, only loopback names (localhost, 127.0.0.1, [::1]).
   */
  ALLOWED_HOSTS: Type.Optional(Type.String({ pattern: '^\\s*[A-Za-z0-9.\\-\\[\\]:]+\\s*(,\\s*[A-Za-z0-9.\\-\\[\\]:]+\\s*)*$' })),
  LOG_LEVEL: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('error')], { default: 'info' }),
});
export type Config = Static<typeof ConfigSchema>;

export class ConfigError extends Error {}

export function readConfig(env: Record<string, string | undefined> = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw));
  const problems = [...Value.Errors(ConfigSchema, converted)].map((p) => `${p.path.slice(1) || '(root)'}: ${p.message}`);
  const config = converted as Config;
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return config;
}
