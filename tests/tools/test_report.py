"""bench-report: one self-contained HTML file per run and per comparison, checked
as text and as rendered by headless Chromium (Debian's `chromium`)."""
import json
import re
import shutil
import subprocess

import pytest
from conftest import FIXTURES

from benchtools import plot, report

# Anything that would make the page fetch from the network.
REMOTE = re.compile(r"""(?:src|href|action)\s*=\s*["']?\s*(?:https?:)?//|@import|url\(\s*["']?(?:https?:)?//|<link\b""",
                    re.IGNORECASE)
VERIFY_FAIL = "reduce_sum/i32/tree/N:1048576/block:512"


def _annotated(doc):
    """The contract's per-benchmark fields, as the C++ side writes them."""
    for b in doc["benchmarks"]:
        family, type_, variant = b["run_name"].split("/")[:3]
        b["role"] = "cpu" if variant == "cpu_threads" else (
            "library" if variant.startswith(("cub_", "thrust_")) else "kernel")
        if family == "reduce_sum":
            b["reference"] = f"reduce_sum/{type_}/cub_device_reduce"
        elif family == "vector_add":
            b["reference"] = f"vector_add/{type_}/cub_device_transform"
    return doc


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A run with role/reference fields, a throttled benchmark and a verification
    failure; and the same benchmarks on 'another GPU', 10% slower, one left out."""
    tmp = tmp_path_factory.mktemp("runs")
    doc = _annotated(json.loads((FIXTURES / "h200_roofline.json").read_text()))
    doc["context"].update(gpu_sm_clock_khz="1980000", timing_mode="events")
    doc["benchmarks"][0]["throttled"] = True
    failed = VERIFY_FAIL + "/iterations:1/manual_time"   # as cuda_bench names runs since precision sampling
    doc["benchmarks"].append({"name": failed, "run_name": failed,
                              "run_type": "iteration", "error_occurred": True,
                              "error_message": "verification failed: expected 524288, got 524287",
                              "iterations": 0, "real_time": 0, "cpu_time": 0, "time_unit": "us"})
    a = tmp / "h200.json"
    a.write_text(json.dumps(doc))
    other = json.loads(json.dumps(doc))
    other["context"]["gpu_name"] = "NVIDIA H100 80GB HBM3"
    other["benchmarks"] = [b for b in other["benchmarks"] if not b["run_name"].startswith("vector_add/bf16/")]
    for b in other["benchmarks"]:
        b["real_time"] = b["real_time"] * 1.1
    b_path = tmp / "h100.json"
    b_path.write_text(json.dumps(other))
    html_path = tmp / "h200.html"
    assert report.main([str(a), "--out", str(html_path)]) == 0
    cmp_path = tmp / "compare.html"
    assert report.main(["--compare", str(a), str(b_path), "--out", str(cmp_path)]) == 0
    charts = tmp / "charts"
    assert plot.main([str(a), "--out", str(charts), "--format", "svg"]) == 0
    return {"a": a, "b": b_path, "html": html_path.read_text(), "compare": cmp_path.read_text(),
            "html_path": html_path, "compare_path": cmp_path, "charts": sorted(p.stem for p in charts.iterdir())}


def test_run_report_fetches_nothing_and_embeds_every_chart(runs):
    page = runs["html"]
    assert not REMOTE.search(page), REMOTE.search(page)
    srcs = re.findall(r'<img[^>]*src="([^"]*)"', page)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)      # PNG: a fraction of SVG's size
    assert len(srcs) == len(runs["charts"])                                   # every chart bench-plot draws
    assert re.findall(r"<figcaption>([^<]*)</figcaption>", page) == runs["charts"]


def test_run_report_context_tables_and_errors(runs):
    page = runs["html"]
    assert "<th>GPU</th><td>NVIDIA H200</td>" in page and "<th>SM clock (kHz)</th><td>1980000</td>" in page
    assert "<th>timing mode</th><td>events</td>" in page and "<th>CCCL</th><td>3.0.1</td>" in page
    # reduce_sum i32 at 2^28: CUB 240 us, batched_vec16 255 us -> 240 / 255 against the declared reference.
    assert "cub_device_reduce time / time" in page
    i32 = page[page.index("reduce_sum i32 at N = 2^28"):]
    row = re.search(r"<tr><td>batched_vec16</td><td>kernel</td><td>block 256, batch 8</td>.*?</tr>", i32).group(0)
    assert float(re.findall(r'data-v="([^"]+)">0.94<', row)[0]) == pytest.approx(240 / 255)
    errors = page[page.index('id="errors"'):page.index('id="all"')]
    assert errors.index("verification failed") < errors.index("unsupported")   # failures first
    assert "expected 524288, got 524287" in errors and '<tr class="bad">' in errors
    assert f"<td>{VERIFY_FAIL}</td>" in errors and "iterations:1" not in errors   # the benchmark's own name
    assert "1 throttled" in page
    assert len(re.findall(r'<table class="sortable"', page)) >= 5


def test_compare_report_ratios_and_both_contexts(runs):
    page = runs["compare"]
    assert not REMOTE.search(page)
    assert "NVIDIA H200" in page and "NVIDIA H100 80GB HBM3" in page
    assert '<td class=differs>NVIDIA H100 80GB HBM3</td>' in page
    ratios = re.findall(r'<td class="num" data-v="([^"]+)">[^<]*</td><td class="num" data-v="[^"]+">[+-]', page)
    assert ratios and all(float(r) == pytest.approx(1.1) for r in ratios)
    assert "only in A (2)" in page and "vector_add/bf16/bf16x8" in page
    assert "geometric mean 1.100" in page


def test_bad_input_exits_2_with_one_line(runs, tmp_path, capsys):
    lone = tmp_path / "lone.json"
    doc = json.loads(runs["a"].read_text())
    doc["benchmarks"] = [b for b in doc["benchmarks"] if b["run_name"].startswith("ceiling/")]
    for b in doc["benchmarks"]:
        b["run_name"] = b["name"] = b["run_name"].replace("ceiling/", "other/")
    lone.write_text(json.dumps(doc))
    for args, message in ((["--compare", str(runs["a"])], "exactly two"),
                          ([str(runs["a"]), str(runs["b"])], "one results file per report"),
                          ([str(tmp_path / "missing.json")], "cannot read"),
                          (["--compare", str(runs["a"]), str(lone)], "no benchmark in common")):
        assert report.main(args) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1


def _chromium():
    return next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)


def _render(path, *flags):
    exe = _chromium()
    if exe is None:
        pytest.skip("no headless Chromium on this machine (Debian: apt-get install chromium)")
    cmd = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--window-size=1400,3000",
           # Any attempt to reach the network fails instead of waiting: the page must not need it.
           "--host-resolver-rules=MAP * ~NOTFOUND", *flags, path.resolve().as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


def test_chromium_renders_charts_and_sortable_tables(runs):
    done = _render(runs["html_path"], "--virtual-time-budget=5000", "--dump-dom")
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert 'data-report="ready"' in dom                                      # the script ran without an error
    n = len(runs["charts"])
    assert f'data-images="{n}/{n}"' in dom                                   # every chart decoded and shown
    assert len(re.findall(r'<table class="sortable"[^>]*data-sortable="ready"', dom)) >= 5
    assert re.search(r'<th aria-sort="none" tabindex="0">µs</th>', dom)
    assert dom.count("<tr") > 70                                              # the every-benchmark table


def test_chromium_renders_the_comparison_and_a_screenshot(runs, tmp_path):
    done = _render(runs["compare_path"], "--dump-dom")
    assert done.returncode == 0 and 'data-report="ready"' in done.stdout
    shot = tmp_path / "compare.png"
    done = _render(runs["compare_path"], f"--screenshot={shot}")
    assert done.returncode == 0 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


SAMPLED = FIXTURES / "sampled_interleaved.json"     # made by fixtures/make_sampled_fixtures.py


def test_report_shows_intervals_samples_stop_and_the_precision(tmp_path):
    out = tmp_path / "sampled.html"
    assert report.main([str(SAMPLED), "--out", str(out), "--no-charts"]) == 0
    page = out.read_text()
    assert "<th>precision asked for (± % of the median)</th><td>0.5</td>" in page
    assert "<th>suite wall time (s)</th><td>12.5</td>" in page
    assert "<th>± (95%)</th><th>samples</th><th>stop</th>" in page
    every = page[page.index('id="all"'):]
    capped = re.search(r'<tr class="capped"><td>reduce_sum</td><td>i32</td><td>slow_kernel</td>.*?</tr>', every).group(0)
    assert capped.endswith('>±1.08%</td><td class="num" data-v="150">150</td><td>time †</td></tr>')
    assert every.count('<tr class="capped">') == 1 and "† precision not reached" in every
    best = page[page.index('id="best"'):page.index('id="errors"')]
    assert "<td>precision</td>" in best and "Every benchmark reached the precision asked for." in best   # 2^28 only


def test_report_of_a_killed_run_and_of_a_file_without_intervals(tmp_path):
    doc = json.loads(SAMPLED.read_text())
    doc["context"]["suite_wall_seconds"] = None
    killed = tmp_path / "killed.json"
    killed.write_text(json.dumps(doc))
    assert report.main([str(killed), "--no-charts"]) == 0
    assert "<th>suite wall time (s)</th><td>none (the run was cut short)</td>" in killed.with_suffix(".html").read_text()
    old = tmp_path / "old.html"
    assert report.main([str(FIXTURES / "h200_small.json"), "--no-charts", "--out", str(old)]) == 0
    page = old.read_text()
    assert "<th>stop</th>" in page and "† precision" not in page and "±" not in page.split('id="all"')[1]


def test_charts_dir_links_the_drawn_pngs_by_a_relative_path(tmp_path, capsys):
    charts = tmp_path / "plots" / "sampled"
    assert plot.main([str(SAMPLED), "--out", str(charts), "--format", "png", "--charts", "bandwidth,time"]) == 0
    capsys.readouterr()
    out = tmp_path / "results" / "sampled.html"
    assert report.main([str(SAMPLED), "--out", str(out), "--charts-dir", str(charts)]) == 0
    page = out.read_text()
    srcs = re.findall(r'<img[^>]*src="([^"]*)"', page)
    assert srcs == ["../plots/sampled/bandwidth_reduce_sum_i32.png", "../plots/sampled/time_reduce_sum_i32.png"]
    assert all((out.parent / s).resolve().is_file() for s in srcs) and "base64" not in page
    assert not REMOTE.search(page) and len(page) < 100_000
    for args, message in (([str(SAMPLED), "--charts-dir", str(tmp_path / "none")], "not a folder"),
                          ([str(SAMPLED), "--charts-dir", str(tmp_path)], "no PNG charts in it"),
                          ([str(SAMPLED), "--charts-dir", str(charts), "--no-charts"], "--charts-dir: only")):
        assert report.main(args) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1


def test_a_compare_report_says_which_run_is_truncated(tmp_path):
    # its benchmarks after the cut read as "only in A" otherwise, as if B had dropped them
    text = (FIXTURES / "compare_same.json").read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 2])
    out = tmp_path / "c.html"
    assert report.main(["--compare", str(FIXTURES / "compare_base.json"), str(cut), "--no-charts",
                        "--out", str(out)]) == 0
    subtitle = re.search(r"A: NVIDIA[^<]*", out.read_text()).group(0)
    a, b = subtitle.split("  |  ")
    assert "truncated" not in a and b.endswith("commit 2222222 (truncated file: an interrupted run)"), subtitle
