/**
 * A CSV download written as it is read: `chunks` is the file's text in order (the byte order mark and header first).
 * The first two chunks (the header and the first page of rows) are read before the response is made, so a refusal or
 * a failing statement is an answer of its own (4xx/5xx), not a broken download; each later chunk is read only when the
 * client has taken the previous one, so memory stays flat however many rows follow.
 */
export async function streamedCsv(chunks: AsyncGenerator<string>, fileName: string): Promise<Response> {
  const first: string[] = [];
  let done = false;
  while (!done && first.length < 2) {
    const next = await chunks.next();
    if (next.done) done = true;
    else first.push(next.value);
  }
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(first.join('')));
      if (done) controller.close();
    },
    async pull(controller) {
      if (done) return;
      const next = await chunks.next();
      if (next.done) {
        done = true;
        controller.close();
      } else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${fileName}"` } });
}
