"""The few lines tools/run-tests prints: passed, failed (by name) and skipped
(each reason once) per test runner, from their JUnit XML files, then a total.

    python3 tools/summarize_tests.py LABEL=FILE.xml ... [--log build/test-log.txt]

Exit 0 when every file was read and nothing failed, 1 otherwise.
"""

import argparse
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter

MAX_NAMES = 20


def _skip_reason(case, skipped):
    """GTEST_SKIP's message: CTest's <skipped> carries no reason of its own, the
    test's output does ("file.cpp:12: Skipped" then the message). pytest's is
    its message, or for a skipped module, in its text."""
    lines = (case.findtext("system-out") or "").splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.rstrip().endswith("Skipped") and lines[i + 1].strip():
            return lines[i + 1].strip()
    message = (skipped.get("message") or skipped.text or "no reason given").strip()
    if message == "collection skipped":  # pytest's module-level skip: the reason is in the text
        found = re.search(r"Skipped: (.*?)['\"]\)\s*$", skipped.text or "")
        message = found.group(1) if found else message
    return message


def read(path):
    """(passed, [failed names], Counter of skip reasons) of one JUnit file."""
    root = ET.parse(path).getroot()
    passed, failed, skipped = 0, [], Counter()
    for case in root.iter("testcase"):
        name = case.get("name", "?").split("  # GetParam()")[0]  # CTest's gtest names
        if case.get("classname") and not case.get("classname").startswith(name):
            name = f"{case.get('classname')}::{name}"
        skip = case.find("skipped")
        if case.find("failure") is not None or case.find("error") is not None:
            failed.append(name)
        elif skip is not None:
            skipped[_skip_reason(case, skip)] += 1
        elif case.get("status") in ("notrun", "disabled"):
            skipped[f"not run ({case.get('status')})"] += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", metavar="LABEL=FILE.xml")
    parser.add_argument("--log", help="the full log, named when something failed")
    args = parser.parse_args(argv)
    ok = True
    totals = [0, 0, 0]
    for spec in args.files:
        label, _, path = spec.partition("=")
        try:
            passed, failed, skipped = read(path)
        except (OSError, ET.ParseError) as e:
            print(f"{label}: no results ({e})")
            ok = False
            continue
        n_skipped = sum(skipped.values())
        print(f"{label}: {passed} passed, {len(failed)} failed, {n_skipped} skipped")
        for reason, count in skipped.most_common():
            print(f"  {count} skipped: {reason}")
        if failed:
            more = f" and {len(failed) - MAX_NAMES} more" if len(failed) > MAX_NAMES else ""
            print(f"  failed: {', '.join(failed[:MAX_NAMES])}{more}")
            ok = False
        totals = [totals[0] + passed, totals[1] + len(failed), totals[2] + n_skipped]
    if not ok and args.log:
        print(f"full log: {args.log}")
    print(f"total: {totals[0]} passed, {totals[1]} failed, {totals[2]} skipped")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
