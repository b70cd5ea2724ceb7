export type FlashKind = 'info' | 'success' | 'error';

/** A message box; errors use role=alert so they are announced. */
export function Flash({ kind, message }: { kind: FlashKind; message?: string | null }): JSX.Element {
  if (!message) return '';
  return <div class={`flash flash-${kind}`} role={kind === 'error' ? 'alert' : 'status'} safe>{message}</div>;
}

/** The general error of a refused form (field problems are shown inline, this is what remains). */
export function FormError({ message }: { message?: string | null }): JSX.Element {
  return <Flash kind="error" message={message} />;
}
