"""bench-autotune: the best block/batch of each parameterized variant per N, and
what its curated defaults lose against it (no GPU needed).

  python3 -m benchtools.autotune results/sweeps/SWEEP.json --curated results/DEFAULT.json --out results/autotune

SWEEP.json is a `--suite=full` run (every block x batch a variant supports);
DEFAULT.json a default-suite run, whose block/batch values per variant are the
curated ones (the JSON says which configurations were run; nothing is inferred
from names). Both best and curated times come from the sweep, so one run's noise
is compared with itself. "Loss" is curated time / best time - 1 at that N: what
the default suite gives away by not tuning per N. Writes autotune.md,
autotune.json and the chart autotune_loss.{png,svg}; without --out prints the
markdown. Bad input: one line on stderr, exit code 2.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

from benchtools.cli import entry, Parser, check_one_gpu_model, check_writable, warn, write_text, writing
from benchtools.results import (Record, Results, ResultsError, load_results, pow2_label, representative,
                               truncation_warning)

Series = Tuple[str, str, str]
Config = Tuple[Optional[int], Optional[int]]


@dataclass(frozen=True)
class Tuned:
    series: Series
    n: int
    best: Record
    curated: Optional[Record]   # the best of the curated configurations at N; None when unknown
    configs: int                # configurations measured at N

    @property
    def loss(self) -> Optional[float]:
        return self.curated.seconds / self.best.seconds - 1 if self.curated else None


def config_label(block: Optional[int], batch: Optional[int]) -> str:
    parts = ([f"block {block}"] if block is not None else []) + ([f"batch {batch}"] if batch is not None else [])
    return ", ".join(parts) or "-"


def _short(r: Record) -> str:
    return "x".join(str(v) for v in (r.block, r.batch) if v is not None) or "-"


def curated_configs(records: Sequence[Record]) -> Dict[Series, Set[Config]]:
    """{series: {(block, batch)}} run by a default-suite file."""
    out: Dict[Series, Set[Config]] = {}
    for r in records:
        out.setdefault(r.series, set()).add((r.block, r.batch))
    return out


def tune(sweep: Sequence[Record], curated: Optional[Dict[Series, Set[Config]]] = None) -> List[Tuned]:
    """Per parameterized variant (more than one configuration at some N) and N: the
    fastest configuration, and the fastest curated one. Sorted by series, then N."""
    groups: Dict[Tuple[Series, int], List[Record]] = {}
    for r in representative(sweep):
        groups.setdefault((r.series, r.n), []).append(r)
    tuned_series = {s for (s, _), rs in groups.items() if len(rs) > 1}
    out = []
    for (series, n), rs in sorted(groups.items()):
        if series not in tuned_series:
            continue
        best = min(rs, key=lambda r: r.seconds)
        chosen = (curated or {}).get(series)
        in_default = [r for r in rs if chosen and (r.block, r.batch) in chosen]
        out.append(Tuned(series, n, best, min(in_default, key=lambda r: r.seconds) if in_default else None, len(rs)))
    return out


def _pct(loss: Optional[float]) -> str:
    return f"{100 * loss:.1f}%" if loss is not None else "-"


def to_markdown(rows: List[Tuned], gpu: str, sources: Sequence[str], top: int = 15) -> str:
    lines = [f"# Autotuning report: {gpu}", "",
             "Sources: " + ", ".join(f"`{s}`" for s in sources) + ".", "",
             "Per N, each parameterized variant's fastest block/batch in the sweep, and the fastest of its "
             "curated (default-suite) configurations in the same sweep. *Loss*: curated time / best time - 1.", ""]
    known = [r for r in rows if r.loss is not None]
    if known:
        worst = sorted(known, key=lambda r: -r.loss)[:top]
        lines += [f"## Largest losses of the curated defaults (top {len(worst)})", "",
                  "| variant | N | best | curated | loss |", "|---|---|---|---|---:|"]
        lines += [f"| {'/'.join(r.series)} | {pow2_label(r.n)} | {config_label(r.best.block, r.best.batch)} | "
                  f"{config_label(r.curated.block, r.curated.batch)} | {_pct(r.loss)} |" for r in worst]
        lines.append("")
    for key in sorted({r.series[:2] for r in rows}):
        lines += [f"## {key[0]} {key[1]}", "",
                  "| variant | N | configs | best block/batch | µs | GB/s | curated block/batch | µs | GB/s | loss |",
                  "|---|---|---:|---|---:|---:|---|---:|---:|---:|"]
        for r in (r for r in rows if r.series[:2] == key):
            c = r.curated
            lines.append(
                f"| {r.series[2]} | {pow2_label(r.n)} | {r.configs} | {config_label(r.best.block, r.best.batch)} | "
                f"{r.best.seconds * 1e6:.1f} | {r.best.bytes_per_second / 1e9:.0f} | "
                + (f"{config_label(c.block, c.batch)} | {c.seconds * 1e6:.1f} | {c.bytes_per_second / 1e9:.0f} | "
                   if c else "- | - | - | ")
                + f"{_pct(r.loss)} |")
        lines.append("")
    return "\n".join(lines)


def to_json(rows: List[Tuned], gpu: str, sources: Sequence[str]) -> dict:
    def config(r: Optional[Record]):
        if r is None:
            return None
        return {"block": r.block, "batch": r.batch, "seconds": r.seconds, "bytes_per_second": r.bytes_per_second}

    return {"gpu": gpu, "sources": list(sources),
            "entries": [{"family": r.series[0], "type": r.series[1], "variant": r.series[2], "n": r.n,
                         "configs": r.configs, "best": config(r.best), "curated": config(r.curated),
                         "loss": r.loss} for r in rows]}


def plot_loss(rows: List[Tuned], gpu: str, out_dir: Path, formats: Sequence[str]) -> List[Path]:
    """One grid: a row per variant, a column per N; each cell names the best
    block x batch and is colored by what the curated default loses there."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    matplotlib.rcParams["svg.hashsalt"] = "cuda_bench"  # stable ids: regenerating leaves the file unchanged
    series = sorted({r.series for r in rows})
    sizes = sorted({r.n for r in rows})
    cell = {(r.series, r.n): r for r in rows}
    loss = np.full((len(series), len(sizes)), np.nan)
    for (s, n), r in cell.items():
        if r.loss is not None:
            loss[series.index(s), sizes.index(n)] = 100 * r.loss
    fig, ax = plt.subplots(figsize=(3.0 + 1.9 * len(sizes), 1.2 + 0.34 * len(series)), dpi=110)
    cmap = plt.get_cmap("Reds").with_extremes(bad="#eeeeee")
    top = max(10.0, float(np.nanmax(loss)) if np.isfinite(loss).any() else 10.0)
    image = ax.imshow(np.ma.masked_invalid(loss), cmap=cmap, vmin=0, vmax=top, aspect="auto")
    for (s, n), r in cell.items():
        i, j = series.index(s), sizes.index(n)
        text = f"{_short(r.best)}  {_pct(r.loss) if r.loss is not None else '(no default)'}"
        dark = r.loss is not None and 100 * r.loss > 0.6 * top
        ax.text(j, i, text, ha="center", va="center", fontsize=7.5, color="white" if dark else "black")
    ax.set_xticks(range(len(sizes)), [f"N = {pow2_label(n)}" for n in sizes])
    ax.set_yticks(range(len(series)), ["/".join(s) for s in series], fontsize=8)
    ax.xaxis.tick_top()
    ax.set_xlabel("each cell: the fastest block x batch at that N, then how much slower the curated default is "
                  "(gray: no default)", fontsize=8)
    for k in range(1, len(series)):  # a rule between families/types
        if series[k][:2] != series[k - 1][:2]:
            ax.axhline(k - 0.5, color="black", linewidth=0.8)
    fig.colorbar(image, ax=ax, label="curated default's loss vs best (%)", shrink=0.6, pad=0.02)
    ax.set_title(f"Best block x batch per N, and what the curated default loses\n{gpu}", fontsize=10, pad=24)
    fig.tight_layout()
    paths = []
    for fmt in formats:
        paths.append(out_dir / f"autotune_loss.{fmt}")
        fig.savefig(paths[-1], bbox_inches="tight", metadata={"Date": None} if fmt == "svg" else {"Software": None})
    plt.close(fig)
    return paths


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-autotune", description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", nargs="+", help="results JSON of a --suite=full run")
    parser.add_argument("--curated", default=None, help="a default-suite results JSON: its block/batch values "
                                                        "are the curated ones (without it: best only)")
    parser.add_argument("--out", default=None, help="folder for autotune.md, autotune.json and the chart")
    parser.add_argument("--format", default="png,svg", help="chart formats, comma list of png, svg")
    try:
        args = parser.parse_args(argv)
        formats = [f.strip() for f in args.format.split(",") if f.strip()]
        if not formats or any(f not in ("png", "svg") for f in formats):
            raise ResultsError(f"--format: expected a comma list of png, svg, got '{args.format}'")
        check_writable("--out", args.out, directory=True)
        loaded = [load_results(p) for p in args.sweep + ([args.curated] if args.curated else [])]
        # One model's best configuration says nothing of another's, and a curated time from
        # one against another's sweep is a loss that is not there.
        check_one_gpu_model(loaded, args.sweep + ([f"--curated {args.curated}"] if args.curated else []),
                            "bench-autotune would mix two GPU models (give files of one GPU model)")
        runs = loaded[:len(args.sweep)]
        curated = curated_configs(loaded[-1].records) if args.curated else None
        rows = tune([r for run in runs for r in run.records], curated)
        if not rows:
            raise ResultsError("no variant with more than one block/batch configuration at one N in the input "
                               "(is it a --suite=full run?)")
        if curated is not None and not any(r.curated for r in rows):
            raise ResultsError(f"--curated {args.curated}: none of its configurations is in the sweep")
    except ResultsError as e:
        print(f"bench-autotune: {e}", file=sys.stderr)
        return 2
    # the warning cli.load gives, once the rest of the input is known good
    warn([truncation_warning("bench-autotune", run) for run in loaded if run.truncated])
    gpu = runs[0].gpu
    sources = list(args.sweep) + ([f"{args.curated} (curated configurations)"] if args.curated else [])
    markdown = to_markdown(rows, gpu, sources)
    if not args.out:
        print(markdown, end="")
        return 0
    out = Path(args.out)
    try:
        write_text("--out", str(out / "autotune.md"), markdown)
        write_text("--out", str(out / "autotune.json"), json.dumps(to_json(rows, gpu, sources), indent=1) + "\n")
        with writing("--out", args.out):
            charts = plot_loss(rows, gpu, out, formats)
    except ResultsError as e:
        print(f"bench-autotune: {e}", file=sys.stderr)
        return 2
    for p in [out / "autotune.md", out / "autotune.json"] + charts:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
