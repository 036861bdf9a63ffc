"""Trains a diacnet model (issue 13): a character CNN over the whole text without marks.

Model: character and language embeddings, then residual 1-D convolutions (kernel 5,
dilations 1, 2, 4, 8, ...: a dilated CNN as in WaveNet, van den Oord et al. 2016, and
Strubell et al. 2017 for sequence labelling) with ReLU; for each letter with a choice,
its word-level input is added: the mean of the embeddings of its hashed context features
(diactag's: its word, the neighbouring words, n-grams), projected to the hidden size;
then a softmax over the marks the letter may take in its language (the class space of
diactag-2.0). The feature embeddings are updated by SGD (sparse), the rest by Adam.
Padding and the ends of the text are zeros in every layer, so a text alone and a text
in a padded batch get the same answer. Adam (Kingma & Ba 2015), seeded. The data comes
from scripts/diacnet-data.ts; the weights go to OUT/weights.bin with OUT/weights.json,
which scripts/diacnet-onnx.ts turns into ONNX.

Array backend: NumPy (Debian python3-numpy) by default, on the CPU; `--device gpu` runs the
same code on an NVIDIA GPU with CuPy, NumPy's array interface on CUDA (cupy-cuda13x;
docs.cupy.dev). Batches are drawn and initial weights made on the host with the same
NumPy generator either way; only the arithmetic moves. On the GPU the sparse updates are
atomic additions (cupyx.scatter_add) in no fixed order, so two GPU runs differ in the last
bits; on the CPU `--steps N` gives the same weights on any machine with the same NumPy.

Usage: python3 scripts/train_diacnet.py --data DIR --out DIR [--hidden 64] [--dilations 1,2,4,8] [--minutes 10 | --steps N] [--device cpu|gpu] [--batch 32]

With --minutes the learning rate decays with the time spent, so the step count (recorded
in weights.json) depends on the machine.
"""
import argparse, json, math, os, time
import numpy as np

p = argparse.ArgumentParser()
p.add_argument('--data', required=True)
p.add_argument('--out', required=True)
p.add_argument('--hidden', type=int, default=64)
p.add_argument('--emb', type=int, default=32)
p.add_argument('--dilations', default='1,2,4,8')
p.add_argument('--batch', type=int, default=32)
p.add_argument('--lr', type=float, default=2e-3)
p.add_argument('--minutes', type=float, default=10)
p.add_argument('--steps', type=int, default=0, help='train this many steps (the schedule by step: reproducible on any machine) instead of --minutes')
p.add_argument('--seed', type=int, default=13)
p.add_argument('--feature-dim', type=int, default=32)
p.add_argument('--feature-lr', type=float, default=0.2)
p.add_argument('--device', choices=['cpu', 'gpu'], default='cpu', help='cpu: NumPy; gpu: CuPy on the first CUDA device')
a = p.parse_args()

if a.device == 'gpu':
    try:
        import cupy as xp
        import cupyx
    except ImportError as e:
        raise SystemExit(f'--device gpu needs CuPy and an NVIDIA GPU ({e}); --device cpu trains with NumPy') from e

    def scatter_add(target, index, values):
        """target[index] += values, repeated indices added (cupyx.scatter_add)."""
        cupyx.scatter_add(target, index, values)

    to_host = xp.asnumpy
else:
    xp = np

    def scatter_add(target, index, values):
        """target[index] += values, repeated indices added (numpy.ufunc.at)."""
        np.add.at(target, index, values)

    def to_host(v):
        return v

rng = np.random.default_rng(a.seed)
meta = json.load(open(os.path.join(a.data, 'meta.json')))
V, L, C = len(meta['vocab']), len(meta['languages']), len(meta['classes'])
chars = np.fromfile(os.path.join(a.data, 'chars.i32'), dtype=np.int32)
targets = np.fromfile(os.path.join(a.data, 'targets.i32'), dtype=np.int32)
cands = np.fromfile(os.path.join(a.data, 'cands.i32'), dtype=np.int32)  # host arrays: batches are cut here
seqs = np.fromfile(os.path.join(a.data, 'seqs.i32'), dtype=np.int32).reshape(-1, 3)
candmask = xp.asarray(np.fromfile(os.path.join(a.data, 'candmask.u8'), dtype=np.uint8).reshape(-1, C).astype(bool))
FPL = meta['featuresPerLetter']; FB = meta['features']['buckets']; F = a.feature_dim
featrow = np.fromfile(os.path.join(a.data, 'featrow.i32'), dtype=np.int32)
feats = xp.asarray(np.fromfile(os.path.join(a.data, 'feats.u32'), dtype=np.uint32).reshape(-1, FPL).astype(np.int32))
dil = [int(x) for x in a.dilations.split(',')]
E, H, K = a.emb, a.hidden, 5

# sequences drawn per language in proportion to the square root of its size: the small
# languages (Yorùbá, Igbo, Hausa) are seen more often than their share
lang_of = seqs[:, 2]
size = np.bincount(lang_of, weights=seqs[:, 1], minlength=L)
weight = np.sqrt(size) / size
prob = weight[lang_of] * seqs[:, 1]
prob /= prob.sum()
# numpy's Generator.choice(p=prob) draws by inverse transform over the normalised cumulative
# sum; built once here, the same draws cost no pass over every sequence per batch
cdf = np.cumsum(prob)
cdf /= cdf[-1]

f32 = np.float32
params = {'Ec': (rng.standard_normal((V, E)) * 0.1).astype(f32), 'El': (rng.standard_normal((L, E)) * 0.1).astype(f32)}
for i, d in enumerate(dil):
    cin = E if i == 0 else H
    params[f'W{i}'] = (rng.standard_normal((K * cin, H)) * math.sqrt(2 / (K * cin))).astype(f32)
    params[f'b{i}'] = np.zeros(H, f32)
params['P'] = (rng.standard_normal((F, H)) * math.sqrt(1 / F)).astype(f32)
params['Wo'] = (rng.standard_normal((H, C)) * math.sqrt(1 / H)).astype(f32)
# the feature embeddings: row FB is the padding row and stays zero
Ef = ((rng.random((FB + 1, F)) * 2 - 1) / F).astype(f32); Ef[FB] = 0
params['bo'] = np.zeros(C, f32)
params = {k: xp.asarray(v) for k, v in params.items()}
Ef = xp.asarray(Ef)
m = {k: xp.zeros_like(v) for k, v in params.items()}
v2 = {k: xp.zeros_like(v) for k, v in params.items()}


def im2col(h, d):
    b, t, ch = h.shape
    pad = (K // 2) * d
    hp = xp.pad(h, ((0, 0), (pad, pad), (0, 0)))
    return xp.concatenate([hp[:, k * d:k * d + t, :] for k in range(K)], axis=2).reshape(b * t, K * ch)


def col2im(g, shape, d):
    b, t, ch = shape
    pad = (K // 2) * d
    g = g.reshape(b, t, K, ch)
    out = xp.zeros((b, t + 2 * pad, ch), f32)
    for k in range(K):
        out[:, k * d:k * d + t, :] += g[:, :, k, :]
    return out[:, pad:pad + t, :]


def batch():
    idx = cdf.searchsorted(rng.random(a.batch), side='right')
    t = int(seqs[idx, 1].max())
    x = np.zeros((a.batch, t), np.int32); y = np.full((a.batch, t), -1, np.int32); c = np.full((a.batch, t), -1, np.int32); fr = np.full((a.batch, t), -1, np.int64)
    for r, s in enumerate(idx):
        start, n, _ = seqs[s]
        x[r, :n] = chars[start:start + n]; y[r, :n] = targets[start:start + n]; c[r, :n] = cands[start:start + n]; fr[r, :n] = featrow[start:start + n]
    return xp.asarray(x), xp.asarray(lang_of[idx]), xp.asarray(y), xp.asarray(c), xp.asarray(fr), int(seqs[idx, 1].sum())


def step(x, lang, y, c, fr, lr, flr, it):
    P = params
    valid = (x > 0).astype(f32)[:, :, None]
    b, t = x.shape
    h = (P['Ec'][x] + P['El'][lang][:, None, :]) * valid
    cols, acts, hs = [], [], [h]
    for i, d in enumerate(dil):
        col = im2col(h, d)
        act = xp.maximum(col @ P[f'W{i}'] + P[f'b{i}'], 0).reshape(b, t, H) * valid
        cols.append(col); acts.append(act)
        h = act if i == 0 else h + act
        hs.append(h)
    flat = h.reshape(b * t, H)
    sel = xp.nonzero(y.reshape(-1) >= 0)[0]
    ids = feats[fr.reshape(-1)[sel]]                      # [S, FPL]
    cnt = (ids < FB).sum(1, keepdims=True).astype(f32)
    bag = Ef[ids].sum(1) / cnt                             # [S, F]
    hsel = flat[sel] + bag @ P['P']
    z = hsel @ P['Wo'] + P['bo']
    z = xp.where(candmask[c.reshape(-1)[sel]], z, -1e9)
    z -= z.max(1, keepdims=True)
    e = xp.exp(z); pr = e / e.sum(1, keepdims=True)
    ys = y.reshape(-1)[sel]
    loss = -xp.log(pr[xp.arange(len(sel)), ys] + 1e-12).mean()
    acc = (pr.argmax(1) == ys).mean()
    gz = pr; gz[xp.arange(len(sel)), ys] -= 1; gz /= len(sel)
    G = {'Wo': hsel.T @ gz, 'bo': gz.sum(0)}
    ghsel = gz @ P['Wo'].T
    G['P'] = bag.T @ ghsel
    gbag = (ghsel @ P['P'].T) / cnt                        # [S, F]
    # per-letter SGD as diactag's (the loss is a mean over the batch's letters, so its
    # gradient is scaled back up by their number)
    scatter_add(Ef, ids.reshape(-1), xp.repeat(-flr * len(sel) * gbag, FPL, axis=0))
    Ef[FB] = 0
    gflat = xp.zeros((b * t, H), f32); gflat[sel] = ghsel
    gh = gflat.reshape(b, t, H)
    for i in reversed(range(len(dil))):
        ga = gh * (acts[i] > 0)
        ga2 = ga.reshape(b * t, H)
        G[f'W{i}'] = cols[i].T @ ga2; G[f'b{i}'] = ga2.sum(0)
        gin = col2im(ga2 @ P[f'W{i}'].T, hs[i].shape, dil[i])
        gh = gin if i == 0 else gh + gin
    gh *= valid
    G['Ec'] = xp.zeros_like(P['Ec']); scatter_add(G['Ec'], x.reshape(-1), gh.reshape(-1, E))
    G['El'] = xp.zeros_like(P['El']); scatter_add(G['El'], lang, gh.sum(1))
    b1, b2 = 0.9, 0.999
    for k in P:
        g = G[k].astype(f32)
        m[k] = b1 * m[k] + (1 - b1) * g; v2[k] = b2 * v2[k] + (1 - b2) * g * g
        P[k] -= lr * (m[k] / (1 - b1 ** it)) / (xp.sqrt(v2[k] / (1 - b2 ** it)) + 1e-8)
    return loss, acc


t0 = time.time(); it = 0; seen = 0; run_loss = run_acc = 0.0
budget = a.minutes * 60
while (it < a.steps) if a.steps > 0 else (time.time() - t0 < budget):
    it += 1
    frac = it / a.steps if a.steps > 0 else (time.time() - t0) / budget
    lr = a.lr * min(1.0, it / 200) * (1 - 0.9 * frac)
    x, lang, y, c, fr, units = batch()
    loss, acc = step(x, lang, y, c, fr, lr, a.feature_lr * (1 - frac), it)
    seen += units
    run_loss = 0.98 * run_loss + 0.02 * loss; run_acc = 0.98 * run_acc + 0.02 * acc  # device scalars: read every 200 steps only
    if it % 200 == 0:
        print(f'[{time.time() - t0:.0f} s] step {it}, {seen / 1e6:.1f} M characters, loss {float(run_loss):.4f}, letter accuracy {float(run_acc):.4f}', flush=True)

os.makedirs(a.out, exist_ok=True)
params['Ef'] = Ef[:FB]
params = {k: to_host(v) for k, v in params.items()}
names = ['Ec', 'El'] + [n for i in range(len(dil)) for n in (f'W{i}', f'b{i}')] + ['Ef', 'P', 'Wo', 'bo']
with open(os.path.join(a.out, 'weights.bin'), 'wb') as f:
    for n in names:
        f.write(params[n].astype('<f4').tobytes())
json.dump({'names': names, 'shapes': {n: list(params[n].shape) for n in names}, 'dilations': dil, 'kernel': K, 'hidden': H, 'emb': E, 'features': meta['features'], 'features_per_letter': FPL,
           'steps': it, 'characters': seen, 'seed': a.seed, 'minutes': a.minutes if a.steps == 0 else None, 'schedule': 'by step' if a.steps > 0 else 'by time', 'lr': a.lr, 'batch': a.batch, 'device': a.device}, open(os.path.join(a.out, 'weights.json'), 'w'))
print(f'wrote {a.out}: {it} steps, {seen / 1e6:.1f} M characters')
