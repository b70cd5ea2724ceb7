/** One error type for everything a caller can get wrong; mapped to HTTP status in exactly one place (http.ts). */
export type ErrorCode =
  | 'INVALID'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'GONE'
  | 'TOO_LARGE'
  | 'THROTTLED'
  | 'UNAVAILABLE';

export const statusOfCode: Record<ErrorCode, number> = {
  INVALID: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  GONE: 410,
  TOO_LARGE: 413,
  THROTTLED: 429,
  UNAVAILABLE: 503,
};

export interface FieldProblem {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** For INVALID: every field problem, so forms can show each one inline. */
    readonly problems: FieldProblem[] = [],
    /** For refusals that must be written to the Audit Log as permission.denied. */
    readonly deniedReason?: string,
  ) {
    super(message);
  }

  get status(): number {
    return statusOfCode[this.code];
  }
}

export const invalid = (problems: FieldProblem[]): AppError =>
  new AppError('INVALID', problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);

export const invalidField = (field: string, message: string): AppError => invalid([{ field, message }]);

export const notFound = (what: string): AppError => new AppError('NOT_FOUND', `${what} not found`);

export const conflict = (message: string): AppError => new AppError('CONFLICT', message);

export const forbidden = (reason: string): AppError => new AppError('FORBIDDEN', 'forbidden', [], reason);

export const unauthorized = (reason: string): AppError => new AppError('UNAUTHORIZED', 'unauthorized', [], reason);
