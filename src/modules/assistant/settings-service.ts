import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { settings } from '../../../db/schema';
import { appendAudit } from '../../platform/audit/audit';
import { AppError, invalid, type FieldProblem } from '../../platform/core/errors';
import { queueMail } from '../../platform/mail/mail';
import { requirePermission, type Actor } from '../../platform/permissions/permissions';
import { administratorEmails } from '../people/service';
import { DEFAULT_ASSISTANT_SETTINGS, type AssistantSettings } from './schema';

const KEY = 'assistant';

export async function assistantSettings(db: DbOrTx): Promise<AssistantSettings> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, KEY));
  return { ...DEFAULT_ASSISTANT_SETTINGS, ...((row?.value as Partial<AssistantSettings> | undefined) ?? {}) };
}

/** Opening the page needs settings:read. */
export async function readAssistantSettings(db: DbOrTx, actor: Actor): Promise<AssistantSettings> {
  requirePermission(actor, 'settings:read');
  return assistantSettings(db);
}

/** The Application ID URI and scope in force: the entered ones, or the defaults the spec gives. */
export const effectiveIdp = (s: AssistantSettings) => ({
  applicationIdUri: s.applicationIdUri.trim() || `api://${s.clientId.trim()}`,
  requiredScope: s.requiredScope.trim() || 'Mcp.Access',
});

function problems(s: AssistantSettings): FieldProblem[] {
  if (!s.acceptIdpTokens) return [];
  const found: FieldProblem[] = [];
  if (!s.tenantId.trim()) found.push({ field: 'tenantId', message: 'needed to accept identity-provider access tokens' });
  if (!s.clientId.trim()) found.push({ field: 'clientId', message: 'needed to accept identity-provider access tokens' });
  return found;
}

/**
 * Saving needs an administrator (settings:update at level all). Every save is audited and emailed to every
 * administrator (spec Events: "AI-assistant settings saved").
 */
export async function saveAssistantSettings(tx: DbOrTx, actor: Actor, input: AssistantSettings): Promise<AssistantSettings> {
  if (requirePermission(actor, 'settings:update') !== 'all') {
    throw Object.assign(new AppError('FORBIDDEN', 'forbidden', [], 'settings:update at level all needed for AI assistant settings'), { actor });
  }
  if (actor.via === 'mcp') throw new AppError('FORBIDDEN', 'forbidden', [], 'assistants cannot change AI assistant settings');
  const found = problems(input);
  if (found.length) throw invalid(found);
  const before = await assistantSettings(tx);
  const after = { ...input, tenantId: input.tenantId.trim(), clientId: input.clientId.trim(), applicationIdUri: input.applicationIdUri.trim(), requiredScope: input.requiredScope.trim() };
  await tx.insert(settings).values({ key: KEY, value: after }).onConflictDoUpdate({ target: settings.key, set: { value: after, updatedAt: new Date() } });
  const changes = Object.fromEntries(Object.keys(after).flatMap((key) => {
    const k = key as keyof AssistantSettings;
    return before[k] === after[k] ? [] : [[key, { before: before[k], after: after[k] }]];
  }));
  await appendAudit(tx, actor, [{ module: 'settings', action: 'update', recordType: 'setting', recordId: KEY, details: { changes } }]);
  const idp = effectiveIdp(after);
  await queueMail(tx, {
    kind: 'security-alert',
    recipients: await administratorEmails(tx),
    subject: 'Security alert: AI assistant settings saved',
    body: [
      `The AI assistant settings were saved by ${actor.email ?? actor.userId}.`,
      '',
      `Allow AI assistants to connect: ${after.enabled ? 'on' : 'off'}`,
      `Include privacy records: ${after.includePrivacy ? 'on' : 'off'}`,
      `Accept identity-provider access tokens: ${after.acceptIdpTokens ? `on (tenant ${after.tenantId}, client ${after.clientId}, ${idp.applicationIdUri}, scope ${idp.requiredScope})` : 'off'}`,
      '',
      `Changed: ${Object.keys(changes).join(', ') || 'nothing'}`,
    ].join('\n'),
  });
  return after;
}
