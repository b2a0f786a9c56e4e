"""bench-sanitizers: the verdict tools/run-sanitizers gives over compute-sanitizer logs.

initcheck.0.log is a real initcheck log of the GPU tests on an H200 (trimmed to
two of its 40 error blocks): thrust::max_element's padded tuple copy.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from benchtools import sanitizers

FIXTURES = Path(__file__).parent / "fixtures" / "sanitizers"
KNOWN = Path(__file__).parents[2] / "tools" / "sanitizer-known.txt"

CLEAN = """========= COMPUTE-SANITIZER
[==========] Running 2 tests from 1 test suite.
[       OK ] Declarations/EveryDeclaration.CorrectAtAwkwardSizesForEveryBlockAndBatch/reduce_sum_i32_floor_sum (12 ms)
[  PASSED  ] 2 tests.
========= ERROR SUMMARY: 0 errors
"""

OUT_OF_BOUNDS = """========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 16 bytes
=========     at void bench::launch_floor::detail::floor_sum_kernel<int, 256, 4>(const T1 *, unsigned long, T1 *, unsigned long long *)+0x1a0
=========     by thread (3,0,0) in block (0,0,0)
=========     Address 0x7f0000001000 is out of bounds
[  PASSED  ] 2 tests.
========= ERROR SUMMARY: 1 error
"""


def write(tmp_path: Path, name: str, text: str, status: str = "0 3") -> Path:
    log = tmp_path / name
    log.write_text(text)
    log.with_suffix(".status").write_text(status + "\n")
    return log


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = sanitizers.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_known_thrust_padding_is_reported_and_does_not_fail(capsys):
    rc, out, err = run(capsys, "--known", str(KNOWN), str(FIXTURES / "initcheck.0.log"))
    assert rc == 0, err
    row = next(line for line in out.splitlines() if line.startswith("initcheck"))
    assert row.split()[1:4] == ["0", "2", "0"]  # findings, known, failed tests
    assert "thrust::max_element" in out


def test_the_same_log_without_the_known_list_fails_and_names_the_call_site(capsys):
    rc, out, err = run(capsys, str(FIXTURES / "initcheck.0.log"))
    assert rc == 1
    assert next(line for line in out.splitlines() if line.startswith("initcheck")).split()[1] == "2"
    assert "ThrustMaxElement::launch" in err


def test_a_clean_log_passes_with_its_slowest_shard(tmp_path, capsys):
    rc, out, _ = run(capsys, str(write(tmp_path, "memcheck.0.log", CLEAN, "0 125")))
    assert rc == 0
    assert "2m05s" in out


def test_an_out_of_bounds_read_fails_even_with_the_known_list(tmp_path, capsys):
    rc, out, err = run(capsys, "--known", str(KNOWN), str(write(tmp_path, "memcheck.1.log", OUT_OF_BOUNDS, "1 4")))
    assert rc == 1
    assert "Invalid __global__ read" in err and "floor_sum_kernel" in err
    assert next(line for line in out.splitlines() if line.startswith("memcheck")).split()[1] == "1"


def test_a_known_entry_of_another_tool_does_not_explain_a_finding(tmp_path, capsys):
    text = (FIXTURES / "initcheck.0.log").read_text()
    rc, _, err = run(capsys, "--known", str(KNOWN), str(write(tmp_path, "memcheck.0.log", text, "1 3")))
    assert rc == 1
    assert "Uninitialized access" in err


RACE_CLEAN = CLEAN.replace("========= ERROR SUMMARY: 0 errors",
                           "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)")
RACE_HAZARD = RACE_CLEAN.replace(
    "[  PASSED", "========= Warning: Race reported between Write access at void bench::x()+0x40\n"
                 "=========     and Read access at void bench::x()+0x80 [8 hazards]\n[  PASSED").replace(
    "0 hazards displayed (0 errors, 0 warnings)", "1 hazards displayed (0 errors, 1 warnings)")


def test_racecheck_summary_line_is_read(tmp_path, capsys):
    rc, out, err = run(capsys, str(write(tmp_path, "racecheck.0.log", RACE_CLEAN, "0 76")))
    assert rc == 0, err
    assert next(line for line in out.splitlines() if line.startswith("racecheck")).split()[1] == "0"


def test_a_racecheck_warning_is_a_finding(tmp_path, capsys):
    rc, out, err = run(capsys, str(write(tmp_path, "racecheck.0.log", RACE_HAZARD, "0 76")))
    assert rc == 1
    assert "Race reported between Write access" in err
    assert next(line for line in out.splitlines() if line.startswith("racecheck")).split()[1] == "1"


def test_an_unfinished_log_fails(tmp_path, capsys):
    rc, _, err = run(capsys, str(write(tmp_path, "racecheck.0.log", CLEAN.rsplit("=========", 1)[0], "124 300")))
    assert rc == 1
    assert "no summary line: the run did not finish (exit 124)" in err


def test_a_failed_test_fails(tmp_path, capsys):
    text = CLEAN.replace("[  PASSED  ] 2 tests.", "[  FAILED  ] Declarations/EveryDeclaration.X/reduce_sum_i32_floor_sum, where")
    rc, _, err = run(capsys, str(write(tmp_path, "synccheck.0.log", text, "1 3")))
    assert rc == 1
    assert "failed test Declarations/EveryDeclaration.X/reduce_sum_i32_floor_sum" in err


def test_errors_counted_but_not_reported_fail(tmp_path, capsys):
    rc, _, err = run(capsys, str(write(tmp_path, "memcheck.0.log", CLEAN.replace("0 errors", "3 errors"), "1 3")))
    assert rc == 1
    assert "3 errors counted, 0 reported" in err


@pytest.mark.parametrize(
    "content, message",
    [
        ("memcheck\tonly-a-regex\n", "expected tool<TAB>regex"),
        ("helgrind\tx\treason\n", "with a tool of memcheck"),
        ("memcheck\t([\treason\n", "bad regex"),
        ("memcheck\t\treason\n", "known.txt:1: empty regex"),  # would match every finding
        ("# a comment\nmemcheck\tInvalid\t \treason\n", "known.txt:2: empty regex"),
    ],
)
def test_a_bad_known_file_is_exit_2_with_one_line(tmp_path, capsys, content, message):
    known = tmp_path / "known.txt"
    known.write_text(content)
    rc, out, err = run(capsys, "--known", str(known), str(write(tmp_path, "memcheck.0.log", CLEAN)))
    assert rc == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_a_status_that_is_a_folder_is_exit_2_naming_it(tmp_path, capsys):
    log = tmp_path / "memcheck.0.log"
    log.write_text(CLEAN)
    (tmp_path / "memcheck.0.status").mkdir()
    rc, out, err = run(capsys, str(log))
    assert rc == 2 and out == ""
    assert f"{tmp_path / 'memcheck.0.status'}: cannot read" in err and err.count("\n") == 1


def test_a_log_not_named_after_its_tool_is_exit_2(tmp_path, capsys):
    rc, _, err = run(capsys, str(write(tmp_path, "gpu_tests.log", CLEAN)))
    assert rc == 2
    assert "starts with its tool" in err


@pytest.mark.parametrize("args", [[], ["--bogus", "memcheck.0.log"]])
def test_usage_errors_are_one_line_exit_2(capsys, args):
    rc, out, err = run(capsys, *args)
    assert rc == 2 and out == ""
    assert err.startswith("bench-sanitizers: ") and err.count("\n") == 1
