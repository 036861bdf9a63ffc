/**
 * V8 flags every lmstream service process starts with: package.json's `start`, the
 * Dockerfile's ENTRYPOINT, and the child processes of the benchmarks and tests
 * (test/deploy.test.ts checks the first two). They have to be on the command line: V8
 * sizes an isolate's young generation when it creates it (`v8.setFlagsFromString` at
 * start-up reached the worker threads but not the main thread), and NODE_OPTIONS refuses
 * `--min-semi-space-size`.
 *
 * The young generation is fixed at 32 MB per semi-space (V8 flags, in MB). With V8's own
 * sizing, which grows and shrinks it under load, the embedded pipeline promoted about 7 times
 * as much to the old generation: objects that wait across asynchronous hops (an HTTP request
 * waiting for its result event, decoded results on their way to the answer) outlived two
 * scavenges. Measured on the batch route at a fixed 250 requests/s for 8 s (`--trace-gc-nvp`,
 * issue 17), Node 20.20: main-thread scavenges 83–84 → 33–34, scavenge pauses 560–730 →
 * 150–155 ms, promoted 118 → 17 MB, CPU per request 4.2–4.5 → 3.1–3.7 ms; Node 24.21:
 * promoted 118 → 17.5 MB, 2.6–3.2 → 2.2–2.3 ms. 16 MB fixed promoted 155 MB and 64 MB
 * fixed 96 MB (Node 20), so 32 it is. Cost: two 32 MB semi-spaces per isolate
 * (the main thread, each inference thread, tsx's loader thread); resident memory after
 * the load went 379 → 444 MB on Node 20 (single route) and 454–530 → 410–412 MB on Node 24 (batch).
 * The direct baseline of bench/run.ts gains nothing from them (its objects die young).
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32', '--min-semi-space-size=32'];
