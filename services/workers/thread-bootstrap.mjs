// Entry of inference threads. When the service runs from TypeScript sources (tsx),
// a worker thread does not inherit the loader, so register tsx here before importing
// the thread module named in workerData.entry.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.entry);
