/** Bun's direct stream constructor: the DOM library's ReadableStream types (tsconfig) hide Bun's overload for it. */
const DirectStream = ReadableStream as unknown as new (source: Bun.DirectUnderlyingSource<string>) => ReadableStream<Uint8Array>;

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
  // A direct stream (Bun): each chunk's text goes to the socket as it is made, encoded there, and the next is read
  // only once the socket has taken it (`write` waits while the client is slow); a client gone ends the read.
  const source: Bun.DirectUnderlyingSource<string> = {
    type: 'direct',
    async pull(controller) {
      try {
        if (!(await controller.write(first.join('')))) return void (await chunks.return(undefined));
        while (!done) {
          const next = await chunks.next();
          if (next.done) break;
          if (!(await controller.write(next.value))) return void (await chunks.return(undefined));
        }
        controller.close();
      } catch (error) {
        await chunks.return(undefined);
        controller.close(error instanceof Error ? error : new Error(String(error)));
      }
    },
  };
  const body = new DirectStream(source);
  return new Response(body, { headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${fileName}"` } });
}
