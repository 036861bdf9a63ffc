// Entry of the image threads (piscina). When the service runs from TypeScript sources
// (tsx), a worker thread does not inherit the loader, so register tsx before importing
// the module named in piscina's workerData.entry, whose default export is the task.
import { workerData } from 'piscina';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  register();
}
const mod = await import(workerData.entry);
export default mod.default;
