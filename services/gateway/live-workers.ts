/**
 * What the gateway knows about live workers, from their heartbeats on
 * `<prefix>.workers`: a model can be served when a worker heard from within the TTL
 * (5 heartbeat intervals, at least 10 s, so that a busy or briefly starved worker does
 * not flap to 503; a worker that stops says so in its last heartbeat) has it installed.
 */
import type { Capability } from '../capabilities/index.ts';
import type { EventCodec } from '../events/codec.ts';
import type { WorkerStatus } from '../events/contract.ts';
import type { Batch, Consumer, Transport } from '../transport/types.ts';


/** See the module comment. */
export class LiveWorkers {
  private readonly workers = new Map<string, WorkerStatus & { seen: number }>();
  private consumer?: Consumer;

  constructor(private readonly transport: Transport, private readonly codec: EventCodec, private readonly topic: string,
    private readonly groupId: string, private readonly ttlMs: number) {}

  /** Starts following heartbeats (from the start of the retained log, so live workers are known at once). */
  async start(): Promise<void> {
    await this.transport.ensureTopics([{ name: this.topic, partitions: 1, retentionMs: 60_000 }]);
    this.consumer = this.transport.consumer({ groupId: this.groupId, topics: [this.topic], fromBeginning: true, background: true });
    await this.consumer.run(async (b: Batch) => {
      for (const m of b.messages) {
        const s = await this.codec.decode('control/worker-status', m.value);
        if (s.stopping) this.workers.delete(s.instanceId);
        else this.workers.set(s.instanceId, { ...s, seen: Math.min(Date.now(), Number(s.timestampMs)) });
      }
    });
  }

  private live(capability: Capability): Array<WorkerStatus & { seen: number }> {
    const now = Date.now();
    return [...this.workers.values()].filter((w) => w.capability === capability && now - w.seen < this.ttlMs);
  }

  /**
   * The live workers (heard from within the TTL), by capability and instance id.
   * @param now ms since the epoch
   */
  list(now = Date.now()): Array<WorkerStatus & { lastHeartbeatMs: number }> {
    return [...this.workers.values()].filter((w) => now - w.seen < this.ttlMs)
      .map(({ seen, ...w }) => ({ ...w, lastHeartbeatMs: Math.max(0, now - seen) }))
      .sort((a, b) => a.capability.localeCompare(b.capability) || a.instanceId.localeCompare(b.instanceId));
  }

  /** Whether any live worker serves the capability. */
  hasWorker(capability: Capability): boolean {
    return this.live(capability).length > 0;
  }

  /** Whether a live worker has the model installed. */
  canServe(capability: Capability, model: string): boolean {
    return this.live(capability).some((w) => w.models.some((m) => m.name === model && m.installed));
  }

  /** Whether a live worker has the model loaded. */
  isLoaded(capability: Capability, model: string): boolean {
    return this.live(capability).some((w) => w.models.some((m) => m.name === model && m.loaded));
  }

  /** Languages of a model as reported by a live worker (0 when unknown). */
  languages(capability: Capability, model: string): number {
    for (const w of this.live(capability)) for (const m of w.models) if (m.name === model && (m.languages ?? 0) > 0) return m.languages!;
    return 0;
  }

  async stop(): Promise<void> { await this.consumer?.stop(); }
}
