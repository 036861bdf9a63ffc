/**
 * The file of a diacnet model's word lexicon and language model (issue 35): built once at
 * training time (scripts/word-lm.ts) into typed arrays that load without parsing, so a
 * model is ready in well under 2 s however large its lexicon.
 *
 * The model file is *packed* ({@link packWordLm}): the ASCII magic {@link PACKED_MAGIC}, a
 * little-endian uint32 with the byte length of a JSON index (`{"languages": {"pol":
 * [offset, length], ...}}`, byte ranges after the index), then per language the gzip of a
 * one-language file of the layout below. A language is decompressed on its first use
 * ({@link openWordLm}), so loading reads the index only: inflating all 166 MB of
 * diacnet-2.0's word model took 0.8–1.5 s on the 2-core machine, the largest language
 * (Polish, 55 MB) about 0.2–0.3 s, and a process that never sees a language never holds it.
 *
 * Layout of the unpacked file (also read as it is, or gzip-compressed): the ASCII magic {@link MAGIC}, a little-endian uint32 with the byte
 * length of a JSON header, the header ({@link WordLmHeader}), zero padding to a multiple
 * of 4, then the arrays, each starting at a multiple of 4 (little-endian). Per language:
 * - `forms`: the lower-case NFC forms joined by `\n`, sorted by their UTF-8 bytes
 *   (`<s>` and `</s>` among them), with `formStart` (uint32, byte offset of each form
 *   and one past the last): a form's id is its rank;
 * - per form: `count` (float32, weighted count in the training text), `followers`
 *   (uint32, distinct next forms before pruning), `lexicon` (uint8, 1 when a Hunspell
 *   dictionary writes it) and `prior` (float32, its count in a word-frequency list);
 * - `keys`: the forms' lexicon keys (marks stripped) joined by `\n`, sorted by UTF-8
 *   bytes, with `keyStart` (byte offsets) and `keyForms` / `keyFormStart` (the form ids
 *   of each key, most frequent first, CSR);
 * - bigrams by previous form (CSR): `biStart` (uint32, per form), `biNext` (uint32, the
 *   next form's id, ascending within a row), `biCount` (float32), `biFollowers` (uint32,
 *   distinct next forms of the pair, before pruning);
 * - trigrams by bigram (CSR): `triStart` (uint32, per bigram), `triNext` (uint32,
 *   ascending within a row), `triCount` (float32);
 * - the dictionary forms the tables above lack (Hunspell, scripts/diacritics-lexicons.ts):
 *   `dict`, one line per key, `key\tform\tform…\n`, sorted by the key's UTF-8 bytes (so
 *   that consecutive lines share prefixes and compress well), with `dictLen` (uint16,
 *   each line's byte length; offsets are summed at load); the header's `lexiconForms`
 *   counts every dictionary form, in the tables or here;
 * - place names (GeoNames, scripts/diacritics-lexicons.ts placeNameCounts, scripts/word-lm.ts
 *   chosenPlaceNames): `names`, one line
 *   per key that neither the tables nor `dict` have, `key\tform\n`, sorted by the key's
 *   UTF-8 bytes, with `namesLen` (uint16 line lengths). Optional: a file without them (the
 *   class model's, a file built before them) reads as having none.
 */
import { gunzipSync, gzipSync } from 'node:zlib';

/** The file's first bytes. */
export const MAGIC = 'lmstream-word-lm-2\n';
/** A packed file's first bytes (module comment). */
export const PACKED_MAGIC = 'lmstream-word-lm-2-packed\n';

/** The element types of the arrays. */
export type ArrayType = 'u8' | 'u16' | 'u32' | 'f32';
/** Where an array lies in the body: byte offset from the start of the body, element count, type. */
export type ArrayRef = [offset: number, length: number, type: ArrayType];

/** The header: per language (ISO 639-3) its totals and arrays. */
export interface WordLmHeader {
  languages: Record<string, { tokens: number; lexiconForms: number; arrays: Record<string, ArrayRef> }>;
}

/** The arrays of one language, as built and as loaded. */
export interface LangArrays {
  /** weighted number of tokens (words and `</s>`) in the training text */
  tokens: number;
  /** dictionary forms in all (in the tables and in `dict`) */
  lexiconForms: number;
  forms: Uint8Array; formStart: Uint32Array;
  count: Float32Array; followers: Uint32Array; lexicon: Uint8Array; prior: Float32Array;
  keys: Uint8Array; keyStart: Uint32Array; keyFormStart: Uint32Array; keyForms: Uint32Array;
  biStart: Uint32Array; biNext: Uint32Array; biCount: Float32Array; biFollowers: Uint32Array;
  triStart: Uint32Array; triNext: Uint32Array; triCount: Float32Array;
  dict: Uint8Array; dictLen: Uint16Array;
  names: Uint8Array; namesLen: Uint16Array;
}

const NAMES = ['forms', 'formStart', 'count', 'followers', 'lexicon', 'prior', 'keys', 'keyStart', 'keyFormStart', 'keyForms', 'biStart', 'biNext', 'biCount', 'biFollowers', 'triStart', 'triNext', 'triCount', 'dict', 'dictLen', 'names', 'namesLen'] as const;
/** Arrays a file may lack (module comment): read as empty. */
const OPTIONAL: ReadonlySet<string> = new Set(['names', 'namesLen']);
const typeOf = (a: TypedArray): ArrayType => (a instanceof Uint8Array ? 'u8' : a instanceof Uint16Array ? 'u16' : a instanceof Uint32Array ? 'u32' : 'f32');

/** A typed array of one of the {@link ArrayType}s. */
export type TypedArray = Uint8Array | Uint16Array | Uint32Array | Float32Array;

/**
 * A file of named typed arrays in groups (one group per language): the ASCII `magic`, a
 * little-endian uint32 with the byte length of a JSON header, the header, zero padding to
 * a multiple of 4, then the arrays, each starting at a multiple of 4 (little-endian). The
 * header is what `header` makes of each group's array references (byte offset from the
 * start of the body, element count, type).
 */
export function encodeTables(magic: string, groups: ReadonlyArray<Readonly<Record<string, TypedArray>>>, header: (refs: Array<Record<string, ArrayRef>>) => unknown): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  const refs = groups.map((g) => {
    const arrays: Record<string, ArrayRef> = {};
    for (const [name, arr] of Object.entries(g)) {
      const bytes = Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength);
      arrays[name] = [offset, arr.length, typeOf(arr)];
      parts.push(bytes);
      offset += bytes.length;
      const pad = (4 - (offset % 4)) % 4;
      if (pad) { parts.push(Buffer.alloc(pad)); offset += pad; }
    }
    return arrays;
  });
  const json = Buffer.from(JSON.stringify(header(refs)), 'utf8');
  const head = Buffer.concat([Buffer.from(magic, 'ascii'), Buffer.alloc(4)]);
  head.writeUInt32LE(json.length, magic.length);
  const before = head.length + json.length;
  return Buffer.concat([head, json, Buffer.alloc((4 - (before % 4)) % 4), ...parts]);
}

/**
 * The header of a file of {@link encodeTables} and a function that gives an array of it
 * as a view of the file's bytes (no copy but one, to align the file).
 * @param data the file's bytes, gzip-compressed or not
 * @param what the file's kind, for the error, and `fix` what to do about it
 * @throws Error when the file does not start with `magic`
 */
export function decodeTables<H>(magic: string, data: Buffer, what: string, fix = ''): { header: H; view: (ref: ArrayRef) => TypedArray } {
  let buf = data[0] === 0x1f && data[1] === 0x8b ? gunzipSync(data) : data;
  if (buf.toString('ascii', 0, magic.length) !== magic) throw new Error(`${what}: not a ${magic.trim()} file${fix}`);
  if (buf.byteOffset % 4 !== 0) buf = Buffer.from(buf);
  const len = buf.readUInt32LE(magic.length);
  const start = magic.length + 4;
  const header = JSON.parse(buf.toString('utf8', start, start + len)) as H;
  const body = start + len + ((4 - ((start + len) % 4)) % 4);
  const view = ([off, n, type]: ArrayRef): TypedArray => {
    const at = buf.byteOffset + body + off;
    return type === 'u8' ? new Uint8Array(buf.buffer, at, n) : type === 'u16' ? new Uint16Array(buf.buffer, at, n) : type === 'u32' ? new Uint32Array(buf.buffer, at, n) : new Float32Array(buf.buffer, at, n);
  };
  return { header, view };
}

/** The uncompressed file for the given languages' arrays (gzip it to write the model file). */
export function encodeWordLm(langs: ReadonlyMap<string, LangArrays>): Buffer {
  const entries = [...langs];
  return encodeTables(MAGIC, entries.map(([, a]) => Object.fromEntries(NAMES.map((n) => [n, a[n]]))), (refs) => ({
    languages: Object.fromEntries(entries.map(([lang, a], i) => [lang, { tokens: a.tokens, lexiconForms: a.lexiconForms, arrays: refs[i]! }])),
  }) satisfies WordLmHeader);
}

/**
 * The languages' arrays of a file, as views of one buffer (no copy but one, to align it).
 * @param data the file's bytes: packed (every language decoded now), or unpacked, gzip-compressed or not
 * @throws Error when the file is not a word LM of this format
 */
export function decodeWordLm(data: Buffer): Map<string, LangArrays> {
  if (data.toString('ascii', 0, PACKED_MAGIC.length) === PACKED_MAGIC) return new Map([...openWordLm(data)].map(([lang, load]) => [lang, load()]));
  const { header, view } = decodeTables<WordLmHeader>(MAGIC, data, 'word LM', ' (rebuild it with scripts/word-lm.ts)');
  const out = new Map<string, LangArrays>();
  for (const [lang, l] of Object.entries(header.languages)) {
    out.set(lang, Object.assign({ tokens: l.tokens, lexiconForms: l.lexiconForms }, Object.fromEntries(NAMES.map((n) => {
      const ref = l.arrays[n];
      if (!ref && OPTIONAL.has(n)) return [n, n === 'names' ? new Uint8Array(0) : new Uint16Array(0)];
      if (!ref) throw new Error(`word LM ${lang}: no array ${n} (rebuild it with scripts/word-lm.ts)`);
      return [n, view(ref)];
    }))) as unknown as LangArrays);
  }
  return out;
}

/**
 * A packed file: the ASCII `magic`, a little-endian uint32 with the byte length of a JSON
 * index (`{"languages": {"pol": [offset, length], ...}}`, byte ranges after the index),
 * then each part gzip-compressed on its own (level 9), so that a reader decompresses a
 * part on its first use ({@link packedPartsOf}).
 */
export function packParts(magic: string, parts: ReadonlyMap<string, Buffer>): Buffer {
  const index: Record<string, [offset: number, length: number]> = {};
  const members: Buffer[] = [];
  let offset = 0;
  for (const [lang, bytes] of parts) {
    const gz = gzipSync(bytes, { level: 9 });
    index[lang] = [offset, gz.length];
    members.push(gz);
    offset += gz.length;
  }
  const json = Buffer.from(JSON.stringify({ languages: index }), 'utf8');
  const head = Buffer.alloc(magic.length + 4);
  head.write(magic, 0, 'ascii');
  head.writeUInt32LE(json.length, magic.length);
  return Buffer.concat([head, json, ...members]);
}

/**
 * Where each part of a packed file ({@link packParts}) lies: its byte range [from, to) in
 * `data`, read from the index.
 * @throws Error when `data` does not start with `magic` (the message names `what`)
 */
export function packedPartsOf(magic: string, data: Buffer, what: string): Map<string, [from: number, to: number]> {
  if (data.toString('ascii', 0, magic.length) !== magic) throw new Error(`${what}: not a packed file`);
  const len = data.readUInt32LE(magic.length);
  const start = magic.length + 4;
  const { languages } = JSON.parse(data.toString('utf8', start, start + len)) as { languages: Record<string, [number, number]> };
  const body = start + len;
  return new Map(Object.entries(languages).map(([lang, [off, n]]) => [lang, [body + off, body + off + n]]));
}

/**
 * The packed model file (module comment) for the given languages' arrays: each language
 * is gzip-compressed on its own (level 9).
 */
export function packWordLm(langs: ReadonlyMap<string, LangArrays>): Buffer {
  return packParts(PACKED_MAGIC, new Map([...langs].map(([lang, a]) => [lang, encodeWordLm(new Map([[lang, a]]))])));
}

/**
 * The languages of a model file, each with a function that gives its arrays: for a packed
 * file the function decompresses and decodes the language's part when first called (and
 * every time it is called: callers keep the result); any other file is decoded whole here.
 * @param data the file's bytes
 * @throws Error when the file is neither packed nor of the unpacked format (the loaders throw the same for a damaged part)
 */
export function openWordLm(data: Buffer): Map<string, () => LangArrays> {
  if (data.toString('ascii', 0, PACKED_MAGIC.length) !== PACKED_MAGIC) {
    const all = decodeWordLm(data);
    return new Map([...all].map(([lang, a]) => [lang, () => a]));
  }
  return new Map([...packedParts(data)].map(([lang, [from, to]]) => [lang, () => {
    const one = decodeWordLm(data.subarray(from, to)).get(lang);
    if (!one) throw new Error(`word LM: the packed part of ${lang} holds no ${lang}`);
    return one;
  }]));
}

/**
 * Where each language's gzip part lies in a packed word-model file (module comment): its
 * byte range [from, to) in `data`, read from the index.
 * @throws Error when `data` is not a packed file
 */
export function packedParts(data: Buffer): Map<string, [from: number, to: number]> {
  return packedPartsOf(PACKED_MAGIC, data, 'word LM');
}

/** A Buffer view of an array's bytes (no copy), for byte comparisons and decoding. */
export const bytesOf = (a: Uint8Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/**
 * The rank of `query` (UTF-8 bytes) among the `\n`-joined sorted strings of `b`, or -1.
 * Binary search comparing bytes, no string decoded.
 */
export function findSorted(b: Buffer, starts: Uint32Array, query: Uint8Array): number {
  let lo = 0; let hi = starts.length - 2;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = b.compare(query, 0, query.length, starts[mid]!, starts[mid + 1]! - 1);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

/** Index of `x` in the ascending `arr[from, to)`, or -1. */
export function findIn(arr: Uint32Array, from: number, to: number, x: number): number {
  let lo = from; let hi = to - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = arr[mid]!;
    if (v === x) return mid;
    if (v < x) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

/** Byte offset of each line of a `dict` blob and one past the last, from its line lengths. */
export function lineStarts(lengths: Uint16Array): Uint32Array {
  const out = new Uint32Array(lengths.length + 1);
  for (let i = 0; i < lengths.length; i++) out[i + 1] = out[i]! + lengths[i]!;
  return out;
}

/**
 * The line of a `dict` blob (`b`) whose key (the bytes before its first tab) is `query`, or -1.
 * Lines are sorted by key bytes; a tab sorts before every byte of a key.
 */
export function findLine(b: Buffer, starts: Uint32Array, query: Uint8Array): number {
  let lo = 0; let hi = starts.length - 2;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const s = starts[mid]!;
    const tab = b.indexOf(9, s);
    const c = b.compare(query, 0, query.length, s, tab);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}
