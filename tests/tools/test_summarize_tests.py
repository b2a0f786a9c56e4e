"""tools/summarize_tests.py: run-tests' few lines from CTest's and pytest's JUnit XML."""
import summarize_tests

CTEST = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="4">
  <testcase name="Declarations.A" classname="Declarations.A" status="run"><system-out>ok</system-out></testcase>
  <testcase name="Variants/Reduction.X/a  # GetParam() = &quot;a&quot;" classname="Variants/Reduction.X/a  # GetParam() = &quot;a&quot;" status="notrun">
    <skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
    <system-out>[ RUN      ] Variants/Reduction.X/a
../tests/gpu_test.hpp:48: Skipped
no CUDA GPU: no device
[  SKIPPED ] Variants/Reduction.X/a (0 ms)</system-out>
  </testcase>
  <testcase name="Variants/Reduction.X/b  # GetParam() = &quot;b&quot;" classname="Variants/Reduction.X/b  # GetParam() = &quot;b&quot;" status="notrun">
    <skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
    <system-out>x.cpp:1: Skipped
no CUDA GPU: no device
</system-out>
  </testcase>
  <testcase name="cli.bad_sizes" classname="cli.bad_sizes" status="fail"><failure message="Failed"/></testcase>
</testsuite>
"""

PYTEST = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="3">
<testcase classname="tests.tools.test_plot" name="test_a"/>
<testcase classname="tests.tools.test_plot" name="test_b"/>
<testcase classname="tests.tools.test_report" name="test_render"><skipped type="pytest.skip" message="chromium not installed">x</skipped></testcase>
<testcase classname="" name="tests.tools.test_lint"><skipped message="collection skipped">('/x/test_lint.py', 8, 'Skipped: ruamel.yaml not installed')</skipped></testcase>
</testsuite></testsuites>
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_counts_each_skip_reason_once_and_names_failures(tmp_path, capsys):
    ctest = write(tmp_path, "ctest.xml", CTEST)
    pytest_xml = write(tmp_path, "pytest.xml", PYTEST)
    assert summarize_tests.main([f"CTest={ctest}", f"pytest={pytest_xml}", "--log", "log.txt"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "CTest: 1 passed, 1 failed, 2 skipped",
        "  2 skipped: no CUDA GPU: no device",
        "  failed: cli.bad_sizes",
        "pytest: 2 passed, 0 failed, 2 skipped",
        "  1 skipped: chromium not installed",
        "  1 skipped: ruamel.yaml not installed",
        "full log: log.txt",
        "total: 3 passed, 1 failed, 4 skipped",
    ]


def test_all_passed_exits_0_and_a_missing_file_is_a_failure(tmp_path, capsys):
    pytest_xml = write(tmp_path, "pytest.xml", PYTEST)
    assert summarize_tests.main([f"pytest={pytest_xml}"]) == 0
    assert capsys.readouterr().out.endswith("total: 2 passed, 0 failed, 2 skipped\n")
    assert summarize_tests.main([f"CTest={tmp_path / 'none.xml'}"]) == 1
    assert capsys.readouterr().out.startswith("CTest: no results (")
