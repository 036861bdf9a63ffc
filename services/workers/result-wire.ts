/**
 * How a micro-batch's results cross from the inference thread to the worker's event loop:
 * as one Avro array of the capability's `<capability>/result` schema in a transferred
 * buffer, instead of objects copied by the structured clone of `postMessage`.
 *
 * Why (issue 17): the clone serialises every object and string of every result on the
 * thread and rebuilds them on the event loop, the worker's busiest thread. For micro-batches
 * of 64 language-ID results (top 3 candidates) sent between two threads, the event loop
 * spent 2.0–2.3 µs per item receiving clones and 0.9–1.5 µs receiving and decoding Avro;
 * the sending thread 2.9–3.0 against 1.2–1.9 µs (4,000 messages, two rounds each). The
 * results are checked against the schema on the thread, so one that could not be
 * published is answered INFERENCE_FAILED there, alone.
 */
import type { ResultSchema } from '../events/codec.ts';
import { AvroCodec } from '../events/codec.ts';
import type { ItemResult, SchemaValues } from '../events/contract.ts';
import { failed } from '../events/results.ts';

/** schemas/ read once per thread, on first use */
let codec: AvroCodec | undefined;

/**
 * Avro binary of a micro-batch's results, in a buffer of its own (to be transferred, not
 * copied, by `postMessage`). A result that does not match the schema (a backend bug) is
 * replaced by an INFERENCE_FAILED failure naming the model, and its place in `invalid`.
 * @param results one per item of the micro-batch
 * @param invalid filled with the indexes of the results replaced
 * @throws Error from avsc when even the results with the invalid ones replaced do not encode
 */
export function encodeResults(schema: ResultSchema, results: ItemResult[], model: string, invalid: number[] = []): Uint8Array<ArrayBuffer> {
  codec ??= new AvroCodec();
  const values = results as Array<SchemaValues[ResultSchema]>;
  try {
    return codec.encodeList(schema, values);
  } catch {
    const item = codec.type(schema);
    return codec.encodeList(schema, values.map((r, i) => {
      if (item.isValid(r)) return r;
      invalid.push(i);
      return failed('INFERENCE_FAILED', `model ${model} gave a result that does not match schema ${schema}`) as SchemaValues[ResultSchema];
    }));
  }
}

/**
 * The results of {@link encodeResults}, decoded.
 * @param bytes the transferred buffer (any view)
 * @throws Error when the bytes are not such an array
 */
export function decodeResults<O>(schema: ResultSchema, bytes: Uint8Array): Array<ItemResult<O>> {
  codec ??= new AvroCodec();
  return codec.decodeList(schema, bytes) as Array<ItemResult<O>>;
}
