/**
 * A CSV download written as it is read: `chunks` is the file's text in order (the byte order mark and header first),
 * as text or as UTF-8 bytes.
 * The first two chunks (the header and the first page of rows) are read before the response is made, so a refusal or
 * a failing statement is an answer of its own (4xx/5xx), not a broken download; each later chunk is read only when the
 * client has taken the previous one, so memory stays flat however many rows follow.
 */
export async function streamedCsv(chunks: AsyncGenerator<string | Uint8Array>, fileName: string): Promise<Response> {
  const first: (string | Uint8Array)[] = [];
  let done = false;
  while (!done && first.length < 2) {
    const next = await chunks.next();
    if (next.done) done = true;
    else first.push(next.value);
  }
  const encoder = new TextEncoder();
  const bytesOf = (chunk: string | Uint8Array) => (typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of first) controller.enqueue(bytesOf(chunk));
      if (done) controller.close();
    },
    async pull(controller) {
      if (done) return;
      const next = await chunks.next();
      if (next.done) {
        done = true;
        controller.close();
      } else controller.enqueue(bytesOf(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${fileName}"` } });
}
