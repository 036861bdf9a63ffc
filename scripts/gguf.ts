/**
 * A GGUF v3 file writer, enough for the tiny test models the project builds itself
 * (scripts/tiny-llm.ts): metadata key-value pairs (u32, i32, f32, bool, string and
 * arrays of them) and F32 tensors. Format: ggml's `docs/gguf.md` (GGUF v3, little
 * endian): magic "GGUF", version, tensor count (u64), metadata count (u64), the metadata,
 * the tensor infos (name, dimensions innermost first, type, offset), zero padding to the
 * alignment, then the tensor data, each tensor aligned to 32 bytes.
 *
 * Why own code: `@huggingface/gguf` writes metadata only (to edit existing files), and no
 * npm package writes tensors; operators' models come as GGUF files and are never written.
 */

/** GGUF metadata value types (ggml docs/gguf.md `gguf_metadata_value_type`). */
export const GGUF_TYPE = { U32: 4, I32: 5, F32: 6, BOOL: 7, STRING: 8, ARRAY: 9 } as const;
type Scalar = typeof GGUF_TYPE.U32 | typeof GGUF_TYPE.I32 | typeof GGUF_TYPE.F32 | typeof GGUF_TYPE.BOOL | typeof GGUF_TYPE.STRING;

/** One metadata entry: a scalar of a type, or an array of scalars of one type. */
export type GgufValue =
  | { type: Scalar; value: number | boolean | string }
  | { type: typeof GGUF_TYPE.ARRAY; of: Scalar; values: ReadonlyArray<number | boolean | string> };

/** One F32 tensor: ggml dimensions, innermost (fastest-varying) first, and its values. */
export interface GgufTensor { name: string; dims: readonly number[]; data: Float32Array; }

/** Tensor data alignment, bytes (GGUF default, `general.alignment` absent). */
const ALIGNMENT = 32;
/** ggml type id of F32 tensors. */
const GGML_TYPE_F32 = 0;

const u32 = (v: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
const u64 = (v: number) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
const str = (s: string) => { const d = Buffer.from(s, 'utf8'); return Buffer.concat([u64(d.length), d]); };
const padTo = (n: number) => Math.ceil(n / ALIGNMENT) * ALIGNMENT;

function scalar(type: Scalar, v: number | boolean | string): Buffer {
  switch (type) {
    case GGUF_TYPE.U32: return u32(v as number);
    case GGUF_TYPE.I32: { const b = Buffer.alloc(4); b.writeInt32LE(v as number); return b; }
    case GGUF_TYPE.F32: { const b = Buffer.alloc(4); b.writeFloatLE(v as number); return b; }
    case GGUF_TYPE.BOOL: return Buffer.from([v ? 1 : 0]);
    case GGUF_TYPE.STRING: return str(v as string);
  }
}

/**
 * The bytes of a GGUF v3 file.
 * @param metadata keys in file order (`general.architecture` first, as llama.cpp expects)
 * @throws when a tensor's data length is not the product of its dimensions
 */
export function writeGguf(metadata: ReadonlyArray<[string, GgufValue]>, tensors: readonly GgufTensor[]): Buffer {
  const head: Buffer[] = [Buffer.from('GGUF'), u32(3), u64(tensors.length), u64(metadata.length)];
  for (const [key, v] of metadata) {
    head.push(str(key), u32(v.type));
    if (v.type === GGUF_TYPE.ARRAY) head.push(u32(v.of), u64(v.values.length), ...v.values.map((x) => scalar(v.of, x)));
    else head.push(scalar(v.type, v.value));
  }
  let offset = 0;
  for (const t of tensors) {
    if (t.data.length !== t.dims.reduce((a, b) => a * b, 1)) throw new Error(`tensor ${t.name}: ${t.data.length} values for dims ${t.dims.join('×')}`);
    head.push(str(t.name), u32(t.dims.length), ...t.dims.map(u64), u32(GGML_TYPE_F32), u64(offset));
    offset = padTo(offset + t.data.byteLength);
  }
  const header = Buffer.concat(head);
  const out: Buffer[] = [header, Buffer.alloc(padTo(header.length) - header.length)];
  for (const t of tensors) {
    const b = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    out.push(b, Buffer.alloc(padTo(b.length) - b.length));
  }
  return Buffer.concat(out);
}
