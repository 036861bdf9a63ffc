/**
 * Pieces for writing ONNX graphs with onnx-proto (ONNX IR, onnx/onnx.proto): element
 * types, attribute types, initialisers and value infos. Used by the exporters of the
 * project's own models (scripts/lid-onnx.ts, scripts/diacnet-onnx.ts).
 */
import onnxProto from 'onnx-proto';

/** onnx-proto's generated namespace. */
export const { onnx } = onnxProto;
type onnxT = typeof onnxProto.onnx;
export type ITensorProto = Parameters<onnxT['TensorProto']['create']>[0] & object;
export type IValueInfoProto = Parameters<onnxT['ValueInfoProto']['create']>[0] & object;
export type IGraphProto = Parameters<onnxT['GraphProto']['create']>[0] & object;
export type INodeProto = Parameters<onnxT['NodeProto']['create']>[0] & object;

/** TensorProto.DataType values (onnx.proto). */
export const FLOAT = 1, INT32 = 6, INT64 = 7;
/** AttributeProto.AttributeType values (onnx.proto). */
export const INT = 2, INTS = 7;

/** A float32 initialiser holding `data` (row-major, `dims`). */
export function tensor(name: string, dims: number[], data: Float32Array): ITensorProto {
  return { name, dims, dataType: FLOAT, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

/** A 1-D int64 initialiser (axes, shapes). */
export function int64s(name: string, values: number[]): ITensorProto {
  return { name, dims: [values.length], dataType: INT64, rawData: new Uint8Array(new BigInt64Array(values.map((v) => BigInt(v))).buffer) };
}

/** A graph input or output of element type `elemType` with named (variable) dimensions. */
export function valueInfo(name: string, elemType: number, dims: string[]): IValueInfoProto {
  return { name, type: { tensorType: { elemType, shape: { dim: dims.map((d) => ({ dimParam: d })) } } } };
}
