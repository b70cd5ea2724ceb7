/**
 * Bundle loader: `npm run load -- <bundle.json> --url <base_url> [--apply] [--token-file <path>] [--ca-file <path>]`.
 * Validates the bundle, then reads (and with --apply writes) the instance through its REST API only. Runs from a
 * source checkout of the instance's version; it is not in the container image. See docs/bundle-loader.md.
 */
import { runLoader } from './bundle/run';

if (import.meta.main) {
  runLoader(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    progressToTerminal: process.stderr.isTTY === true,
    env: process.env,
  }).then(
    (code) => process.exit(code),
    (error: unknown) => {
      // An unexpected failure of the loader itself: one line, never the request headers (the token).
      process.stderr.write(`the loader failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
