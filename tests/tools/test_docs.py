"""The README and docs/*.md cannot drift from the tools (issue 19): every shell
command they show is either run here or, where it needs a GPU, the network or a
build, checked for the scripts and options it uses.

Commands are the lines of fenced ```sh / ```bash blocks (and of unlabelled blocks
that start with a command), backslash continuations joined. Each is one of:

- run: a `python3 -m benchtools.<tool>` / `bench-<tool>` command over committed
  files. It runs from a temporary copy of results/ and plots/ (so what it writes
  lands there) and must exit 0, or the code a trailing `# exit N` comment states.
- synopsis: the same with placeholders (`RUN.json`, `<gpu>`, `[--opt]`, `...`):
  its tool must exist and list every option used in its --help.
- slow: drawing every chart of a run (`benchtools.plot` without `--filter`,
  `benchtools.report`), `benchtools.autotune`, `tools/regenerate-plots`: options and
  input files checked; with CUDABENCH_DOCS_SLOW=1 the tool commands run too.
- Code spans of README.md's prose that start with a program are checked like a
  synopsis (or as GPU commands), never run.
- GPU/network/build (PROGRAMS_NOT_RUN below): the script or binary must exist
  (cuda_bench: built from bench/main.cpp) and know every option used: cuda_bench's
  from its usage text (kUsage) or Google Benchmark's `--benchmark_*`, a tools/
  script's from its own source (or cuda_bench's where it passes them on).

A command none of these recognise fails the test: classify it here.
"""
from __future__ import annotations

import contextlib
import glob
import importlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
# docs/history.md records what past rounds ran, with the paths of the time: links checked, commands not.
COMMAND_DOCS = [p for p in DOCS if p.name != "history.md"]
README_MAX_LINES = 200
HEADLINE_MARK = "<!-- the output of the command above, verbatim"

# Programs that need a GPU, the network or a C++/CUDA build: never run here.
PROGRAMS_NOT_RUN = {
    "cuda_bench", "graph_check", "gpu_tests", "host_tests", "cub_loop_check",   # ./build/... binaries
    "tools/run-benchmarks", "tools/run-tests", "tools/run-regression", "tools/run-ab", "tools/run-audit",
    "tools/run-sanitizers", "tools/run-floor-check", "tools/lock-requirements", "tools/cccl-from-wheel",
    "cmake", "ctest", "ncu", "git", "pip",
}
SLOW_SCRIPTS = {"tools/regenerate-plots"}          # minutes on 2 cores: every committed chart
SLOW_TOOLS = {"report", "autotune"}                 # every chart of a run; a sweep and its loss chart (10 s)
RUN_SLOW = os.environ.get("CUDABENCH_DOCS_SLOW") == "1"   # run the slow tool commands too
SHELL_WORDS = {"time", "for", "do", "done", "in", "then", "fi", "if", "cd", "export", "sudo"}
OUTPUT_OPTIONS = {"--out", "--markdown", "--verdict", "--medians", "--chart", "--log-dir", "--results-dir"}
SEPARATORS = {"&&", "||", ";", "|", "(", ")", "&"}
REDIRECTS = {">", ">>", "<", "2>", "2>&1"}


# ---------------------------------------------------------------- reading the docs

@dataclass
class Command:
    path: Path
    line: int
    text: str                      # the command without its trailing comment
    comment: str = ""
    inline: bool = False           # a `code span` of README.md's prose: checked, never run

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}: {self.text}"

    @property
    def expected_exit(self) -> int:
        m = re.match(r"exit (\d+)\b", self.comment)
        return int(m.group(1)) if m else 0


def fenced_blocks(text: str):
    """(first line number, info string, body) of each fenced block."""
    for m in re.finditer(r"^```([^\n`]*)\n(.*?)^```", text, re.M | re.S):
        yield text[:m.start()].count("\n") + 2, m.group(1).strip(), m.group(2)


def split_comment(line: str) -> tuple[str, str]:
    """The command and its trailing `# comment` (a # outside quotes after a blank)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def words(command: str) -> List[str]:
    """Shell words with unquoted operators (&&, |, ;, >, parentheses) apart."""
    lex = shlex.shlex(command, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    lex.commenters = ""
    return list(lex)


def looks_like_command(line: str) -> bool:
    try:
        first = words(line)[0] if line.strip() else ""
    except ValueError:         # unbalanced quotes: prose or program output, not a command
        return False
    return (first.startswith(("./build", "build/", "tools/", "bench-")) and not first.endswith(":")) or \
        line.startswith("python3 -m benchtools.")


def doc_commands(path: Path) -> List[Command]:
    out = []
    for start, info, body in fenced_blocks(path.read_text(encoding="utf-8")):
        lines = body.split("\n")
        first = next((split_comment(l)[0] for l in lines if split_comment(l)[0].strip()), "")
        if info not in ("sh", "bash", "shell") and not (info == "" and looks_like_command(first)):
            continue
        pending, pending_line = "", 0
        for i, raw in enumerate(lines):
            text, comment = split_comment(raw)
            if not pending:
                pending_line = start + i
            if text.endswith("\\"):
                pending += text[:-1] + " "
                continue
            full = (pending + text).strip()
            pending = ""
            if full:
                out.append(Command(path, pending_line, " ".join(full.split()), comment))
    return out


INLINE = re.compile(r"`((?:\./build/cuda_bench|tools/[a-z-]+|python3 -m benchtools\.\w+|bench-[a-z]+)(?: [^`]*)?)`")


def inline_commands(path: Path) -> List[Command]:
    """README.md's prose names commands in code spans too (`./build/cuda_bench --help`)."""
    text = re.sub(r"^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), path.read_text(encoding="utf-8"),
                  flags=re.M | re.S)
    return [Command(path, text[:m.start()].count("\n") + 1, m.group(1), inline=True) for m in INLINE.finditer(text)
            if not (ROOT / m.group(1).split()[0]).is_dir()]      # `tools/benchtools` is a folder


def all_commands() -> List[Command]:
    return [c for p in COMMAND_DOCS for c in doc_commands(p)] + inline_commands(ROOT / "README.md")


# ---------------------------------------------------------------- classifying

SCRIPTS = {}   # bench-<name> -> module, from tools/pyproject.toml


def entry_points() -> Dict[str, str]:
    if not SCRIPTS:
        text = (ROOT / "tools" / "pyproject.toml").read_text(encoding="utf-8")
        for name, module in re.findall(r'^(bench-[\w-]+)\s*=\s*"benchtools\.(\w+):main"', text, re.M):
            SCRIPTS[name] = module
    return SCRIPTS


@dataclass
class Part:
    """One simple command of a line: its program and arguments."""
    program: str
    args: List[str] = field(default_factory=list)
    module: Optional[str] = None   # benchtools.<module> for a tool


def synopsis_text(command: str) -> bool:
    """Placeholders: <gpu>, RUN.json, FILE, [--option], ... (not a command to run as it stands)."""
    if re.search(r"<[A-Za-z][^<>\s]*>|\.\.\.|…|(^|\s)\[", command):
        return True
    try:
        tokens = shlex.split(command)
    except ValueError:
        return False
    return any(re.search(r"(^|/)[A-Z][A-Z0-9_]*(\.[a-z.]+)?\]?$", t) for t in tokens[1:])


def tool_part(toks: List[str]) -> Optional[Part]:
    if toks[0] == "python3" and len(toks) > 2 and toks[1] == "-m" and toks[2].startswith("benchtools."):
        return Part("python3 -m " + toks[2], toks[3:], toks[2].split(".", 1)[1])
    if toks[0] in entry_points():
        return Part(toks[0], toks[1:], entry_points()[toks[0]])
    return None


def parts(command: str) -> List[Part]:
    """The simple commands of a line. A synopsis is one command, split on blanks only
    (its `[a|b]` is not a pipe, its `<gpu>` no redirect)."""
    if synopsis_text(command):
        groups = [shlex.split(command)]
    else:
        groups, current = [], []
        for t in words(command) + [";"]:
            if t in SEPARATORS:
                groups.append(current)
                current = []
            else:
                current.append(t)
    result = []
    for toks in groups:
        toks = [t for j, t in enumerate(toks) if t not in REDIRECTS and not (j > 0 and toks[j - 1] in REDIRECTS)]
        if toks and toks[0] in ("for", "export", "cd"):    # shell set-up, no program
            continue
        while toks and (re.match(r"^[A-Z_][A-Z0-9_]*=", toks[0]) or toks[0] in SHELL_WORDS):
            toks = toks[1:]
        if not toks:
            continue
        part = tool_part(toks)
        if part:
            result.append(part)
        elif toks[:3] == ["python3", "-m", "pip"]:
            result.append(Part("pip", toks[3:]))
        else:
            result.append(Part(toks[0][2:] if toks[0].startswith("./") else toks[0], toks[1:]))
    return result


def program_name(program: str) -> str:
    """tools/<script> as is; a binary under build*/ by its file name."""
    return Path(program).name if program.startswith("build") else program


def unknown_programs(ps: List[Part]) -> List[str]:
    return [p.program for p in ps
            if not p.module and program_name(p.program) not in PROGRAMS_NOT_RUN | SLOW_SCRIPTS]


def kind(command: Command) -> str:
    """'run', 'synopsis', 'slow', 'not run' (GPU, network, build), 'setup' (export, cd) or 'unknown'."""
    ps = parts(command.text)
    if not ps:
        return "setup" if re.match(r"^(export|cd)\s", command.text) else "unknown"
    if unknown_programs(ps):
        return "unknown"
    if any(not p.module for p in ps):
        return "slow" if all(program_name(p.program) in SLOW_SCRIPTS for p in ps if not p.module) else "not run"
    if len(ps) > 1 or synopsis_text(command.text) or command.inline:
        return "synopsis"
    p = ps[0]
    if p.module in SLOW_TOOLS or (p.module == "plot" and not any(a.startswith("--filter") for a in p.args)):
        return "slow"
    return "run"


# ---------------------------------------------------------------- options each program knows

def options_used(args: List[str]) -> List[str]:
    out = []
    for a in args:
        a = a.lstrip("[")
        m = re.match(r"^(--[A-Za-z][\w-]*)(=(.*))?", a)
        if m and not re.match(r"^(value|VALUE|\.\.\.)\]?$", m.group(3) or ""):
            out.append(m.group(1))
    return out


def cuda_bench_usage() -> str:
    text = (ROOT / "bench" / "main.cpp").read_text(encoding="utf-8")
    m = re.search(r'kUsage = R"\((.*?)\)";', text, re.S)
    assert m, "bench/main.cpp: kUsage not found"
    return m.group(1)


def cuda_bench_knows(option: str, usage: str) -> bool:
    if option == "--benchmark_min_time":
        return False          # refused since precision sampling: --max-time and --precision
    if option.startswith("--benchmark_") or option == "--help":
        return True
    return re.search(re.escape(option) + r"(?![\w-])", usage) is not None


_HELP: Dict[str, str] = {}


def tool_help(module: str) -> str:
    """The tool's --help text (in this process: one import of numpy and matplotlib for all)."""
    if module not in _HELP:
        assert (ROOT / "tools" / "benchtools" / f"{module}.py").is_file(), f"no tools/benchtools/{module}.py"
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                code = importlib.import_module(f"benchtools.{module}").main(["--help"])
        except SystemExit as e:
            code = e.code
        assert code in (0, None), f"benchtools.{module} --help: exit {code}"
        _HELP[module] = out.getvalue()
    return _HELP[module]


def tool_env(extra_path: Optional[Path] = None) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "tools") + os.pathsep + env.get("PYTHONPATH", "")
    env["MPLBACKEND"] = "Agg"
    path = [str(Path(sys.executable).parent)] + ([str(extra_path)] if extra_path else [])
    env["PATH"] = os.pathsep.join(path + [env.get("PATH", "")])
    return env


def unknown_options(part: Part, usage: str) -> List[str]:
    used = options_used(part.args)
    name = program_name(part.program)
    if part.module:
        help_text = tool_help(part.module)
        return [o for o in used if not re.search(re.escape(o) + r"(?![\w-])", help_text)]
    if name == "cuda_bench":
        return [o for o in used if not cuda_bench_knows(o, usage)]
    if name.startswith("tools/"):
        script = ROOT / name
        assert script.is_file() and os.access(script, os.X_OK), f"{name}: no such executable script"
        source = script.read_text(encoding="utf-8")
        passes_on = "cuda_bench options" in source
        return [o for o in used if not re.search(re.escape(o) + r"(?![\w-])", source)
                and not (passes_on and cuda_bench_knows(o, usage))]
    return []


def input_files_missing(part: Part) -> List[str]:
    """Path-like positional arguments (and option values that are not outputs) that match no file."""
    missing, skip = [], False
    for a in part.args:
        if skip:
            skip = False
            continue
        if a in OUTPUT_OPTIONS:
            skip = True
            continue
        if a.startswith("-") or "=" in a:
            continue
        if ("/" in a or re.search(r"\.(json|gz|md|csv)$", a)) and not glob.glob(str(ROOT / a)):
            missing.append(a)
    return missing


# ---------------------------------------------------------------- the tests

COMMANDS = all_commands()


def test_docs_have_commands_and_each_is_classified():
    assert len(COMMANDS) > 20
    unknown = [f"{c}  ({unknown_programs(parts(c.text)) or 'nothing'})" for c in COMMANDS if kind(c) == "unknown"]
    assert not unknown, "neither a benchtools tool nor a known GPU/network/build program (classify them in " \
                        "tests/tools/test_docs.py):\n" + "\n".join(unknown)
    kinds = {kind(c) for c in COMMANDS}
    assert "run" in kinds and "not run" in kinds


@pytest.mark.parametrize("command", [c for c in COMMANDS if kind(c) not in ("run", "unknown", "setup")], ids=str)
def test_commands_not_run_use_programs_and_options_that_exist(command):
    usage = cuda_bench_usage()
    k = kind(command)
    for part in parts(command.text):
        name = program_name(part.program)
        if name == "cuda_bench":
            assert (ROOT / "bench" / "main.cpp").is_file()
        bad = unknown_options(part, usage)
        assert not bad, f"{command}\n  options that {part.program} does not know: {bad}"
        if k == "slow" and not synopsis_text(command.text):
            assert not input_files_missing(part), f"{command}\n  no such files: {input_files_missing(part)}"


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """A folder that looks like the repository for the tools: results/ copied and
    plots/, build/ empty (commands may write there), the rest linked; bench-* on PATH."""
    root = tmp_path_factory.mktemp("docs")
    shutil.copytree(ROOT / "results", root / "results")
    for name in ("plots", "build"):
        (root / name).mkdir()
    for name in ("tools", "tests", "docs", "experiments"):
        if (ROOT / name).exists():
            (root / name).symlink_to(ROOT / name)
    bin_dir = root / ".bin"
    bin_dir.mkdir()
    for script, module in entry_points().items():
        shim = bin_dir / script
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m benchtools.{module} "$@"\n')
        shim.chmod(0o755)
    return root, bin_dir


def run_in(sandbox, text: str) -> subprocess.CompletedProcess:
    root, bin_dir = sandbox
    return subprocess.run(["bash", "-c", text], cwd=root, env=tool_env(bin_dir), capture_output=True, text=True,
                          timeout=300)


RUN = [c for c in COMMANDS if kind(c) == "run" or (RUN_SLOW and kind(c) == "slow" and parts(c.text)[0].module)]


@pytest.fixture(scope="module")
def ran(sandbox):
    """Every runnable command, two at a time (each is a Python process of its own)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda c: run_in(sandbox, c.text), RUN))
    return {str(c): r for c, r in zip(RUN, results)}


@pytest.mark.parametrize("command", RUN, ids=str)
def test_runnable_commands_exit_as_documented(command, ran):
    r = ran[str(command)]
    assert r.returncode == command.expected_exit, \
        f"{command}\n  exit {r.returncode}, documented {command.expected_exit}\n{r.stderr[-2000:]}"
    for part in parts(command.text):
        bad = unknown_options(part, "")
        assert not bad, f"{command}\n  options that {part.program} does not know: {bad}"


def test_readme_results_table_is_its_commands_output(ran):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert HEADLINE_MARK in text, "README.md: the results table's marker comment is missing"
    before, after = text.split(HEADLINE_MARK, 1)
    command = doc_commands(ROOT / "README.md")
    line = before.count("\n") + 1
    above = [c for c in command if c.line < line][-1]
    assert kind(above) == "run", f"{above}: the table's command must be one this test runs"
    out = ran[str(above)].stdout.strip()
    assert out.startswith("####") and "|" in out
    shown = after.split("\n", 1)[1].lstrip("\n")
    assert shown.startswith(out + "\n"), \
        f"README.md's table is not the output of\n  {above.text}\nnow:\n{out}"
    rest = shown[len(out):].lstrip("\n")
    assert not rest.startswith(("|", "####")), "README.md: more table below the command's output"


def test_readme_is_one_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md: {lines} lines (at most {README_MAX_LINES})"


def links(path: Path) -> List[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)     # code blocks
    text = re.sub(r"`[^`\n]*`", "", text)                           # code spans
    return re.findall(r"\]\(([^)\s]+)\)", text)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_to_files(path):
    bad = []
    for target in links(path):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        if not (path.parent / target.split("#", 1)[0]).exists():
            bad.append(target)
    assert not bad, f"{path.relative_to(ROOT)}: links to missing files: {bad}"


def test_every_image_in_the_readme_is_committed():
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert images, "README.md shows no chart"
    try:
        tracked = subprocess.run(["git", "ls-files", "--", *images], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    assert sorted(tracked) == sorted(images), f"README.md images not committed: {set(images) - set(tracked)}"


def test_paths_the_readme_names_exist():
    """A `results/...`, `src/...` or other repository path in README.md's prose is there."""
    text = re.sub(r"^```.*?^```", "", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.M | re.S)
    spans = re.findall(r"`((?:results|plots|src|tools|docs|tests|experiments|cmake|bench)/[^`\s]*)`", text)
    assert spans
    missing = [s for s in spans if not re.search(r"[<*]", s) and not (ROOT / s).exists()]
    assert not missing, f"README.md names paths that do not exist: {missing}"
