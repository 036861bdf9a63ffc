#!/bin/bash
# Trains the networks of diacnet-2.0 and diacnet-mini-2.0 side by side on one NVIDIA GPU
# (issue 35; recipes in scripts/diacnet-recipes.ts), from the training lines that
# `scripts/diacnet-data.ts --write-lines FILE.br` wrote where the corpora are, so that the
# GPU machine needs no ../shared: it builds the same arrays from them (byte for byte;
# test/scripts/diacnet-data.test.ts), then runs scripts/train_diacnet.py with CuPy.
#
# Usage: scripts/train-diacnet-gpu.sh LINES.br OUT_DIR [MINUTES]
#   OUT_DIR/diacnet-2.0 and OUT_DIR/diacnet-mini-2.0 get weights.bin + weights.json and a log;
#   turn each into a model folder with `node --import tsx scripts/diacnet-onnx.ts --weights
#   OUT_DIR/<name> --data DATA --name <name>` (DATA: the arrays diacnet-data.ts built from the
#   same lines), then `npm run train:word-lm -- --name <name>` or tune-word-lm.ts alone.
# Environment: NODE (default node), DATA_JS (default: scripts/diacnet-data.ts through tsx; on
#   a machine without node_modules, the script bundled by `npx esbuild scripts/diacnet-data.ts
#   --bundle --platform=node --format=esm --outfile=diacnet-data.mjs`), PYTHON (default python3).
set -eu
LINES=$1; OUT=$2; MINUTES=${3:-5.5}
NODE=${NODE:-node}; PYTHON=${PYTHON:-python3}
here=$(cd "$(dirname "$0")" && pwd)
DATA=$(mktemp -d)
if [ -n "${DATA_JS:-}" ]; then
  "$NODE" --max-old-space-size=24000 "$DATA_JS" --out "$DATA" --lines "$LINES" --classes "$here/../models/diactag-2.0"
else
  "$NODE" --max-old-space-size=24000 --import tsx "$here/diacnet-data.ts" --out "$DATA" --lines "$LINES"
fi
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 CUPY_TF32=1
train() { # name hidden dilations feature-dim
  "$PYTHON" "$here/train_diacnet.py" --device gpu --data "$DATA" --out "$OUT/$1" --hidden "$2" --dilations "$3" --feature-dim "$4" --batch 128 --minutes "$MINUTES" > "$OUT/$1.log" 2>&1
}
train diacnet-2.0 160 1,2,4,8,16,1,2,4 32 &
train diacnet-mini-2.0 96 1,2,4,8,1,2 16 &
wait
tail -n 1 "$OUT/diacnet-2.0.log" "$OUT/diacnet-mini-2.0.log"
