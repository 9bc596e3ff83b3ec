#!/usr/bin/env python3
"""Train the evaluation network (engine/nnue.py) on scored positions ('FEN;result;cp' lines:
scripts/label_positions.py's or scripts/make_dataset.py --stockfish's).

The network: 768 inputs per side's view (a piece's colour relative to that side, its type,
its square flipped for black), a hidden layer of --hidden units per view with biases, both
clipped to [0, 1] (CReLU), the side to move's units then the other side's into one output.
It predicts the score in centipawns: the loss is the squared error between
sigmoid(score / --k) and a blend of the game's result and Stockfish's score (--lambda of
Stockfish's, the file's third field), both from the side to move's view.  With --residual
the network fits what Basilisk's own evaluation misses (its score is added to the network's
inside the sigmoid), and the file says so: the engine then adds the two.

Quantised as engine/nnue.py reads it: hidden weights and biases x 255 (int16), output
weights x 64 (int16), output bias x 255 x 64 (int32), after a header (b"BNN1", the hidden
size, the header text's length, the output bias, flags: 1 = residual, the text naming the
data and the command); training clips the weights to the ranges that keep every
accumulator lane within int16.  The epoch with the lowest held-out error is written.

    python scripts/train_nnue.py --data lab951.txt lab952.txt --out net.bin

Needs numpy (`pip install numpy`); the engine does not.
"""

import argparse
import functools
import hashlib
import struct
import sys
import time
from pathlib import Path

import numpy as np

QA, QB = 255, 64
SCALE = 400                 # centipawns of one unit of the float network's output
PIECES = "PNBRQKpnbrqk"
REPO = Path(__file__).resolve().parent.parent


def features(board_fen):
    """(white-view indices, black-view indices) of the pieces of a FEN's board field."""
    white, black = [], []
    rank, file = 7, 0
    for ch in board_fen:
        if ch == "/":
            rank -= 1
            file = 0
        elif ch.isdigit():
            file += int(ch)
        else:
            kind = PIECES.index(ch)
            colour, ptype = divmod(kind, 6)
            sq = rank * 8 + file
            white.append((colour * 6 + ptype) * 64 + sq)
            black.append(((1 - colour) * 6 + ptype) * 64 + (sq ^ 56))
            file += 1
    return white, black


def hce_scores(fens):
    """Basilisk's evaluation without the network, side to move's view (for --residual)."""
    sys.path.insert(0, str(REPO))
    from engine.evaluate import terms_score
    from engine.position import Position
    return np.array([terms_score(Position(fen)) for fen in fens], dtype=np.float32)


def load(text, lam, k):
    """Index arrays (N x 32, padded with 768), side to move, targets from its view, FENs, of
    one data file's text."""
    rows_w, rows_b, stm, target, fens = [], [], [], [], []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        fen, result, cp = line.split(";")
        fields = fen.split()
        w, b = features(fields[0])
        black = fields[1] == "b"
        result = float(result)
        cp = float(cp)
        if black:
            result, cp = 1.0 - result, -cp
        rows_w.append(w + [768] * (32 - len(w)))
        rows_b.append(b + [768] * (32 - len(b)))
        stm.append(black)
        target.append(lam / (1.0 + np.exp(-cp / k)) + (1.0 - lam) * result)
        fens.append(fen)
    return (np.array(rows_w, dtype=np.int32), np.array(rows_b, dtype=np.int32),
            np.array(stm, dtype=bool), np.array(target, dtype=np.float32), fens)


class Net:
    def __init__(self, hidden, rng):
        self.w1 = (rng.standard_normal((769, hidden)) * 0.05).astype(np.float32)
        self.w1[768] = 0.0                    # the padding row
        self.b1 = np.full(hidden, 0.1, dtype=np.float32)
        self.w2 = (rng.standard_normal(2 * hidden) * 0.05).astype(np.float32)
        self.b2 = np.zeros(1, dtype=np.float32)
        self.params = [self.w1, self.b1, self.w2, self.b2]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def forward(self, iw, ib, stm):
        rows = np.arange(len(stm))[:, None]
        x_us = np.zeros((len(stm), 769), dtype=np.float32)
        x_them = np.zeros((len(stm), 769), dtype=np.float32)
        x_us[rows, np.where(stm[:, None], ib, iw)] = 1.0
        x_them[rows, np.where(stm[:, None], iw, ib)] = 1.0
        a_us = x_us @ self.w1 + self.b1
        a_them = x_them @ self.w1 + self.b1
        h = np.concatenate([np.clip(a_us, 0, 1), np.clip(a_them, 0, 1)], axis=1)
        out = h @ self.w2 + self.b2[0]
        return x_us, x_them, a_us, a_them, h, out

    def loss(self, iw, ib, stm, target, base, k):
        out = self.forward(iw, ib, stm)[5]
        pred = 1.0 / (1.0 + np.exp(-(out * SCALE + base) / k))
        return float(np.mean((pred - target) ** 2))

    def step(self, iw, ib, stm, target, base, k, lr):
        x_us, x_them, a_us, a_them, h, out = self.forward(iw, ib, stm)
        pred = 1.0 / (1.0 + np.exp(-(out * SCALE + base) / k))
        n = len(target)
        d_out = 2.0 * (pred - target) * pred * (1.0 - pred) * (SCALE / k) / n
        g_w2 = h.T @ d_out
        g_b2 = np.array([d_out.sum()], dtype=np.float32)
        hidden = self.b1.shape[0]
        d_h = np.outer(d_out, self.w2)
        d_us = d_h[:, :hidden] * ((a_us > 0) & (a_us < 1))
        d_them = d_h[:, hidden:] * ((a_them > 0) & (a_them < 1))
        g_b1 = d_us.sum(axis=0) + d_them.sum(axis=0)
        g_w1 = x_us.T @ d_us + x_them.T @ d_them
        g_w1[768] = 0.0
        self.t += 1
        b1c, b2c = 0.9, 0.999
        for i, (p, g) in enumerate(zip(self.params, [g_w1, g_b1, g_w2, g_b2])):
            self.m[i] = b1c * self.m[i] + (1 - b1c) * g
            self.v[i] = b2c * self.v[i] + (1 - b2c) * g * g
            mh = self.m[i] / (1 - b1c ** self.t)
            vh = self.v[i] / (1 - b2c ** self.t)
            p -= lr * mh / (np.sqrt(vh) + 1e-8)
        # the quantised ranges: an accumulator lane (bias + 32 weights) x 255 within int16
        np.clip(self.w1, -1.98, 1.98, out=self.w1)
        np.clip(self.b1, -1.98, 1.98, out=self.b1)
        np.clip(self.w2, -127 / QB, 127 / QB, out=self.w2)


def write(net, path, header, flags):
    hidden = net.b1.shape[0]
    w1 = np.round(net.w1[:768] * QA).astype(np.int16)
    b1 = np.round(net.b1 * QA).astype(np.int16)
    w2 = np.round(net.w2 * QB).astype(np.int16)
    b2 = int(round(float(net.b2[0]) * QA * QB))
    head = header.encode()
    with open(path, "wb") as fh:
        fh.write(b"BNN1" + struct.pack("<HHiH", hidden, len(head), b2, flags) + head)
        fh.write(w1.astype("<i2").tobytes() + b1.astype("<i2").tobytes() + w2.astype("<i2").tobytes())


def load_one(data, args):
    """(iw, ib, stm, target, base) of one data file's bytes; base the terms' scores with
    --residual."""
    iw, ib, stm, target, fens = load(data.decode(), args.lam, args.k)
    base = hce_scores(fens) if args.residual else np.zeros(len(target), dtype=np.float32)
    return iw, ib, stm, target, base


@functools.lru_cache(maxsize=None)
def engine_sources():
    """engine/'s Python sources, read once: the terms' scores depend on them."""
    return b"".join(source.read_bytes() for source in sorted((REPO / "engine").glob("*.py")))


def load_cached(data, args):
    """load_one's arrays, kept in --cache per file (parsing and the terms' scores take about
    a minute for 250,000 positions), so data added to a set costs only its own files."""
    key = hashlib.sha256(data)
    key.update(f" {args.lam} {args.k} {args.residual}".encode())
    if args.residual:                       # the terms' scores: this checkout's engine
        key.update(engine_sources())
    cache = Path(args.cache) / f"file-{key.hexdigest()[:16]}.npz"
    names = ("iw", "ib", "stm", "target", "base")
    if cache.exists():
        with np.load(cache) as saved:
            return tuple(saved[name] for name in names)
    arrays = load_one(data, args)
    np.savez(cache, **dict(zip(names, arrays)))
    return arrays


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", nargs="+", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=8192)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--lambda", dest="lam", type=float, default=0.75,
                        help="share of Stockfish's score in the target (default %(default)s)")
    parser.add_argument("--k", type=float, default=200.0, help="sigmoid scale, centipawns")
    parser.add_argument("--holdout", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--residual", action="store_true",
                        help="fit what Basilisk's own evaluation misses: the engine adds the "
                             "network's score to it")
    parser.add_argument("--cache", metavar="DIR",
                        help="keep each file's parsed positions (and the terms' scores) in DIR "
                             "for the next run on the same files")
    args = parser.parse_args()
    if args.cache:
        Path(args.cache).mkdir(parents=True, exist_ok=True)

    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    digest = hashlib.sha256()
    parts = []
    for path in args.data:
        data = Path(path).read_bytes()
        digest.update(data)
        parts.append(load_cached(data, args) if args.cache else load_one(data, args))
    iw, ib, stm, target, base = (np.concatenate([part[i] for part in parts]) for i in range(5))
    del parts
    n = len(target)
    order = rng.permutation(n)
    n_val = int(n * args.holdout)
    val, fit = order[:n_val], order[n_val:]
    print(f"{n} positions ({len(fit)} fitted, {n_val} held out), loaded in {time.time() - t0:.1f} s",
          file=sys.stderr)
    net = Net(args.hidden, rng)
    alone = float(np.mean((1.0 / (1.0 + np.exp(-base[val] / args.k)) - target[val]) ** 2))
    print(f"held-out loss of the {'evaluation' if args.residual else 'zero score'} alone: "
          f"{alone:.6f}", file=sys.stderr)
    if args.epochs < 1:                     # --epochs 0: fill --cache, train nothing
        return
    best, best_params = None, None
    for epoch in range(1, args.epochs + 1):
        lr = args.lr * (0.5 ** (3 * (epoch - 1) / args.epochs))
        rng.shuffle(fit)
        for start in range(0, len(fit), args.batch):
            b = fit[start:start + args.batch]
            net.step(iw[b], ib[b], stm[b], target[b], base[b], args.k, lr)
        vl = net.loss(iw[val], ib[val], stm[val], target[val], base[val], args.k)
        probe = fit[:len(val)]
        fl = net.loss(iw[probe], ib[probe], stm[probe], target[probe], base[probe], args.k)
        print(f"epoch {epoch}/{args.epochs}: fitted {fl:.6f} held out {vl:.6f} "
              f"({time.time() - t0:.0f} s)", file=sys.stderr)
        if best is None or vl < best:
            best = vl
            best_params = [p.copy() for p in net.params]
    for p, q in zip(net.params, best_params):
        p[...] = q
    header = (f"data sha256 {digest.hexdigest()[:16]} ({n} positions); "
              f"command: train_nnue.py {' '.join(sys.argv[1:])}; held-out loss {best:.6f}")
    write(net, args.out, header, 1 if args.residual else 0)
    print(header, file=sys.stderr)


if __name__ == "__main__":
    main()
