"""Tools that never crash (issue 19): every bench-* command and the gate, run in-process on
generated results files (tests/tools/strategies.py: healthy ones, and NaN/Inf/zero/
negative/huge numbers, missing and mistyped fields, wrong nesting, non-UTF-8 bytes,
truncation, duplicates, several GPUs and CCCLs, aggregates without iterations, error
entries, names that do not parse). Each run must end with exit 0 and its output, or
exit 2 and one line on stderr naming the problem; never a traceback; the gate says
"regressed" only for two good files whose candidate is really slower.

Profiles: "ci" (default; derandomized, about 5,200 cases) and "dev" (random, 5x the
cases): HYPOTHESIS_PROFILE=dev pytest tests/tools/test_properties.py.
"""
from __future__ import annotations

import io
import json
import os
import re
import statistics
import tempfile
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from conftest import FIXTURES
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import strategies as S
from benchtools import (annotate, audit, autotune, compare, merge, newest, plot, published, replay, report,
                        sanitizers, table)
from benchtools.results import ResultsError, load_results, parse_name

settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", parent=settings.get_profile("ci"), derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
SCALE = 5 if os.environ.get("HYPOTHESIS_PROFILE") == "dev" else 1
MIN_CASES = 5000


def cases(n: int):
    """max_examples for one property (too_slow is suppressed: a case is a whole tool run)."""
    return settings(max_examples=n * SCALE)


CASES = {"run": 0}   # tool runs, counted in conftest's summary line and by test_enough_cases


class Run:
    def __init__(self, tool, rc, out, err):
        self.tool, self.rc, self.out, self.err = tool, rc, out, err

    def __repr__(self):
        return f"{self.tool}: exit {self.rc}\nstdout: {self.out[-2000:]}\nstderr: {self.err[-4000:]}"


def run(main, argv, tool, generated=True) -> Run:
    """main(argv) with stdout/stderr captured; an exception that escapes is a failure."""
    CASES["run"] += generated
    out, err = io.StringIO(), io.StringIO()
    escaped = None
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as e:
            rc = e.code
        except BaseException:   # noqa: B902 - anything that escapes main() is the bug under test
            escaped = traceback.format_exc()
            rc = None
    r = Run(tool, rc, out.getvalue(), err.getvalue())
    assert escaped is None, f"{tool} {argv}: uncaught exception\n{escaped}\n{r}"
    return r


def check(r: Run, allowed=(0, 2)) -> Run:
    """Exit 0 (or a verdict the tool defines), or exit 2 with exactly one line on stderr
    that names the tool; never a traceback."""
    assert "Traceback" not in r.err and "internal error" not in r.err, r
    assert r.rc in allowed, r
    if r.rc == 2:
        lines = r.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"{r.tool}: ") and len(lines[0]) > len(r.tool) + 3, r
    return r


_SHM = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None   # memory: a case writes several files


def workdir():
    return tempfile.TemporaryDirectory(dir=_SHM, prefix="bench-properties-")


def write(d: Path, name: str, data: bytes) -> str:
    p = d / name
    p.write_bytes(data)
    return str(p)


_NONFINITE = re.compile(r"(?<![A-Za-z])(nan|inf|infinity)(?![A-Za-z])", re.IGNORECASE)


def known_gpus(*paths) -> bool:
    """The files' GPU names are the generator's own (so a 'nan' in an output is a number's)."""
    names = {g[0] for g in S.GPUS}
    for p in paths:
        doc = S.finite_json(Path(p).read_bytes().decode("utf-8", "replace"))
        if not (isinstance(doc, dict) and isinstance(doc.get("context"), dict)
                and isinstance(doc["context"].get("gpu_name"), str) and doc["context"]["gpu_name"] in names):
            return False
    return True


def loads_clean(path) -> bool:
    try:
        return not load_results(path).truncated
    except ResultsError:
        return False


# --------------------------------------------------------------------------- the loader

@cases(1300)
@given(data=S.results_files())
@example(data=b'{"context": {"gpu_name": "x"}, "benchmarks": [{"run_name": "a/b/c/N:1", "real_time": 1e999, '
              b'"time_unit": "us"}]}')
def test_loader_accepts_or_names_the_problem(data):
    with workdir() as d:
        path = write(Path(d), "run.json", data)
        CASES["run"] += 1
        try:
            res = load_results(path)
        except ResultsError as e:
            assert "\n" not in str(e) and str(e).startswith(path), e
            return
        for r in res.records:   # what the loader lets through is a measurement
            assert r.seconds > 0 and all(0 <= v < float("inf") for v in
                                         (r.seconds, r.bytes_per_second, r.items_per_second, r.ops_per_second,
                                          r.bw_util)), r
            assert r.n > 0 and (r.block is None or r.block > 0) and (r.batch is None or r.batch > 0), r


# --------------------------------------------------------------------------- the gate

@cases(600)
@given(pair=S.gate_pairs(), roles=st.sampled_from([["--roles", "kernel,library"], []]))
def test_gate_verdict_only_for_good_files_and_a_real_slowdown(pair, roles):
    base, cand, noise, facts = pair
    with workdir() as d:
        d = Path(d)
        argv = [write(d, "baseline.json", base), write(d, "candidate.json", cand)] + roles
        if noise is not None:
            argv += ["--noise", write(d, "noise.json", noise)]
        argv += ["--markdown", d / "summary.md", "--verdict", d / "verdict.json", "--medians", d / "medians.json"]
        r = check(run(compare.main, argv, "bench-compare"), allowed=(0, 1, 2))
        if facts["clean"] and facts["steady"]:   # two good runs, nothing slower: no alarm
            assert r.rc != 1, r
        if facts["clean"] and facts["slowed"] and not facts["noise"] and sorted(facts["reps"]) in ([3, 5], [5, 5]):
            assert r.rc == 1, r                     # 30% slower, enough repetitions to tell: caught
        if r.rc == 2:   # outputs only when the gate ran and could not test some benchmarks
            assert not (d / "verdict.json").exists() or "fewer than" in r.err, r
            return
        verdict = S.finite_json((d / "verdict.json").read_text())
        assert verdict is not None, f"verdict is not strict JSON: {(d / 'verdict.json').read_text()[:500]}"
        assert S.finite_json((d / "medians.json").read_text()) is not None
        assert verdict["status"] == ("regression" if r.rc == 1 else "pass"), r
        if r.rc == 1:   # only two good files, and a candidate really slower (or broken)
            assert loads_clean(argv[0]) and loads_clean(argv[1]), r
            base_times, cand_times = _times(argv[0]), _times(argv[1])
            failed = [b for b in verdict["benchmarks"] if b["verdict"] in ("regressed", "error")]
            assert failed, r
            for b in failed:
                if b["verdict"] == "regressed":
                    assert statistics.median(cand_times[b["name"]]) > statistics.median(base_times[b["name"]]), b
                else:
                    assert b["name"] in _errors(argv[1]), b


def _entries(path):
    doc = json.loads(Path(path).read_text())
    for b in doc["benchmarks"]:
        p = parse_name(str(b.get("run_name") or b.get("name") or ""))
        if p:
            name = "/".join([p["family"], p["type"], p["variant"], f"N:{p['n']}"]
                            + [f"{k}:{p[k]}" for k in ("block", "batch") if p[k] is not None])
            yield name, b


def _times(path):
    """Per-repetition seconds from the raw JSON, independent of the tools' reader."""
    out = {}
    for name, b in _entries(path):
        if b.get("run_type") != "aggregate" and not b.get("error_occurred"):
            out.setdefault(name, []).append(float(b["real_time"]) * S.UNITS[b["time_unit"]])
    return out


def _errors(path):
    return {name for name, b in _entries(path) if b.get("error_occurred")}


@cases(150)
@given(a=S.results_files(reps=5, commit="a"), b=S.results_files(reps=5, commit="a"))
def test_calibrate(a, b):
    with workdir() as d:
        d = Path(d)
        r = check(run(compare.main, ["--calibrate", write(d, "a.json", a), write(d, "b.json", b),
                                     "--out", d / "noise.json"], "bench-compare"))
        if r.rc == 0:
            assert S.finite_json((d / "noise.json").read_text()) is not None


@cases(25)
@given(runs=st.lists(S.results_files(reps=3, commit="a"), min_size=2, max_size=3))
def test_replay(runs):
    with workdir() as d:
        r = check(run(replay.main, [write(Path(d), f"aa{i}.json", x) for i, x in enumerate(runs)], "bench-replay"))
        assert r.rc != 0 or "false alarms" in r.out.lower() or r.out, r


# --------------------------------------------------------------------------- tables and lists

TABLE_OPTIONS = st.sampled_from([[], ["--format", "csv"], ["--n", "2^20"], ["--times", "1024,2^30"],
                                 ["--compare-gpus"], ["--versus", "tree"], ["--versus", "scalar", "--format", "csv"],
                                 ["--order", "declared"], ["--baseline", "cub_device_reduce"],
                                 ["--filter", "reduce_sum"]])


@cases(400)
@given(files=st.lists(S.results_files(), min_size=1, max_size=3), options=TABLE_OPTIONS)
def test_table(files, options):
    with workdir() as d:
        paths = [write(Path(d), f"r{i}.json", x) for i, x in enumerate(files)]
        r = check(run(table.main, paths + options, "bench-table"))
        if r.rc == 0:
            assert r.out.strip(), r
            if known_gpus(*paths):
                assert not _NONFINITE.search(r.out), r


@cases(250)
@given(files=st.lists(S.results_files(), min_size=1, max_size=3))
def test_newest(files):
    with workdir() as d:
        paths = [write(Path(d), f"r{i}.json", x) for i, x in enumerate(files)]
        r = check(run(newest.main, paths, "bench-newest"))
        if r.rc == 0:
            lines = r.out.splitlines()
            assert lines and all(line.split(" ", 1)[1] in paths for line in lines), r


@cases(250)
@given(gpu=st.sampled_from(S.GPUS), a=st.data())
def test_merge(gpu, a):
    first = a.draw(S.results_files(gpu=gpu, cccl="3.0.1"))
    second = a.draw(S.results_files(gpu=a.draw(st.sampled_from([gpu, gpu, S.GPUS[0]])), cccl="3.5.0"))
    with workdir() as d:
        d = Path(d)
        r = check(run(merge.main, [write(d, "a.json", first), write(d, "b.json", second), "--out", d / "m.json"],
                      "bench-merge"))
        if r.rc == 0:   # a results file every tool reads, holding both files' benchmarks
            merged = load_results(d / "m.json")
            inputs = [load_results(d / "a.json"), load_results(d / "b.json")]
            assert len(merged.records) + len(merged.errors) == sum(len(x.records) + len(x.errors) for x in inputs), r
        else:
            assert not (d / "m.json").exists()


DECLARATIONS = json.loads((FIXTURES / "declarations.json").read_text())


@cases(300)
@given(data=S.results_files(), decls=st.one_of(st.just(None), S.json_damage(DECLARATIONS)),
       check_only=st.booleans())
def test_annotate(data, decls, check_only):
    with workdir() as d:
        d = Path(d)
        path = write(d, "r.json", data)
        decl_path = write(d, "decls.json", decls) if decls is not None else str(FIXTURES / "declarations.json")
        r = check(run(annotate.main, [path, "--declarations", decl_path] + (["--check"] if check_only else []),
                      "bench-annotate"), allowed=(0, 1, 2) if check_only else (0, 2))
        if r.rc == 2 or check_only:
            assert Path(path).read_bytes() == data, "a refused or checked file was rewritten"


PUBLISHED = json.loads(Path(published.DEFAULT_PUBLISHED).read_text()) if Path(published.DEFAULT_PUBLISHED).exists() \
    else json.loads((Path(__file__).resolve().parents[2] / published.DEFAULT_PUBLISHED).read_text())


@cases(300)
@given(data=S.results_files(gpu=S.GPUS[1], series=[S.SERIES[1], S.SERIES[0]], ns=[1 << 30]),
       pub=st.one_of(st.just(None), S.json_damage(PUBLISHED)), options=st.sampled_from([[], ["--format", "csv"],
                                                                                        ["--any-gpu"]]))
def test_published(data, pub, options):
    with workdir() as d:
        d = Path(d)
        pub_path = write(d, "pub.json", pub) if pub is not None else str(
            Path(__file__).resolve().parents[2] / published.DEFAULT_PUBLISHED)
        check(run(published.main, [write(d, "r.json", data), "--published", pub_path] + options, "bench-published"))


# --------------------------------------------------------------------------- audit, sanitizers, autotune

AUDIT_CSV = (FIXTURES / "audit_ncu_order.csv").read_text()
AUDIT_PROFILE = json.loads((FIXTURES / "audit_profile.json").read_text())


@cases(450)
@given(profile=st.data(), csv=S.text_damage(AUDIT_CSV))
def test_audit(profile, csv):
    doc = json.loads(json.dumps(AUDIT_PROFILE))
    data = profile.draw(S.encoded(profile.draw(S.damage(doc))))
    with workdir() as d:
        d = Path(d)
        check(run(audit.main, [write(d, "p.json", data), write(d, "ncu.csv", csv), "--out", d / "audit"],
                  "bench-audit"), allowed=(0, 1, 2))


SANITIZER_LOG = (FIXTURES / "sanitizers" / "initcheck.0.log").read_text()


@cases(700)
@given(log=S.text_damage(SANITIZER_LOG), status=st.sampled_from([b"0 39\n", b"1 39\n", b"", b"x y", b"\xff", b"0",
                                                                  b"-1 -5", b"0 99999999999999999999"]),
       tool=st.sampled_from(["initcheck", "memcheck", "racecheck", "bogus"]))
def test_sanitizers(log, status, tool):
    with workdir() as d:
        d = Path(d)
        write(d, f"{tool}.0.status", status)
        check(run(sanitizers.main, [write(d, f"{tool}.0.log", log), "--known", Path("tools/sanitizer-known.txt")
                                    if Path("tools/sanitizer-known.txt").exists() else
                                    Path(__file__).resolve().parents[2] / "tools" / "sanitizer-known.txt"],
                  "bench-sanitizers"), allowed=(0, 1, 2))


SWEEP_SERIES = [S.SERIES[0], S.SERIES[2], S.SERIES[6]]


@cases(200)
@given(sweep=S.results_files(series=SWEEP_SERIES), curated=st.one_of(st.none(), S.results_files(series=SWEEP_SERIES)))
def test_autotune(sweep, curated):
    with workdir() as d:
        d = Path(d)
        argv = [write(d, "sweep.json", sweep)] + (["--curated", write(d, "cur.json", curated)] if curated else [])
        r = check(run(autotune.main, argv, "bench-autotune"))
        if r.rc == 0 and known_gpus(argv[0]):
            assert not _NONFINITE.search(r.out), r


# --------------------------------------------------------------------------- drawing (expensive: few cases)

@cases(3)
@given(sweep=S.results_files(series=SWEEP_SERIES, faults=False))
def test_autotune_chart(sweep):
    with workdir() as d:
        d = Path(d)
        r = check(run(autotune.main, [write(d, "sweep.json", sweep), "--out", d / "out", "--format", "svg"],
                      "bench-autotune"))
        if r.rc == 0:
            assert all(Path(p).stat().st_size > 0 for p in r.out.split()), r


@cases(250)
@given(files=st.lists(S.results_files(), min_size=1, max_size=2), compare_=st.booleans())
def test_report_tables(files, compare_):
    with workdir() as d:
        d = Path(d)
        paths = [write(d, f"r{i}.json", x) for i, x in enumerate(files)]
        argv = (["--compare"] + (paths * 2)[:2]) if compare_ else [paths[0], "--no-charts"]
        r = check(run(report.main, argv + ["--out", d / "r.html"], "bench-report"))
        if r.rc == 0:
            assert (d / "r.html").read_text().lstrip().lower().startswith("<!doctype html"), r


# Drawing every chart is what costs; these few cases draw them for real (Agg, PNG and SVG).
@cases(4)
@given(files=st.lists(S.results_files(), min_size=1, max_size=2), fmt=st.sampled_from(["png", "svg"]))
@example(files=[b'{"context": {"gpu_name": "NVIDIA H200", "gpu_peak_bandwidth_gbps": "4812.3"}, "benchmarks": ['
                b'{"run_name": "reduce_sum/i32/tree/N:1024/block:256", "real_time": 5, "time_unit": "us",'
                b' "bytes_per_second": 0, "items_per_second": 0, "ops_per_second": 0, "bw_util": 0}]}'], fmt="png")
def test_plot(files, fmt):
    with workdir() as d:
        d = Path(d)
        paths = [write(d, f"r{i}.json", x) for i, x in enumerate(files)]
        r = check(run(plot.main, paths + ["--out", d / "plots", "--format", fmt], "bench-plot"))
        if r.rc == 0:
            written = r.out.split()   # every chart its own file: none drawn over another
            assert written and len(set(written)) == len(written), r
            assert all(Path(p).stat().st_size > 0 for p in written), r


@cases(2)
@given(data=S.results_files())
def test_report_with_charts(data):
    with workdir() as d:
        d = Path(d)
        check(run(report.main, [write(d, "r.json", data), "--out", d / "r.html"], "bench-report"))


# --------------------------------------------------------------------------- crashes these tests found

def _doc(**entry_edits):
    """One healthy H200 entry (reduce_sum/i32/tree at 2^20, block 256) with edits."""
    entry = {"name": "reduce_sum/i32/tree/N:1048576/block:256/manual_time", "run_type": "iteration",
             "run_name": "reduce_sum/i32/tree/N:1048576/block:256/manual_time", "repetition_index": 0,
             "real_time": 5.0, "time_unit": "us", "bytes_per_second": 8.4e11, "role": "kernel"}
    entry.update(entry_edits)
    return {"context": S.context(S.GPUS[0], "3.0.1"), "benchmarks": [entry]}


def _bytes(doc) -> bytes:
    return json.dumps(doc).encode()


_PUB = json.loads(json.dumps(PUBLISHED))
_PUB["kernels"][0]["figures"][0]["gbps"] = float("nan")
_MEAN_ONLY = _doc(run_type="aggregate", aggregate_name="mean")
_ZERO = _doc(bytes_per_second=0, items_per_second=0, ops_per_second=0)
_ZERO["benchmarks"][0].update(name="reduce_sum/i32/tree/N:1073741824/block:256", run_name="reduce_sum/i32/tree/N:1073741824/block:256")
_TWO_BOARDS = [_doc(), _doc()]
_TWO_BOARDS[1]["context"]["gpu_uuid"] = "GPU-other"

# (what crashed, tool, main, files {name: bytes}, argv over those names, exit, what the line or output says)
FOUND = [
    ("a number beyond any float (OverflowError)", "bench-table", table.main, {"r.json": _bytes(_doc(real_time=10 ** 400))},
     ["r.json"], 2, "real_time is 10000000000000000000... (401 digits): not a measurement"),
    ("a rate beyond any float (OverflowError)", "bench-plot", plot.main,
     {"r.json": _bytes(_doc(bytes_per_second=10 ** 400))}, ["r.json", "--out", "plots"], 2, "bytes_per_second is"),
    ("N written with a superscript digit (int('²'))", "bench-table", table.main,
     {"r.json": _bytes(_doc(run_name="reduce_sum/i32/tree/N:²", name="reduce_sum/i32/tree/N:²"))}, ["r.json"], 2,
     "no successful cuda_bench benchmarks"),
    ("repetition_index Infinity (OverflowError)", "bench-compare", compare.main,
     {"r.json": _bytes(_doc(repetition_index=float("inf")))}, ["r.json", "r.json"], 2,
     "repetition_index is inf, not an integer >= 0"),
    ("a time that underflows to 0 s", "bench-compare", compare.main,
     {"r.json": _bytes(_doc(real_time=5e-324, time_unit="ns"))}, ["r.json", "r.json"], 2, "shorter than any call"),
    ("gpu_name a list", "bench-table", table.main, {"r.json": _bytes({**_doc(), "context": {"gpu_name": []}})},
     ["r.json"], 2, "context gpu_name is [], not a GPU name"),
    ("declarations not UTF-8 (UnicodeDecodeError)", "bench-annotate", annotate.main,
     {"r.json": _bytes(_doc()), "d.json": b"\xff[]"}, ["r.json", "--declarations", "d.json"], 2, "not UTF-8 text"),
    ("published figures not UTF-8 (UnicodeDecodeError)", "bench-published", published.main,
     {"r.json": _bytes(_doc()), "p.json": b"\xff{}"}, ["r.json", "--published", "p.json"], 2, "not UTF-8 text"),
    ("published gbps NaN taken as a figure", "bench-published", published.main,
     {"r.json": _bytes(_doc()), "p.json": _bytes(_PUB)}, ["r.json", "--published", "p.json"], 2,
     "'gbps' must be positive, got nan"),
    ("sanitizer .status not UTF-8 (UnicodeDecodeError)", "bench-sanitizers", sanitizers.main,
     {"memcheck.0.log": b"========= ERROR SUMMARY: 0 errors\n", "memcheck.0.status": b"\xff"}, ["memcheck.0.log"],
     0, "memcheck"),
    ("a family with only mean aggregates (KeyError in bandwidth_charts)", "bench-plot", plot.main,
     {"r.json": _bytes(_MEAN_ONLY)}, ["r.json", "--out", "plots", "--charts", "bandwidth"], 2, "nothing to draw"),
    ("zero throughput (ZeroDivisionError in line_chart, issue 19)", "bench-plot", plot.main,
     {"r.json": _bytes(_ZERO)}, ["r.json", "--out", "plots", "--charts", "bandwidth"], 2, "nothing to draw"),
    ("bad ncu CSV after a warning (two lines on exit 2)", "bench-audit", audit.main,
     {"p.json": _bytes(_doc()), "n.csv": b"\xfe"}, ["p.json", "n.csv"], 2, "not UTF-8 text"),
    ("too few repetitions after a board note (two lines on exit 2)", "bench-compare", compare.main,
     {"a.json": _bytes(_TWO_BOARDS[0]), "b.json": _bytes(_TWO_BOARDS[1])}, ["a.json", "b.json"], 2,
     "fewer than 3 repetitions"),
]


@pytest.mark.parametrize("what, tool, main, files, argv, rc, says", FOUND, ids=[f[0] for f in FOUND])
def test_found_crash_stays_fixed(tmp_path, what, tool, main, files, argv, rc, says):
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    r = check(run(main, [str(tmp_path / a) if (tmp_path / a).exists() or a in ("plots",) else a for a in argv], tool,
                  generated=False), allowed=(rc,))
    assert says in (r.err if rc == 2 else r.out), r


def test_heatmaps_of_two_gpus_at_different_n_are_two_files(tmp_path):
    """Found by test_plot: each GPU's largest N differed, so both heatmaps had one name and the second
    was drawn over the first (the path printed twice)."""
    paths = []
    for i, (gpu, n) in enumerate(((S.GPUS[0], 1 << 20), (S.GPUS[1], 1 << 24))):
        doc = {"context": S.context(gpu, "3.0.1"), "benchmarks": S.entries(__import__("random").Random(i), [S.SERIES[0]],
                                                                         [n], 1, float(gpu[1]))}
        paths.append(tmp_path / f"r{i}.json")
        paths[-1].write_bytes(_bytes(doc))
    r = check(run(plot.main, paths + ["--out", tmp_path / "plots", "--charts", "heatmap", "--format", "svg"],
                  "bench-plot", generated=False), allowed=(0,))
    assert sorted(Path(p).name for p in r.out.split()) == ["heatmap_reduce_sum_i32_tree_n1048576.svg",
                                                           "heatmap_reduce_sum_i32_tree_n16777216.svg"], r


# Last in the file, so it runs last: counts what ran above.
def test_zz_enough_cases(request):
    ran = {item.name.split("[")[0] for item in request.session.items}
    if len([n for n in ran if n.startswith("test_") and n != "test_zz_enough_cases"]) < 16:
        pytest.skip("only part of test_properties.py was selected")
    assert CASES["run"] >= MIN_CASES, f"{CASES['run']} generated cases, fewer than {MIN_CASES}"
