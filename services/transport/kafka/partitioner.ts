/**
 * The partitioner of the Kafka transport's producer.
 */
import { Partitioners, type ICustomPartitioner } from 'kafkajs';

/**
 * Messages that name a partition go there (reply-partition). Keyed messages: kafkajs'
 * DefaultPartitioner (Kafka's murmur2, as the embedded log).
 * Keyless messages: one partition per linger window and topic, moving on each window
 * (Kafka's sticky partitioner, KIP-480), so a window becomes one record batch: fewer,
 * larger batches for the broker and for consumers' fetches.
 */
export class StickyPartitioner {
  /** bumped by the producer at each flush */
  epoch = 0;
  readonly create: ICustomPartitioner = () => {
    const murmur = Partitioners.DefaultPartitioner();
    const chosen = new Map<string, { epoch: number; partition: number }>();
    return (args) => {
      if (args.message.partition != null) return args.message.partition;
      if (args.message.key != null) return murmur(args);
      const c = chosen.get(args.topic);
      if (c && c.epoch === this.epoch) return c.partition;
      const available = args.partitionMetadata.filter((p) => p.leader >= 0).map((p) => p.partitionId);
      const all = available.length > 0 ? available : args.partitionMetadata.map((p) => p.partitionId);
      const partition = all[(c ? all.indexOf(c.partition) + 1 : Math.floor(Math.random() * all.length)) % all.length]!;
      chosen.set(args.topic, { epoch: this.epoch, partition });
      return partition;
    };
  };
}
