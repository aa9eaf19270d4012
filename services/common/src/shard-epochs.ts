// Executors' view of shard ownership: the current epoch (KV revision of `s.<shard>`) of every shard, from a
// watch on the `shards` bucket. A command whose epoch is lower than the shard's current epoch comes from an
// owner that has lost the shard and is rejected.
import type { KV } from "@nats-io/kv";
import { DecodeError, codecs, shardKeys } from "#protocol";
import type { DecodeFailure, ShardRecord } from "#protocol";
import type { Logger } from "./logger.ts";

export interface ShardEpochView {
  /** Current epoch of the shard, or undefined when no owner has ever claimed it. */
  epochOf(shard: number): number | undefined;
  /** True when a newer owner exists: the command's sender has been fenced. */
  isStale(shard: number, epoch: number): boolean;
  ready(): boolean;
  stop(): void;
}

export async function watchShardEpochs(
  bucket: KV,
  logger: Logger,
  onUndecodable?: (reason: DecodeFailure) => void,
): Promise<ShardEpochView> {
  const epochs = new Map<number, { epoch: number; record: ShardRecord | undefined }>();
  const initialValues = (await bucket.status()).values;
  let ready = initialValues === 0;
  const iterator = await bucket.watch({ key: "s.*" });
  void (async () => {
    for await (const entry of iterator) {
      let shard: number;
      try {
        shard = shardKeys.parse(entry.key);
      } catch {
        continue;
      }
      let record: ShardRecord | undefined;
      if (entry.operation === "PUT") {
        try {
          record = codecs.shardRecord.decode(entry.value);
        } catch (error) {
          logger.warn({ key: entry.key, err: error }, "undecodable shard record");
          onUndecodable?.(error instanceof DecodeError ? error.reason : "invalid");
        }
      }
      const previous = epochs.get(shard);
      if (!previous || previous.epoch < entry.revision) epochs.set(shard, { epoch: entry.revision, record });
      if (entry.delta === 0) ready = true;
    }
  })();
  return {
    epochOf: (shard) => epochs.get(shard)?.epoch,
    isStale: (shard, epoch) => {
      const current = epochs.get(shard)?.epoch;
      return current !== undefined && epoch < current;
    },
    ready: () => ready,
    stop: () => iterator.stop(),
  };
}
