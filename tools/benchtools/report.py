"""bench-report: one self-contained HTML file per run, or per comparison of two runs.

  python3 -m benchtools.report results/RUN.json --out RUN.html
  python3 -m benchtools.report --compare BASE.json OTHER.json --out compare.html

  python3 -m benchtools.report results/RUN.json --out results/RUN.html --charts-dir plots/RUN

A run's report: its context (GPU, clocks, versions, commit, the precision asked
for and the suite's wall time), every chart that bench-plot draws for it (PNG
embedded as data: URIs, or with --charts-dir the charts already drawn there,
linked by a path relative to the report), sortable and filterable tables (each
variant's best configuration per family/type at the largest N, and every
benchmark, with each median's 95% interval, samples and why sampling stopped),
and the benchmarks that failed (verification failures first).
A comparison: both contexts side by side and the per-benchmark time ratio
OTHER / BASE (two runs of one GPU, or two GPUs). The file fetches nothing: it
opens offline. Bad input: one line on stderr, exit code 2.
"""
from __future__ import annotations

import base64
import contextlib
import html
import io
import math
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple
from urllib.parse import quote

from benchtools.cli import Parser, entry, check_outputs, write_text
from benchtools.results import (CEILING_FAMILY, Record, Results, ResultsError, benchmark_fields, best_per_n,
                                load_results, pow2_label, representative)
from benchtools.shape import NOT_REACHED_MARK, NOT_REACHED_NOTE

# Context keys shown first, with their labels; every other key follows under "all context fields".
CONTEXT_KEYS = [
    ("gpu_name", "GPU"), ("gpu_compute_capability", "compute capability"), ("gpu_sm_count", "SMs"),
    ("gpu_sm_clock_khz", "SM clock (kHz)"), ("gpu_mem_clock_khz", "memory clock (kHz)"),
    ("gpu_bus_width_bits", "bus width (bits)"), ("gpu_peak_bandwidth_gbps", "theoretical bandwidth (GB/s)"),
    ("gpu_l2_bytes", "L2 (bytes)"), ("gpu_uuid", "GPU UUID"), ("gpu_pci_bus_id", "PCI bus"),
    ("cuda_driver_version", "CUDA driver"), ("cuda_runtime_version", "CUDA runtime"), ("cccl_version", "CCCL"),
    ("git_commit", "commit"), ("suite", "suite"), ("cache_mode", "cache mode"), ("timing_mode", "timing mode"),
    ("launch_mode", "launch (events timing)"),
    ("date", "date"), ("host_name", "host"), ("library_build_type", "Google Benchmark build"),
    ("precision_percent", "precision asked for (± % of the median)"), ("max_time_seconds", "time cap per benchmark (s)"),
    ("min_time_seconds", "sampling before precision may stop it (s)"), ("min_samples", "min samples"),
    ("max_samples", "max samples"), ("interleave", "interleaved"),
    ("suite_wall_seconds", "suite wall time (s)"),
]
FIELDS = ("role", "reference", "host_work", "throttled")

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{background:#20252b;color:#fff;padding:18px 28px}header h1{margin:0 0 4px;font-size:22px}
header p{margin:0;color:#c9d1d9}nav{padding:8px 28px;background:#eef1f4;border-bottom:1px solid #d5dae0}
nav a{margin-right:18px;color:#0b5cad;text-decoration:none}main{padding:8px 28px 40px;max-width:1500px}
h2{margin:28px 0 10px;border-bottom:2px solid #d5dae0;padding-bottom:4px}h3{margin:18px 0 6px}
table{border-collapse:collapse;margin:6px 0 14px;background:#fff;font-size:13px}
th,td{border:1px solid #d5dae0;padding:3px 8px;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#eef1f4;position:sticky;top:0}
table.sortable th{cursor:pointer;user-select:none}table.sortable th[aria-sort=ascending]::after{content:" \\25B2"}
table.sortable th[aria-sort=descending]::after{content:" \\25BC"}tr.bad td{background:#fde8e8}
tr.good td{background:#e7f6ea}tr.capped td{background:#fff4d6}td.differs{background:#fff4d6}.scroll{max-height:640px;overflow:auto;display:inline-block}
input.filter{display:block;margin:4px 0;padding:4px 8px;width:360px;font:inherit}.charts{display:flex;flex-wrap:wrap;gap:16px}
figure{margin:0;background:#fff;border:1px solid #d5dae0;padding:8px}figure img{max-width:100%;height:auto}
figcaption{font-size:12px;color:#555;margin-top:4px}.ok{color:#1a7f37}.note{color:#555}
figure{flex:0 0 calc(50% - 26px);cursor:zoom-in}figure.wide{flex-basis:calc(100% - 18px);cursor:zoom-out}
"""

# Sorting (click a header; numbers by their data-v value) and row filtering
# (a regex over the row's text). No library, no network.
_JS = """
(function(){
function key(cell){var v=cell.getAttribute('data-v');return v===null?cell.textContent.trim().toLowerCase():parseFloat(v);}
function sortBy(table,col,th){
  var asc=th.getAttribute('aria-sort')!=='ascending';
  table.querySelectorAll('th').forEach(function(h){h.setAttribute('aria-sort','none');});
  th.setAttribute('aria-sort',asc?'ascending':'descending');
  var body=table.tBodies[0],rows=Array.prototype.slice.call(body.rows);
  rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);
    if(typeof x!==typeof y){x=String(x);y=String(y);}return (x<y?-1:x>y?1:0)*(asc?1:-1);});
  rows.forEach(function(r){body.appendChild(r);});
}
document.querySelectorAll('table.sortable').forEach(function(table){
  table.querySelectorAll('th').forEach(function(th,col){
    th.setAttribute('aria-sort','none');th.tabIndex=0;
    th.addEventListener('click',function(){sortBy(table,col,th);});
    th.addEventListener('keydown',function(e){if(e.key==='Enter'){sortBy(table,col,th);}});
  });
  table.setAttribute('data-sortable','ready');
});
document.querySelectorAll('input.filter').forEach(function(input){
  var table=document.getElementById(input.getAttribute('data-table'));
  input.addEventListener('input',function(){
    var rx;try{rx=new RegExp(input.value,'i');}catch(e){return;}
    Array.prototype.forEach.call(table.tBodies[0].rows,function(r){r.style.display=rx.test(r.textContent)?'':'none';});
  });
});
document.querySelectorAll('figure').forEach(function(f){
  f.addEventListener('click',function(){f.classList.toggle('wide');});
});
window.addEventListener('load',function(){
  var imgs=document.querySelectorAll('figure img'),shown=0;
  imgs.forEach(function(i){if(i.complete&&i.naturalWidth>0){shown++;}});
  document.body.setAttribute('data-images',shown+'/'+imgs.length);
});
document.body.setAttribute('data-report','ready');
})();
"""

Cell = Tuple[str, Optional[float]]  # (text, sort value for numeric cells)


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def num(value: Optional[float], fmt: str = "{:.2f}") -> Cell:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ("-", -1e308)
    return (fmt.format(value), float(value))


def table(table_id: str, headers: Sequence[str], rows: Sequence[Sequence[object]], row_classes=None,
          filter_box: bool = False) -> str:
    """A sortable table; a cell is text, or (text, number) for a numeric column."""
    out = []
    if filter_box:
        out.append(f'<input class="filter" type="search" data-table="{table_id}" '
                   f'placeholder="filter rows (regex), e.g. reduce_sum/i32">')
    out.append(f'<div class="scroll"><table class="sortable" id="{table_id}"><thead><tr>'
               + "".join(f"<th>{esc(h)}</th>" for h in headers) + "</tr></thead><tbody>")
    for i, row in enumerate(rows):
        cls = row_classes[i] if row_classes and row_classes[i] else ""
        cells = []
        for c in row:
            if isinstance(c, tuple):
                cells.append(f'<td class="num" data-v="{c[1]:.17g}">{esc(c[0])}</td>')
            else:
                cells.append(f"<td>{esc(c)}</td>")
        out.append(f'<tr{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}>' + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def page(title: str, subtitle: str, sections: Sequence[Tuple[str, str, str]]) -> str:
    """sections: (anchor, heading, html body)."""
    nav = "".join(f'<a href="#{a}">{esc(h)}</a>' for a, h, _ in sections)
    body = "\n".join(f'<section id="{a}"><h2>{esc(h)}</h2>\n{b}\n</section>' for a, h, b in sections)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{_CSS}</style></head>\n<body>\n"
            f"<header><h1>{esc(title)}</h1><p>{esc(subtitle)}</p></header>\n<nav>{nav}</nav>\n<main>\n{body}\n</main>\n"
            f"<script>{_JS}</script>\n</body></html>\n")


# ---- context -------------------------------------------------------------------

def context_section(runs: Sequence[Results], labels: Sequence[str]) -> str:
    """Key facts first, one column per run (cells that differ between runs marked),
    then every other context field in a collapsed list."""
    def value(run: Results, key: str) -> str:
        v = run.context.get(key, "")
        if v is None and key == "suite_wall_seconds":
            return "none (the run was cut short)"
        return ", ".join(map(str, v)) if isinstance(v, list) else str(v)

    shown = [(k, label) for k, label in CONTEXT_KEYS if any(k in r.context for r in runs)]
    rows = []
    for k, label in shown:
        values = [value(r, k) for r in runs]
        differs = len(runs) > 1 and len(set(values)) > 1
        rows.append(f"<tr><th>{esc(label)}</th>" + "".join(
            f'<td{" class=differs" if differs else ""}>{esc(v)}</td>' for v in values) + "</tr>")
    head = "<tr><th></th>" + "".join(f"<th>{esc(label)}</th>" for label in labels) + "</tr>"
    facts = f"<table><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"
    known = {k for k, _ in CONTEXT_KEYS} | {"caches", "load_avg"}
    rest = sorted({k for r in runs for k in r.context} - known)
    extra = "".join(f"<tr><th>{esc(k)}</th>" + "".join(f"<td>{esc(value(r, k))}</td>" for r in runs) + "</tr>"
                    for k in rest)
    note = " Cells that differ between the runs are marked." if len(runs) > 1 else ""
    return (f'<p class="note">From the results file\'s context.{note}</p>{facts}'
            f"<details><summary>all context fields ({len(rest)} more)</summary><table>{extra}</table></details>")


# ---- one run -------------------------------------------------------------------

def _count(k: int, noun: str) -> str:
    return f"{k} {noun}{'' if k == 1 else 's'}"


def _config(r: Record) -> str:
    return ", ".join(([f"block {r.block}"] if r.block is not None else [])
                     + ([f"batch {r.batch}"] if r.batch is not None else [])) or "-"


INTERVAL_HEADERS = ["± (95%)", "samples", "stop"]


def interval_cells(r: Record) -> List[object]:
    """The median's 95% half-width (% of it), the samples and why sampling stopped,
    marked when before its precision; "-" for a file from before precision sampling."""
    hw = r.relative_half_width
    stop = "-" if r.stop_reason is None else r.stop_reason + ("" if r.precision_reached else f" {NOT_REACHED_MARK}")
    return [num(100 * hw if hw is not None else None, "±{:.2f}%"), num(r.samples, "{:.0f}"), stop]


def _interval_note(records: Sequence[Record]) -> str:
    if not any(r.relative_half_width is not None for r in records):
        return ""
    capped = any(r.precision_reached is False for r in records)
    return ('<p class="note">µs: the median per call; ± (95%): the wider side of its 95% interval, in % of it. '
            + esc(NOT_REACHED_NOTE if capped else "Every benchmark reached the precision asked for.") + "</p>")


def best_table(run: Results, fields: Dict[str, Dict[str, object]]) -> str:
    """Per family/type at its largest N: each variant at its fastest configuration,
    and the family's reference (the JSON's "reference" field, e.g. CUB) time over its time."""
    groups: Dict[Tuple[str, str], List[Record]] = {}
    for series, rs in best_per_n(r for r in run.records if r.family != CEILING_FAMILY).items():
        groups.setdefault(series[:2], []).extend(rs)
    parts, shown = [], []
    peak = run.peak_bandwidth
    for (family, type_), rs in sorted(groups.items()):
        n = max(r.n for r in rs)
        at = {r.variant: r for r in rs if r.n == n}
        shown += at.values()
        refs = {str(fields.get(r.name, {}).get("reference", "")) for r in at.values()}
        ref = next((x.split("/")[2] for x in sorted(refs) if x.startswith(f"{family}/{type_}/")
                    and x.count("/") == 2 and x.split("/")[2] in at), None)
        rows = [[variant, str(fields.get(r.name, {}).get("role", "-")), _config(r), num(r.seconds * 1e6, "{:.2f}"),
                 num(r.bytes_per_second / 1e9, "{:.0f}"),
                 num(100 * r.bytes_per_second / peak if peak else None, "{:.1f}%"),
                 num(at[ref].seconds / r.seconds if ref else None, "{:.2f}"), *interval_cells(r)]
                for variant, r in sorted(at.items(), key=lambda kv: kv[1].seconds)]
        parts.append(f"<h3>{esc(family)} {esc(type_)} at N = {pow2_label(n)}</h3>"
                     + table(f"best-{family}-{type_}", ["variant", "role", "best block/batch", "µs", "GB/s", "of peak",
                                                        f"{ref} time / time" if ref else "vs reference (none declared)",
                                                        *INTERVAL_HEADERS],
                             rows, ["capped" if r.precision_reached is False else ""
                                    for _, r in sorted(at.items(), key=lambda kv: kv[1].seconds)]))
    return ("\n".join(parts) + _interval_note(shown)) if parts else "<p>No benchmark besides the ceilings.</p>"


def all_table(run: Results, fields: Dict[str, Dict[str, object]]) -> str:
    rows, classes = [], []
    for r in sorted(representative(run.records), key=lambda r: (r.series, r.n, r.block or 0, r.batch or 0)):
        f = fields.get(r.name, {})
        throttled = f.get("throttled")
        rows.append([r.family, r.type, r.variant, num(r.n, "{:,.0f}"), num(r.block, "{:.0f}"),
                     num(r.batch, "{:.0f}"), str(f.get("role", "-")), num(r.seconds * 1e6, "{:.3f}"),
                     num(r.bytes_per_second / 1e9, "{:.1f}"), num(100 * r.bw_util if r.bw_util else None, "{:.1f}%"),
                     "yes" if throttled is True else ("no" if throttled is False else "-"), *interval_cells(r)])
        classes.append("bad" if throttled is True else ("capped" if r.precision_reached is False else ""))
    return table("all", ["family", "type", "variant", "N", "block", "batch", "role", "µs", "GB/s", "of peak",
                         "throttled", *INTERVAL_HEADERS], rows, classes, filter_box=True) \
        + _interval_note(representative(run.records))


def errors_section(runs: Sequence[Results], labels: Sequence[str]) -> str:
    rows, classes = [], []
    for run, label in zip(runs, labels):
        for name, message in run.errors:
            kind = "verification failed" if message.startswith("verification failed") else (
                "unsupported" if message.startswith("unsupported") else "error")
            rows.append(([label] if len(runs) > 1 else []) + [kind, re.sub(r"/(iterations:\d+|manual_time)(?=/|$)", "", name), message])
            classes.append("bad" if kind != "unsupported" else "")
    if not rows:
        return '<p class="ok">No benchmark reported an error: every one was verified against its reference.</p>'
    rows_order = sorted(range(len(rows)), key=lambda i: (rows[i][-3] != "verification failed", i))
    counts = {k: sum(1 for r in rows if r[-3] == k) for k in ("verification failed", "error", "unsupported")}
    summary = ", ".join(f"{v} {k}" for k, v in counts.items() if v)
    return (f"<p>{_count(len(rows), 'benchmark')} reported errors ({esc(summary)}); their numbers are not in any table "
            "or chart.</p>" + table("errors", (["run"] if len(runs) > 1 else []) + ["kind", "benchmark", "message"],
                                    [rows[i] for i in rows_order], [classes[i] for i in rows_order]))


def linked_charts(charts_dir: str, report_path: Path) -> List[Tuple[str, str]]:
    """[(file stem, path relative to the report)] of the PNG charts already drawn in
    charts_dir (bench-plot's --out): the report links them instead of embedding them."""
    folder = Path(charts_dir)
    if not folder.is_dir():
        raise ResultsError(f"--charts-dir {charts_dir}: not a folder")
    files = sorted(folder.glob("*.png"))
    if not files:
        raise ResultsError(f"--charts-dir {charts_dir}: no PNG charts in it (draw them with bench-plot --out)")
    base = report_path.resolve().parent
    return [(p.stem, quote(Path(os.path.relpath(p.resolve(), base)).as_posix())) for p in files]


def draw_charts(path: str) -> Tuple[List[Tuple[str, str]], str]:
    """[(file stem, data: URI)] of every chart bench-plot draws for one results
    file (its CLI entry point, PNG, in a temporary folder), and what it reported."""
    from benchtools import plot

    with tempfile.TemporaryDirectory() as tmp:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                # One process: a forked worker's warnings would go to its own copy of the
                # redirected stderr, not into the report's note.
                rc = plot.main([path, "--out", tmp, "--format", "png", "--jobs", "1"])
            except SystemExit as e:  # an argparse --help or a sys.exit inside
                rc = e.code if isinstance(e.code, int) else 1
        files = sorted(p for p in Path(tmp).iterdir() if p.suffix in (".svg", ".png"))
        charts = []
        for p in files:
            mime = "image/svg+xml" if p.suffix == ".svg" else "image/png"
            charts.append((p.stem, f"data:{mime};base64," + base64.b64encode(p.read_bytes()).decode("ascii")))
    note = err.getvalue().strip()
    if rc:
        note = f"bench-plot exited {rc}: {note}"
    return charts, note


def charts_section(charts: List[Tuple[str, str]], note: str) -> str:
    if not charts:
        return f"<p>No chart was drawn. {esc(note)}</p>"
    groups: Dict[str, List[Tuple[str, str]]] = {}
    for stem, uri in charts:
        groups.setdefault(stem.split("_")[0], []).append((stem, uri))
    parts = [f'<p class="note">{len(charts)} charts from bench-plot; click one to widen it.'
             + (f" It said: {esc(note)}" if note else "") + "</p>"]
    for kind, items in groups.items():
        parts.append(f"<h3>{esc(kind)} ({len(items)})</h3><div class=\"charts\">")
        parts += [f'<figure title="click: full width / half width"><img alt="{esc(stem)}" src="{esc(uri)}"><figcaption>{esc(stem)}</figcaption>'
                  f"</figure>" for stem, uri in items]
        parts.append("</div>")
    return "\n".join(parts)


# A truncated file's benchmarks after the cut are missing, not gone: every page says so.
TRUNCATED = " (truncated file: an interrupted run)"


def run_report(path: str, charts: bool = True, charts_dir: Optional[str] = None,
               out: Optional[Path] = None) -> str:
    """The page of one run; with charts_dir, its charts are the PNGs there, linked
    relative to `out` (the report's path), else drawn and embedded."""
    run = load_results(path)
    if not run.records and not run.errors:
        raise ResultsError(f"{path}: no cuda_bench benchmarks in it")
    fields = benchmark_fields(path, FIELDS)
    if charts and charts_dir:
        drawn, note = linked_charts(charts_dir, out or Path(path).with_suffix(".html")), ""
    else:
        drawn, note = draw_charts(path) if charts and run.records else ([], "")
    throttled = sum(1 for f in fields.values() if f.get("throttled") is True)
    subtitle = (f"{run.gpu}, {run.context.get('date', '')}, commit {run.context.get('git_commit', '?')}: "
                f"{_count(len(representative(run.records)), 'benchmark')}, {_count(len(run.errors), 'error')}"
                + (f", {throttled} throttled" if throttled else "")
                + (TRUNCATED if run.truncated else ""))
    sections = [("context", "Context", context_section([run], [Path(path).name]))]
    if charts:
        sections.append(("charts", "Charts", charts_section(drawn, note)))
    sections += [("best", "Best configuration per variant", best_table(run, fields)),
                 ("errors", "Errors and verification failures", errors_section([run], [Path(path).name])),
                 ("all", "Every benchmark", all_table(run, fields))]
    return page(f"cuda_bench: {Path(path).name}", subtitle, sections)


# ---- two runs ------------------------------------------------------------------

def ratios(base: Results, other: Results) -> Tuple[List[Tuple[Record, Record]], List[str], List[str]]:
    """Pairs (base, other) of benchmarks measured in both (median of repetitions),
    and the names only in base, only in other."""
    a = {r.name: r for r in representative(base.records)}
    b = {r.name: r for r in representative(other.records)}
    order = lambda r: (r.series, r.n, r.block or 0, r.batch or 0)  # noqa: E731 (N numerically, not as text)
    both = [(a[k], b[k]) for k in sorted(set(a) & set(b), key=lambda k: order(a[k]))]
    return both, sorted(set(a) - set(b)), sorted(set(b) - set(a))


def geomean(values: Sequence[float]) -> Optional[float]:
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def compare_report(base_path: str, other_path: str) -> str:
    base, other = load_results(base_path), load_results(other_path)
    labels = [f"A: {Path(base_path).name} ({base.gpu})", f"B: {Path(other_path).name} ({other.gpu})"]
    pairs, only_a, only_b = ratios(base, other)
    if not pairs:
        raise ResultsError(f"{base_path} and {other_path} have no benchmark in common")
    rows, classes = [], []
    for a, b in pairs:
        ratio = b.seconds / a.seconds
        rows.append([a.family, a.type, a.variant, num(a.n, "{:,.0f}"), _config(a), num(a.seconds * 1e6, "{:.3f}"),
                     num(b.seconds * 1e6, "{:.3f}"), num(ratio, "{:.3f}"), num(100 * (ratio - 1), "{:+.1f}%")])
        classes.append("bad" if ratio > 1.05 else ("good" if ratio < 1 / 1.05 else ""))
    by_family: Dict[Tuple[str, str], List[float]] = {}
    for a, b in pairs:
        by_family.setdefault((a.family, a.type), []).append(b.seconds / a.seconds)
    summary_rows = [[f, t, num(len(v), "{:.0f}"), num(geomean(v), "{:.3f}"), num(min(v), "{:.3f}"),
                     num(max(v), "{:.3f}")] for (f, t), v in sorted(by_family.items())]
    g = geomean([b.seconds / a.seconds for a, b in pairs])
    slower = sum(1 for a, b in pairs if b.seconds > 1.05 * a.seconds)
    faster = sum(1 for a, b in pairs if b.seconds * 1.05 < a.seconds)
    intro = (f"<p>Time ratio = B time / A time per call (median of repetitions where there are some): above 1, "
             f"B is slower. {len(pairs)} benchmarks in both; geometric mean {g:.3f}; {slower} more than 5% slower "
             f"in B (red), {faster} more than 5% faster (green). Only in A: {len(only_a)}; only in B: "
             f"{len(only_b)}. This report compares; the regression verdict with its significance test is "
             f"bench-compare's.</p>")
    missing = "".join(f"<h3>only in {which} ({len(names)})</h3><p>{esc(', '.join(names))}</p>"
                      for which, names in (("A", only_a), ("B", only_b)) if names)
    sections = [
        ("context", "Contexts", context_section([base, other], labels)),
        ("summary", "Summary per family and type",
         intro + table("summary", ["family", "type", "benchmarks", "geomean B/A", "min", "max"], summary_rows)),
        ("ratios", "Per-benchmark time ratios",
         table("ratios", ["family", "type", "variant", "N", "block/batch", "A µs", "B µs", "B / A", "change"],
               rows, classes, filter_box=True) + missing),
        ("errors", "Errors and verification failures", errors_section([base, other], ["A", "B"])),
    ]
    return page(f"cuda_bench comparison: {Path(base_path).name} vs {Path(other_path).name}",
                "  |  ".join(f"{side}: {run.gpu}, {run.context.get('date', '')}, commit "
                             f"{run.context.get('git_commit', '?')}" + (TRUNCATED if run.truncated else "")
                             for side, run in (("A", base), ("B", other))),
                sections)


@entry
def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(prog="bench-report", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="+", help="one results JSON, or two with --compare")
    parser.add_argument("--compare", action="store_true", help="compare two runs: A (first) and B (second)")
    parser.add_argument("--out", default=None, help="the HTML file (default: the JSON's path with .html; "
                                                    "for --compare, compare.html beside B)")
    parser.add_argument("--no-charts", action="store_true", help="leave the charts out (faster)")
    parser.add_argument("--charts-dir", default=None, metavar="DIR",
                        help="link the PNG charts already drawn in DIR (bench-plot --out DIR) by a path relative "
                             "to the report, instead of drawing and embedding them")
    try:
        args = parser.parse_args(argv)
        if args.compare and len(args.results) != 2:
            raise ResultsError("--compare takes exactly two results files")
        if not args.compare and len(args.results) != 1:
            raise ResultsError("one results file per report (two with --compare)")
        if args.charts_dir and (args.compare or args.no_charts):
            raise ResultsError("--charts-dir: only for one run's report with its charts")
        default = (Path(args.results[1]).with_name("compare.html") if args.compare
                   else Path(args.results[0]).with_suffix(".html"))
        out = Path(args.out or default)
        check_outputs(args.results, [("--out", str(out))])   # before the report's work
        if args.compare:
            text = compare_report(*args.results)
        else:
            text = run_report(args.results[0], charts=not args.no_charts, charts_dir=args.charts_dir, out=out)
        write_text("--out", str(out), text)
    except ResultsError as e:
        print(f"bench-report: {e}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
