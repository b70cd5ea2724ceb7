import type { assessmentFiles } from '../../../db/schema';

/** RFC 6266 / RFC 8187: an ASCII fallback for old clients and the exact UTF-8 name for the rest. */
function contentDisposition(name: string): string {
  const fallback = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** A file answer's download: always an attachment, with the SHA-256 it was sealed by. */
export const fileResponseHeaders = (file: typeof assessmentFiles.$inferSelect): Record<string, string> => ({
  'content-type': file.contentType, 'content-disposition': contentDisposition(file.name), 'x-content-sha256': file.sha256,
  'content-length': String(file.size), 'cache-control': 'private, no-store',
});
