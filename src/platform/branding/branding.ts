import { Type, type Static } from '@sinclair/typebox';
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { settings } from '../../../db/schema';
import { setShownBrand } from '../../../views/brand';
import { recordChange } from '../audit/history';
import { AppError, invalid, type FieldProblem } from '../core/errors';
import type { AppContext } from '../http/context';
import { requirePermission, type Actor } from '../permissions/permissions';
import { sanitiseSvg, SvgRefused } from './svg';

/**
 * Settings › Branding (screens only): the organisation's name, a logo (PNG or sanitised SVG, stored through the
 * storage interface) and an accent colour that keeps white text readable (WCAG AA, 4.5:1). Shown in the header, on the
 * sign-in page, on printed reports and in scheduled-report and reminder mails. Every change is audited.
 */

export const BrandingInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  /** `#rrggbb`, or blank for the app's own colour. */
  accentColour: Type.String({ maxLength: 7 }),
}, { additionalProperties: false });
export type BrandingInput = Static<typeof BrandingInput>;

export interface StoredLogo {
  key: string;
  contentType: 'image/png' | 'image/svg+xml';
  bytes: number;
  version: string;
}

export interface Branding {
  name: string;
  accentColour: string;
  logo: StoredLogo | null;
}

export const DEFAULT_BRANDING: Branding = { name: 'GRC', accentColour: '', logo: null };
const KEY = 'branding';
/** The largest logo taken: a logo is a small picture, and it is sent with every page's header. */
export const LOGO_LIMIT = 256 * 1024;
/** WCAG 2 AA for normal text. */
export const MINIMUM_CONTRAST = 4.5;

export async function brandingOf(db: DbOrTx): Promise<Branding> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, KEY));
  return { ...DEFAULT_BRANDING, ...((row?.value as Partial<Branding> | undefined) ?? {}) };
}

const shown = (b: Branding) => ({ name: b.name, logoVersion: b.logo?.version ?? null, accentVersion: b.accentColour ? b.accentColour.slice(1) : null });

let readAt = 0;
/** Reads the branding into what the layouts show, at most once in `maxAgeMs` (another instance's change arrives then). */
export async function refreshShownBrand(db: DbOrTx, maxAgeMs = 5_000): Promise<void> {
  if (Date.now() - readAt < maxAgeMs) return;
  readAt = Date.now();
  setShownBrand(shown(await brandingOf(db)));
}

/* ---------- Contrast ---------- */

const channel = (c: number) => {
  const s = c / 255;
  return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
};
const luminance = (hex: string) => {
  const n = Number.parseInt(hex.slice(1), 16);
  return 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
};
/** The WCAG contrast ratio of two `#rrggbb` colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (l1 + 0.05) / (l2 + 0.05);
}

/* ---------- Logo ---------- */

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export interface LogoUpload {
  bytes: Uint8Array;
  filename: string;
}

/** The logo's stored form: a PNG as it is (its signature checked), an SVG rebuilt by the sanitiser; or why it is refused. */
export function checkedLogo(upload: LogoUpload): { contentType: StoredLogo['contentType']; bytes: Uint8Array; removed: string[] } | { problem: string } {
  if (upload.bytes.length > LOGO_LIMIT) return { problem: `is ${Math.ceil(upload.bytes.length / 1024)} KB; a logo may be at most ${LOGO_LIMIT / 1024} KB` };
  if (upload.bytes.length === 0) return { problem: 'is an empty file' };
  if (PNG_SIGNATURE.every((b, i) => upload.bytes[i] === b)) return { contentType: 'image/png', bytes: upload.bytes, removed: [] };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(upload.bytes);
  } catch {
    return { problem: 'must be a PNG or SVG image' };
  }
  if (!/<svg[\s>]/i.test(text)) return { problem: 'must be a PNG or SVG image' };
  try {
    const clean = sanitiseSvg(text);
    return { contentType: 'image/svg+xml', bytes: new TextEncoder().encode(clean.svg), removed: clean.removed };
  } catch (error) {
    if (error instanceof SvgRefused) return { problem: `is refused: ${error.message}` };
    throw error;
  }
}

/* ---------- Saving ---------- */

function requireBrandingManager(actor: Actor): void {
  if (requirePermission(actor, 'settings:update') !== 'all') {
    throw Object.assign(new AppError('FORBIDDEN', 'forbidden', [], 'settings:update at level all needed for branding'), { actor });
  }
}

export function brandingProblems(input: BrandingInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!input.name.trim()) problems.push({ field: 'name', message: 'enter the organisation\'s name' });
  else if (input.name.trim().length > 100) problems.push({ field: 'name', message: 'may be at most 100 characters' });
  const colour = input.accentColour.trim();
  if (colour && !/^#[0-9a-fA-F]{6}$/.test(colour)) problems.push({ field: 'accentColour', message: 'must be a colour written #rrggbb, such as #1d4f91' });
  else if (colour) {
    const ratio = contrastRatio(colour.toLowerCase(), '#ffffff');
    if (ratio < MINIMUM_CONTRAST) {
      problems.push({ field: 'accentColour', message: `${colour} with the header's white text has a contrast of ${ratio.toFixed(1)}:1; WCAG AA needs at least ${MINIMUM_CONTRAST}:1. Choose a darker colour.` });
    }
  }
  return problems;
}

/**
 * Saves the name and colour, and a new logo when one is given (or removes it): the logo is written to storage under a
 * new key before the settings row points at it, the old file removed after. Audited (settings, branding) with what
 * changed and what the sanitiser removed from an SVG.
 */
export async function saveBranding(
  ctx: AppContext, tx: DbOrTx, actor: Actor, input: BrandingInput, logo: { upload?: LogoUpload; remove?: boolean } = {},
): Promise<{ removed: string[] }> {
  requireBrandingManager(actor);
  const problems = brandingProblems(input);
  const checked = logo.upload ? checkedLogo(logo.upload) : null;
  if (checked && 'problem' in checked) problems.push({ field: 'logo', message: `The logo ${checked.problem}` });
  if (problems.length) throw invalid(problems);
  const before = await brandingOf(tx);
  let stored: StoredLogo | null = logo.remove ? null : before.logo;
  if (checked && !('problem' in checked)) {
    const key = crypto.randomUUID();
    const bytes = checked.bytes;
    await ctx.storage.write(key, (async function* () { yield bytes; })());
    stored = { key, contentType: checked.contentType, bytes: checked.bytes.length, version: key.slice(0, 8) };
  }
  const after: Branding = { name: input.name.trim(), accentColour: input.accentColour.trim().toLowerCase(), logo: stored };
  await tx.insert(settings).values({ key: KEY, value: after }).onConflictDoUpdate({ target: settings.key, set: { value: after, updatedAt: new Date() } });
  const audited = (b: Branding) => ({ name: b.name, accentColour: b.accentColour, logo: b.logo ? `${b.logo.contentType}, ${b.logo.bytes} bytes (${b.logo.version})` : null });
  await recordChange(tx, actor, {
    module: 'settings', recordType: 'setting', recordId: KEY, action: 'update', before: audited(before), after: audited(after),
    details: checked && !('problem' in checked) && checked.removed.length ? { logoSanitised: checked.removed } : undefined,
  });
  if (before.logo && before.logo.key !== stored?.key) await ctx.storage.remove(before.logo.key).catch(() => {});
  setShownBrand(shown(after));
  readAt = Date.now();
  return { removed: checked && !('problem' in checked) ? checked.removed : [] };
}
