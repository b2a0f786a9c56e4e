"""Hypothesis strategies for the property tests (test_properties.py): cuda_bench results
files as the harness writes them (tools/benchtools/results.py states the contract), and
the ways a file gets broken: NaN, Inf, zero, negative and huge numbers (as JSON numbers
and as strings), missing and mistyped fields, wrong nesting, duplicate entries, error
entries, aggregates without their iterations, names that do not parse, non-UTF-8 bytes
and truncation at any byte. The other inputs of the tools (noise files, declaration
lists, published figures, ncu CSV, sanitizer logs) get the same byte and structure damage.

A strategy draws a plan (a dict or bytes); the test writes it. Numbers are drawn from
small lists and one seeded Random per document, so a case costs little to generate and
derandomized runs repeat exactly.
"""
from __future__ import annotations

import copy
import json
import math
import random
from typing import List, Optional

from hypothesis import strategies as st

# (gpu_name, peak GB/s as the harness writes it, board uuid)
GPUS = [("NVIDIA H200", "4812.3", "GPU-a1"), ("NVIDIA H100 80GB HBM3", "3352.3", "GPU-b2"),
        ("NVIDIA H100 80GB HBM3", "3352.3", "GPU-b3")]
CCCLS = ["3.0.1", "3.5.0"]
# (family, type, variant, role, reference, block values, batch values, bytes moved per element)
SERIES = [
    ("reduce_sum", "i32", "tree", "kernel", "reduce_sum/i32/cub_device_reduce", (256, 512), (None,), 4),
    ("reduce_sum", "i32", "two_pass_tree", "kernel", "reduce_sum/i32/cub_device_reduce", (512,), (None,), 4),
    ("reduce_sum", "i32", "batched", "kernel", "reduce_sum/i32/cub_device_reduce", (256,), (8, 16), 4),
    ("reduce_sum", "i32", "cub_device_reduce", "library", "reduce_sum/i32/cub_device_reduce", (None,), (None,), 4),
    ("reduce_sum", "i32", "cub_device_reduce@cccl3.5.0", "library", "reduce_sum/i32/cub_device_reduce",
     (None,), (None,), 4),
    ("reduce_sum", "i32", "thrust_reduce", "library", "reduce_sum/i32/cub_device_reduce", (None,), (None,), 4),
    ("vector_add", "f16", "scalar", "kernel", "vector_add/f16/cub_device_transform", (128, 256), (None,), 6),
    ("vector_add", "f16", "cub_device_transform", "library", "vector_add/f16/cub_device_transform",
     (None,), (None,), 6),
    ("vector_add", "f16", "cpu_threads", "cpu", "vector_add/f16/cub_device_transform", (None,), (None,), 6),
    ("ceiling", "f32", "read_vec16", "kernel", None, (None,), (None,), 4),
    ("ceiling", "f32", "copy_vec16", "kernel", None, (None,), (None,), 8),
    ("ceiling", "f32", "fma", "kernel", None, (None,), (None,), 0),
]
NS = [1 << 10, 1 << 20, 1 << 24, 1 << 30]
SEEDS = st.integers(0, 2 ** 32 - 1)   # noise of the times: plain Random, one draw per document
UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}

# Numbers a broken writer (or a hand edit) puts where a measurement belongs.
BAD_NUMBERS = [math.nan, math.inf, -math.inf, 0, 0.0, -0.0, -1, -3.5, 1e308, 5e-324, 1e-300, 10 ** 400,
               2 ** 63, "nan", "NaN", "inf", "-Infinity", "-1", "0", "1e999", "1e-999", "", " ", "fast",
               "12.5", True, False, None, [1.0], {"value": 1.0}]
ODD_TEXT = ["", "nan", "inf", "0", "-1", "ü", "a|b", "x" * 300, "\x00", "🙂", "NVIDIA H200", "3.5.0", "true"]
ODD_VALUES = BAD_NUMBERS + ODD_TEXT + [[], {}, [[]], [{"a": 1}], {"gpu_name": "NVIDIA H200"}]
BAD_NAMES = ["", "BM_memcpy/8", "reduce_sum/i32", "reduce_sum/i32/tree", "reduce_sum/i32/tree/N:",
             "reduce_sum/i32/tree/N:0", "reduce_sum/i32/tree/N:-4", "reduce_sum/i32/tree/N:1e3",
             "Reduce_Sum/i32/tree/N:1024", "reduce_sum/i32/tree/N:1024/block:x",
             "reduce_sum/i32/tree/N:1024/grid:4", "reduce_sum/i32/tree/N:²", "reduce_sum/i32/tree/N:٣",
             "reduce_sum/i32/tree/N:99999999999999999999999999", "reduce_sum/i32/tree/N:1024/block:0",
             "reduce_sum/i32/tree/N:1024/batch:0", "reduce_sum/i32/tree@/N:1024",
             "reduce_sum/i32/tree@cccl/N:1024", "a/b/c/N:1/N:2", "ceiling/f32/read_vec16/N:1024/block:256",
             "reduce_sum/i32/tree/N:1024/block:256/block:512", "réduce/i32/tree/N:1024", "/ / / /"]

CONTEXT_KEYS = ["gpu_name", "gpu_peak_bandwidth_gbps", "gpu_peak_fp32_flops", "gpu_peak_fp16_flops",
                "gpu_peak_int32_ops", "gpu_peak_compute_formula", "gpu_sm_count", "gpu_l2_bytes", "cccl_version",
                "git_commit", "cache_mode", "suite", "date", "gpu_uuid", "timing_mode", "cuda_driver_version",
                "planted_slowdown", "profile_one", "profile_start_range", "merged_from", "gpu_compute_capability"]
ENTRY_KEYS = ["name", "run_name", "run_type", "repetitions", "repetition_index", "threads", "iterations",
              "real_time", "cpu_time", "time_unit", "bytes_per_second", "items_per_second", "ops_per_second",
              "bw_util", "aggregate_name", "aggregate_unit", "role", "host_work", "reference", "throttled",
              "cccl_version", "error_occurred", "error_message", "declaration", "bytes_read", "bytes_written",
              "extra_bytes_read", "extra_bytes_written", "samples", "ci_low", "ci_high", "stop_reason"]
NUMERIC_ENTRY_KEYS = ["real_time", "cpu_time", "bytes_per_second", "items_per_second", "ops_per_second", "bw_util",
                      "repetition_index", "repetitions", "iterations", "bytes_read", "bytes_written"]


# Strategies are built once here: building one per draw costs more than the draw itself.
INDEX = st.integers(0, 1 << 16)      # an index into a list drawn at run time (taken modulo its length)
GPU = st.sampled_from(GPUS)
CCCL = st.sampled_from(CCCLS)
SERIES_LISTS = st.lists(st.sampled_from(SERIES), min_size=1, max_size=3, unique=True)
N_LISTS = st.lists(st.sampled_from(NS), min_size=1, max_size=2, unique=True)
REPS = st.sampled_from([1, 1, 3, 5])   # 1: a plain run; 3, 5: repetitions with their aggregates
GATE_REPS = st.sampled_from([3, 5, 5, 2, 1])
FACTOR = st.sampled_from([1.0, 1.0, 1.3, 0.7, 1.002])   # 1.3: a real slowdown; 1.002: below any threshold
ODD = st.sampled_from(ODD_VALUES).map(copy.deepcopy)   # drawn lists and dicts get edited
BAD_NUMBER = st.sampled_from(BAD_NUMBERS).map(copy.deepcopy)
BAD_NAME = st.sampled_from(BAD_NAMES)
ENTRY_KEY = st.sampled_from(ENTRY_KEYS)
CONTEXT_KEY = st.sampled_from(CONTEXT_KEYS)
OPS = st.lists(st.sampled_from(["set", "set", "del", "entry", "dup", "name", "error", "aggregates_only", "nest",
                                "numbers"]), max_size=3)
NOT_AN_ENTRY = st.sampled_from([[], ["entry"], "entry", 3, None, {"benchmarks": []}]).map(copy.deepcopy)
NAME_KEYS = st.sampled_from([("run_name",), ("name",), ("name", "run_name")])
ERROR_FLAG = st.sampled_from([True, True, 1, "true", "yes"])
ERROR_MESSAGE = st.sampled_from(["verification failed: 3 != 4", "", "a|b\nc", 7, None])
NEST_WHERE = st.sampled_from(["context", "benchmarks", "doc"])
NEST_DOC = st.sampled_from(["list", "text", "null", "number", "wrapped"])
NEST_PART = st.sampled_from(["list", "dict", "text", "null", "zero", "empty"])
INDENT = st.sampled_from([None, None, None, 1])
FAULT = st.sampled_from(["none"] * 6 + ["truncate", "truncate", "bytes", "empty", "bom", "utf16"])
BAD_BYTES = st.sampled_from([b"\xff", b"\xfe\xff", b"\x80", b"\xc3", b"\x00", b"\xed\xa0\x80"])
ROLELESS = st.integers(0, 4)


def pick(draw, items):
    """One of items (a list or dict's keys), by a drawn index."""
    items = sorted(items) if isinstance(items, dict) else items
    return items[draw(INDEX) % len(items)]


def context(gpu, cccl: str, commit: str = "1111111", suite: str = "default") -> dict:
    name, peak, uuid = gpu
    return {"date": "2026-11-22T10:00:00+00:00", "host_name": "fixture", "executable": "./build/cuda_bench",
            "library_build_type": "release", "gpu_name": name, "gpu_uuid": uuid, "gpu_sm_count": "132",
            "gpu_l2_bytes": "62914560", "gpu_peak_bandwidth_gbps": peak, "gpu_peak_fp32_flops": "6.7e13",
            "gpu_peak_fp16_flops": "1.3e14", "gpu_peak_int32_ops": "3.3e13",
            "gpu_peak_compute_formula": "sm x clock", "cuda_driver_version": "13.0",
            "cuda_runtime_version": "13.0", "cccl_version": cccl, "git_commit": commit, "cache_mode": "cold",
            "suite": suite, "timing_mode": "events", "harness": "cuda_bench"}


def run_name(s, n: int, block, batch) -> str:
    return "/".join([s[0], s[1], s[2], f"N:{n}"] + ([f"block:{block}"] if block else [])
                    + ([f"batch:{batch}"] if batch else []) + ["manual_time"])


def entries(rnd: random.Random, series, ns, reps: int, peak_gbps: float, slowdown=None) -> List[dict]:
    """Benchmark entries of a healthy run: `reps` iterations each (with GB's aggregates
    when reps > 1); slowdown {series index: factor} scales a series' times."""
    out = []
    for si, s in enumerate(series):
        for n in ns:
            for block in s[5]:
                for batch in s[6]:
                    name = run_name(s, n, block, batch)
                    unit = rnd.choice(["ns", "us", "us", "ms"])
                    base = (2.0 + n * s[7] / 3e12 * 1e6) * (1 + 0.1 * ((block or 256) // 256 + (batch or 0) % 3))
                    factor = (slowdown or {}).get(si, 1.0)
                    times_us = [base * factor * rnd.uniform(0.995, 1.005) for _ in range(reps)]
                    common = {"family_index": si, "per_family_instance_index": 0, "run_name": name,
                              "repetitions": reps, "threads": 1, "iterations": 100, "time_unit": unit,
                              "role": s[3], "host_work": s[3] == "cpu", "declaration": "/".join(s[:3])}
                    if s[4]:
                        common["reference"] = s[4]

                    def rates(us):
                        sec = us * 1e-6
                        bps = n * s[7] / sec
                        return {"real_time": us * 1e-6 / UNITS[unit], "cpu_time": us * 1e-6 / UNITS[unit] + 1,
                                "bytes_per_second": bps, "items_per_second": n / sec,
                                "ops_per_second": n / sec if s[7] else 2 * n / sec,
                                "bw_util": bps / (peak_gbps * 1e9)}
                    for i, us in enumerate(times_us):
                        out.append({"name": name, **common, "run_type": "iteration", "repetition_index": i,
                                    **rates(us)})
                    if reps > 1:
                        ordered = sorted(times_us)
                        median = ordered[len(ordered) // 2] if reps % 2 else sum(ordered[reps // 2 - 1:reps // 2 + 1]) / 2
                        for agg, us in (("mean", sum(times_us) / reps), ("median", median)):
                            out.append({"name": f"{name}_{agg}", **common, "run_type": "aggregate",
                                        "aggregate_name": agg, "aggregate_unit": "time", **rates(us)})
                        out.append({"name": f"{name}_stddev", **common, "run_type": "aggregate",
                                    "aggregate_name": "stddev", "aggregate_unit": "time", "real_time": 0.01,
                                    "cpu_time": 0.01})
    return out


# --------------------------------------------------------------------------- damage

@st.composite
def damage(draw, doc: dict) -> object:
    """The document with up to 3 structural faults (none: a healthy file)."""
    for op in draw(OPS):
        benchmarks = doc.get("benchmarks") if isinstance(doc, dict) else None
        have = isinstance(benchmarks, list) and benchmarks
        i = draw(INDEX) % len(benchmarks) if have else 0
        entry = benchmarks[i] if have and isinstance(benchmarks[i], dict) else None
        ctx = doc.get("context") if isinstance(doc, dict) and isinstance(doc.get("context"), dict) else None
        if op == "set":
            if entry is not None and draw(st.booleans()):
                entry[draw(ENTRY_KEY)] = draw(ODD)
            elif ctx is not None:
                ctx[draw(CONTEXT_KEY)] = draw(ODD)
        elif op == "numbers" and entry is not None:   # every numeric field of one entry
            for key in NUMERIC_ENTRY_KEYS:
                if draw(st.booleans()):
                    entry[key] = draw(BAD_NUMBER)
        elif op == "del":
            target = entry if entry is not None and draw(st.booleans()) else ctx
            if target:
                target.pop(pick(draw, target), None)
        elif op == "entry" and have:
            benchmarks[i] = draw(NOT_AN_ENTRY)
        elif op == "dup" and have:
            benchmarks.insert(draw(INDEX) % (len(benchmarks) + 1), json.loads(json.dumps(benchmarks[i])))
        elif op == "name" and entry is not None:
            bad = draw(BAD_NAME)
            for key in draw(NAME_KEYS):
                entry[key] = bad
        elif op == "error" and entry is not None:
            entry["error_occurred"] = draw(ERROR_FLAG)
            entry["error_message"] = draw(ERROR_MESSAGE)
        elif op == "aggregates_only" and have:
            doc["benchmarks"] = [b for b in benchmarks if not (isinstance(b, dict) and b.get("run_type") == "iteration")]
        elif op == "nest" and isinstance(doc, dict):
            where = draw(NEST_WHERE)
            if where == "doc":
                return {"list": [doc], "text": "doc", "null": None, "number": 1.5, "wrapped": {"doc": doc}}[draw(NEST_DOC)]
            part = doc.get(where)
            doc[where] = {"list": [part], "dict": {"0": part}, "text": "x", "null": None, "zero": 0,
                          "empty": []}[draw(NEST_PART)]
    return doc


@st.composite
def encoded(draw, doc, faults: bool = True) -> bytes:
    """JSON text as Python writes it (NaN/Infinity tokens included), maybe cut at any
    byte or with bytes that are not UTF-8."""
    data = json.dumps(doc, indent=draw(INDENT)).encode()
    return draw(byte_faults(data)) if faults else data


@st.composite
def byte_faults(draw, data: bytes) -> bytes:
    fault = draw(FAULT)
    if fault == "truncate":
        return data[:draw(INDEX) % max(len(data), 1)]
    if fault == "bytes":
        at = draw(INDEX) % (len(data) + 1)
        return data[:at] + draw(BAD_BYTES) + data[at:]
    if fault == "empty":
        return b""
    if fault == "bom":
        return b"\xef\xbb\xbf" + data
    if fault == "utf16":
        return data.decode("utf-8", "replace").encode("utf-16")
    return data


# --------------------------------------------------------------------------- results files

@st.composite
def run_docs(draw, reps=None, gpu=None, cccl=None, commit=None, series=None, ns=None):
    """A healthy run: one GPU, one CCCL, a few series at a few N."""
    rnd = random.Random(draw(SEEDS))
    gpu = gpu or draw(GPU)
    series = series or draw(SERIES_LISTS)
    ns = ns or draw(N_LISTS)
    reps = reps if reps is not None else draw(REPS)
    doc = {"context": context(gpu, cccl or draw(CCCL), commit or "1111111"),
           "benchmarks": entries(rnd, series, ns, reps, float(gpu[1]))}
    if draw(ROLELESS) == 0:   # a file written before roles were declared
        for b in doc["benchmarks"]:
            for k in ("role", "host_work", "reference", "declaration"):
                b.pop(k, None)
    return doc


@st.composite
def results_files(draw, reps=None, faults=True, **kw) -> bytes:
    doc = draw(run_docs(reps=reps, **kw))
    if faults:
        doc = draw(damage(doc))
    return draw(encoded(doc, faults))


@st.composite
def gate_pairs(draw):
    """BASELINE, CANDIDATE and the noise file of a gate run: one run of a few series with
    repetitions, and a second of the same series, some slower or faster; then damage to
    either. Returns (baseline bytes, candidate bytes, noise bytes or None, facts): facts
    says whether both files are healthy runs of one GPU ("clean"), whether a gated (not
    cpu) series is 30% slower ("slowed") or none is slower at all ("steady"), and the
    repetitions of each side."""
    rnd = random.Random(draw(SEEDS))
    gpu = draw(GPU)
    series = draw(SERIES_LISTS)
    ns = draw(N_LISTS)
    reps = (draw(GATE_REPS), draw(GATE_REPS))
    factors = {i: draw(FACTOR) for i in range(len(series))}
    base = {"context": context(gpu, "3.0.1"), "benchmarks": entries(rnd, series, ns, reps[0], float(gpu[1]))}
    cand = {"context": context(gpu, "3.0.1", "2222222"),
            "benchmarks": entries(rnd, series, ns, reps[1], float(gpu[1]), factors)}
    other_gpu = draw(ONE_IN_SIX) == 0
    if other_gpu:   # another GPU or CCCL in the candidate
        cand["context"].update(zip(("gpu_name", "gpu_peak_bandwidth_gbps", "gpu_uuid"), draw(GPU)))
        cand["context"]["cccl_version"] = draw(CCCL)
    which = draw(DAMAGED)
    if which in ("baseline", "both"):
        base = draw(damage(base))
    if which in ("candidate", "both"):
        cand = draw(damage(cand))
    noise = None
    if draw(st.booleans()):
        noise = draw(noise_files(gpu[0], [run_name(s, n, b, k).rsplit("/", 1)[0]
                                          for s in series for n in ns for b in s[5] for k in s[6]],
                                 [s[3] for s in series]))
    facts = {"clean": which == "none" and not other_gpu, "reps": reps, "noise": noise is not None,
             "slowed": any(f > 1.1 and series[i][3] != "cpu" for i, f in factors.items()),
             "steady": all(f < 1.01 for f in factors.values())}
    return draw(encoded(base, which != "none")), draw(encoded(cand, which != "none")), noise, facts


ONE_IN_SIX = st.integers(0, 5)
DAMAGED = st.sampled_from(["none", "none", "baseline", "candidate", "both"])
SD = st.sampled_from([0.002, 0.01, 0.0])


@st.composite
def noise_files(draw, gpu_name: str, names: List[str], roles: List[str]) -> bytes:
    """A noise file as bench-compare --calibrate writes it, for these benchmarks; maybe damaged."""
    doc = {"format": "cuda_bench noise model 1", "gpu_name": gpu_name,
           "conditions": {"GPU": gpu_name, "cache mode": "cold", "suite": "default", "planted build": "none",
                          "driver major version": "13", "timing mode": "events"},
           "runs": [{"path": "aa1.json", "git_commit": "1111111", "date": "2026-11-22"}],
           "benchmarks": {name: {"role": roles[i % len(roles)], "host_work": False,
                                 "n": int(name.split("N:")[1].split("/")[0]), "runs": 3, "df": 2, "sd": draw(SD)}
                          for i, name in enumerate(names)}}
    return draw(json_damage(doc))


DEPTH = st.integers(0, 3)
EDITS = st.integers(0, 2)


@st.composite
def json_damage(draw, doc) -> bytes:
    """Any JSON input (noise files, declarations, published figures): a value replaced or
    removed at any depth, then maybe byte faults."""
    doc = json.loads(json.dumps(doc))
    for _ in range(draw(EDITS)):
        node = doc
        path = []
        while isinstance(node, (dict, list)) and node and draw(DEPTH) > 0:
            key = pick(draw, node) if isinstance(node, dict) else draw(INDEX) % len(node)
            path.append((node, key))
            node = node[key]
        if not path:
            doc = draw(ODD)
            continue
        parent, key = path[-1]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[key]
        else:
            parent[key] = draw(ODD)
    return draw(encoded(doc))


LINE_EDITS = st.integers(0, 3)
LINE_OP = st.sampled_from(["drop", "dup", "replace", "cell"])
ODD_LINE = st.sampled_from(['""\n', "\n", "garbage\n", '"a","b"\n', "========= ERROR SUMMARY: x errors\n",
                            "========= ERROR SUMMARY: 99999999999999999999 errors\n", "[  FAILED  ] \n",
                            "========= RACECHECK SUMMARY: 1 hazard displayed\n"])
ODD_CELL = st.sampled_from(['"nan"', '"inf"', '"-1"', '""', '"1e999"', '"x"', '"1,0"', "nan"])


@st.composite
def text_damage(draw, text: str) -> bytes:
    """A text input (CSV, a log): lines dropped, duplicated or replaced, cells replaced,
    then byte faults."""
    lines = text.splitlines(keepends=True)
    for _ in range(draw(LINE_EDITS)):
        if not lines:
            break
        i = draw(INDEX) % len(lines)
        op = draw(LINE_OP)
        if op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "replace":
            lines[i] = draw(ODD_LINE)
        else:
            cells = lines[i].split(",")
            cells[draw(INDEX) % len(cells)] = draw(ODD_CELL)
            lines[i] = ",".join(cells)
    return draw(byte_faults("".join(lines).encode()))


def finite_json(text: str) -> Optional[object]:
    """The document when text is strict JSON (no NaN/Infinity), else None."""
    def refuse(token):
        raise ValueError(token)
    try:
        return json.loads(text, parse_constant=refuse)
    except ValueError:
        return None
