"""Summarise trace.cu's per-tile marks (session 26): where a persistent-grid tile's time goes.

usage: python3 analyze.py trace_30.bin [...]
For each tile past the first 33 groups: load (ticket to A published), wait (A published to
prefix known), need (the latest of what its look-back reads, the A of the tiles before it in
its group and the group before and P[g-2], minus its own A's time: the least wait possible),
need_g (the same when it reads G[g-32 .. g-2] and P[g-33] instead of P[g-2], FS_GDIRECT),
slack (wait - need), round (A published to the first round of reads back, FS_ONELOOP),
store (prefix to stores issued); then what a block does between tiles.
"""
import sys

import numpy as np

FAN = 32


def summary(name, v):
    q = np.percentile(v, [5, 25, 50, 75, 95, 99])
    return f"{name:>8}: mean {v.mean():7.0f}  p5 {q[0]:6.0f} p25 {q[1]:6.0f} p50 {q[2]:6.0f} p75 {q[3]:6.0f} p95 {q[4]:6.0f} p99 {q[5]:6.0f} ns"


def main(paths):
    for path in paths:
        m = np.fromfile(path, dtype=np.uint64).reshape(-1, 8)
        tiles = len(m)
        t0 = m[:, :5].astype(np.int64)
        start = t0[:, 0].min()
        ticket, apub, prefix, stored, ppub = (t0[:, k] - start for k in range(5))
        ppub = np.where(t0[:, 4] > 0, ppub, -1)
        gpub = np.where(m[:, 6] > 0, m[:, 6].astype(np.int64) - start, -1)
        rnd = np.where(m[:, 7] > 0, m[:, 7].astype(np.int64) - start, -1)
        block = (m[:, 5] >> np.uint64(32)).astype(np.int64)
        sm = (m[:, 5] & np.uint64(0xFFFFFFFF)).astype(np.int64)
        # the latest A each tile reads, tiles 32(g-1) .. t-1 (a running max over a window),
        # and how many tiles back it came from
        t = np.arange(tiles)
        g = t // FAN
        lo = np.maximum((g - 1) * FAN, 0)
        need_a = np.full(tiles, -1, dtype=np.int64)
        late = np.zeros(tiles, dtype=np.int64)
        for k in range(1, 2 * FAN):
            j = t - k
            v = np.where((j >= lo) & (j >= 0), apub[np.maximum(j, 0)], -1)
            late = np.where(v > need_a, k, late)
            need_a = np.maximum(need_a, v)
        pg2 = np.full(tiles, -1, dtype=np.int64)
        has = g >= 2
        pg2[has] = ppub[(g[has] - 2) * FAN + FAN - 1]
        need = np.maximum(need_a, pg2) - apub
        # FS_GDIRECT: G[g-32 .. g-2] (published by each group's last tile) and P[g-33]
        gp = gpub[FAN - 1::FAN]  # by group
        pad = np.concatenate([np.full(FAN - 1, -1, dtype=np.int64), gp])
        win = np.lib.stride_tricks.sliding_window_view(pad, FAN - 1).max(axis=1)  # win[x]: max G[x-30 .. x]
        gmax = np.where(g >= 2, win[np.maximum(g - 2, 0)], -1)
        p33 = np.where(g >= FAN + 1, ppub[np.maximum((g - FAN - 1) * FAN + FAN - 1, 0)], -1)
        need_g = np.maximum.reduce([need_a, gmax, p33]) - apub
        s = slice((FAN + 1) * FAN, tiles)
        load, wait, store = apub - ticket, prefix - apub, stored - prefix
        print(f"== {path}: {tiles} tiles, {block.max() + 1} blocks on {sm.max() + 1} SMs, "
              f"first ticket to last store {(stored.max()) / 1e3:.1f} us")
        rows = [("load", load), ("wait", wait), ("need", need), ("need_g", need_g), ("slack", wait - need)]
        if (rnd[s] >= 0).any():
            k = s.start + np.flatnonzero(rnd[s] >= 0)
            rows += [("round", (rnd - apub)[k]), ("polls", (prefix - rnd)[k])]
        for name, v in rows + [("store", store)]:
            print(summary(name, v[s] if len(v) == tiles else v))
        d = late[s]
        print("   latest A came from the tile k before: " +
              ", ".join(f"k={k} {np.mean(d == k) * 100:.0f}%" for k in (1, 2, 3, 4)) +
              f", k>=5 {np.mean(d >= 5) * 100:.0f}%; P[g-2] the latest {np.mean(pg2[s] > need_a[s]) * 100:.1f}%")
        # per block: from one tile's stores to its next ticket, and the time a block holds a tile
        order = np.lexsort((ticket, block))
        b, tk, st = block[order], ticket[order], stored[order]
        same = b[1:] == b[:-1]
        print(summary("between", (tk[1:] - st[:-1])[same]))
        print(summary("per tile", (st - tk)[s]))
        # the share of the grid's time a block spends in each phase
        tot = (load + wait + store)[s].sum()
        print(f"   of a tile's time: load {load[s].sum() / tot * 100:.1f}%, wait {wait[s].sum() / tot * 100:.1f}% "
              f"(need {np.clip(need[s], 0, None).sum() / tot * 100:.1f}%), store {store[s].sum() / tot * 100:.1f}%")


if __name__ == "__main__":
    main(sys.argv[1:])
