export {};
/**
 * Load generator run as a separate process so it does not share the server's event loop:
 * `bun bench/http-load.ts <url> <token> <concurrency> <requests>` prints one JSON line of latencies.
 */
const [url, token, concurrencyText, requestsText] = process.argv.slice(2);
const concurrency = Number(concurrencyText);
const total = Number(requestsText);
const latencies: number[] = [];
let issued = 0;
let failures = 0;

async function client() {
  while (issued < total) {
    issued += 1;
    const start = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    latencies.push(performance.now() - start);
    if (res.status !== 200) failures += 1;
  }
}

const start = performance.now();
await Promise.all(Array.from({ length: concurrency }, client));
const seconds = (performance.now() - start) / 1000;
console.log(JSON.stringify({ latencies, seconds, failures }));
