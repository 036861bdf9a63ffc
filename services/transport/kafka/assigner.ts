/**
 * The fixed-partition assigner of the Kafka transport's consumers (manual assignment).
 */
import { AssignerProtocol, type PartitionAssigner } from 'kafkajs';

/**
 * A partition assigner for manual assignment: the listed partitions of every subscribed
 * topic go to one member of the group (the first by member id), nothing else is
 * assigned. Used where a group has one member that reads chosen partitions (a gateway's
 * reply partition), so it fetches nothing from the others.
 */
export function fixedPartitions(partitions: number[]): PartitionAssigner {
  const name = `lmstream-fixed-partitions-${partitions.join('-')}`;
  return () => ({
    name,
    version: 0,
    async assign({ members, topics }) {
      const [first] = members.map((m) => m.memberId).sort();
      if (!first) return [];
      const assignment = Object.fromEntries(topics.map((t) => [t, partitions]));
      return members.map(({ memberId }) => ({
        memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: memberId === first ? assignment : {}, userData: Buffer.alloc(0) }),
      }));
    },
    protocol({ topics }) {
      return { name, metadata: AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }) };
    },
  });
}
