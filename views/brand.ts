/**
 * The organisation's branding as the layouts show it (Settings › Branding): its name, whether a logo is stored (and
 * its version, so a new logo is fetched at once) and whether an accent colour is set (served as /branding.css). Kept
 * here, set by the platform when branding is read or saved, so the shared layouts stay free of the platform.
 */
export interface ShownBrand {
  name: string;
  logoVersion: string | null;
  accentVersion: string | null;
}

let current: ShownBrand = { name: 'GRC', logoVersion: null, accentVersion: null };

export const shownBrand = (): ShownBrand => current;
export function setShownBrand(brand: ShownBrand): void {
  current = brand;
}
