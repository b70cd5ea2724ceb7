/**
 * The chunks of a byte stream, read through its reader: Bun's ReadableStream is async-iterable at run time, but its
 * type does not say so. Stopping early (a size limit) cancels the stream, as `for await` over it would.
 */
export async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      yield value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
