/**
 * The image threads of a gateway (piscina): extraction images are checked, decoded and
 * scaled down there (./image-decode.ts), never on the thread that serves
 * HTTP. At most IMAGE_THREADS (config; {@link configureImageThreads}) images are decoded
 * at once and {@link IMAGE_QUEUE} wait;
 * beyond that a request is answered 503 with `Retry-After`. A request whose client went
 * away has its waiting images dropped (the request's abort signal).
 */
import { setMaxListeners } from 'node:events';
import { Piscina } from 'piscina';
import { ServiceError, invalid } from '../../lib/errors.ts';
import type { ImageOutcome, ImageTask } from './image-decode.ts';

const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
/** Images waiting for a thread, at most (a full extraction batch of 16, four times). */
export const IMAGE_QUEUE = 64;

let pool: Piscina<ImageTask, ImageOutcome> | undefined;
let decoded = 0;
let maxThreads = 2;

/** Sets how many image threads run (IMAGE_THREADS); takes effect when the pool starts. */
export function configureImageThreads(n: number): void { maxThreads = Math.max(1, n); }

/** Images handed to the image threads so far in this process (tests check that a refused request decoded none). */
export function imagesDecoded(): number { return decoded; }

function threads(): Piscina<ImageTask, ImageOutcome> {
  pool ??= new Piscina<ImageTask, ImageOutcome>({
    filename: new URL('./image-thread.mjs', import.meta.url).href,
    workerData: { entry: new URL(`./image-decode${EXT}`, import.meta.url).href },
    minThreads: 0, maxThreads, maxQueue: IMAGE_QUEUE, idleTimeout: 60_000,
  });
  return pool;
}

/**
 * Checks and decodes an image off the event loop.
 * @param field the field's path for messages, e.g. `documents[3].image`
 * @returns the bytes to send on
 * @throws ServiceError INVALID_REQUEST (400) for a refused image; OVERLOADED (503) when the queue is full
 */
export async function decodeImage(image: string, field = 'image', signal?: AbortSignal): Promise<Buffer> {
  let out: ImageOutcome;
  decoded++;
  try {
    out = await threads().run({ image, field }, { signal });
  } catch (err) {
    if ((err as Error).message?.includes('queue is at limit')) throw new ServiceError('OVERLOADED', 'too many images waiting to be decoded; retry shortly', { retryAfterS: 1, cause: err });
    throw err;
  }
  if (!out.ok) throw invalid(out.error);
  return Buffer.from(out.bytes.buffer, out.bytes.byteOffset, out.bytes.byteLength);
}

/**
 * A signal for the images of one request, tied to the request's own signal by a single
 * listener. piscina adds an abort listener per task to the signal it is given, so the 16
 * images of an extraction batch on the request's signal set off Node's
 * MaxListenersExceededWarning (more than 10 listeners on one signal); this signal allows
 * as many as the request has images.
 * @param request the request's signal (aborts when the client goes away)
 * @param images how many images the request decodes
 * @returns the signal to give {@link decodeImage}, and `release()`, which unties it from the
 *   request's (call it once the images are decoded)
 */
export function imagesSignal(request: AbortSignal | undefined, images: number): { signal?: AbortSignal; release(): void } {
  if (!request) return { signal: undefined, release: () => {} };
  const own = new AbortController();
  setMaxListeners(Math.max(10, images + 1), own.signal);
  const abort = () => own.abort(request.reason);
  if (request.aborted) abort();
  else request.addEventListener('abort', abort, { once: true });
  return { signal: own.signal, release: () => request.removeEventListener('abort', abort) };
}

/** Stops the image threads (tests, shutdown). */
export async function closeImageThreads(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.close();
}
