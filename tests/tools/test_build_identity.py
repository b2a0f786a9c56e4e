"""Which code a run measured: cmake/GitCommit.cmake's source hash (every file the binaries
are built from, path and content), written into each run's context as "source_hash", and
the gate's build_key, which pools the A/A runs of one code whatever their commits."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "cmake" / "GitCommit.cmake"
TREE = {"src/kernels/k.cu": "kernel", "bench/main.cpp": "main", "cmake/Flags.cmake": "flags",
        "CMakeLists.txt": "project", "tools/benchtools/t.py": "tool", "docs/d.md": "doc", "README.md": "readme"}

needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")


def identity(tree, tmp_path, config="build type Release"):
    """(source hash, commit) as the build records them."""
    out = tmp_path / "generated" / "git_commit.hpp"
    subprocess.run(["cmake", f"-DSOURCE_DIR={tree}", f"-DOUTPUT={out}", f"-DBUILD_CONFIG={config}", "-P",
                    str(SCRIPT)], check=True, capture_output=True)
    text = out.read_text()
    return (re.search(r'CUDABENCH_SOURCE_HASH "([0-9a-f]{16})"', text).group(1),
            re.search(r'CUDABENCH_GIT_COMMIT "([^"]*)"', text).group(1))


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    for rel, text in TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@needs_cmake
def test_the_source_hash_follows_the_code_and_not_the_tools_or_docs(tree, tmp_path):
    first = identity(tree, tmp_path)[0]                 # no git checkout needed: it reads the files
    for rel in ("tools/benchtools/t.py", "docs/d.md", "README.md"):
        (tree / rel).write_text("changed")
    assert identity(tree, tmp_path)[0] == first
    for rel in ("src/kernels/k.cu", "bench/main.cpp", "cmake/Flags.cmake", "CMakeLists.txt"):
        (tree / rel).write_text("changed")
        assert identity(tree, tmp_path)[0] != first, rel
        (tree / rel).write_text(TREE[rel])
        assert identity(tree, tmp_path)[0] == first, rel
    (tree / "src/kernels/k.cu").rename(tree / "src/kernels/k2.cu")   # same content, another name
    assert identity(tree, tmp_path)[0] != first
    (tree / "src/kernels/k2.cu").rename(tree / "src/kernels/k.cu")
    (tree / "src/kernels/new.cuh").write_text("")                   # a header not yet in git counts
    assert identity(tree, tmp_path)[0] != first


@needs_cmake
def test_the_generated_header_is_rewritten_only_when_it_changes(tree, tmp_path):
    identity(tree, tmp_path)
    header = tmp_path / "generated" / "git_commit.hpp"
    before = header.stat().st_mtime_ns
    identity(tree, tmp_path)
    assert header.stat().st_mtime_ns == before          # nothing rebuilds for an unchanged tree


@needs_cmake
def test_the_build_configuration_is_part_of_the_hash(tree, tmp_path):
    # Same sources, another build type or architecture list: other binaries, another hash.
    first = identity(tree, tmp_path)[0]
    assert identity(tree, tmp_path, "build type Debug")[0] != first
    assert identity(tree, tmp_path)[0] == first


@needs_cmake
def test_hidden_files_and_dangling_links_neither_count_nor_break_the_build(tree, tmp_path):
    first = identity(tree, tmp_path)[0]
    (tree / "src/kernels/.k.cu.swp").write_text("swap")                   # vim
    (tree / "src/kernels/.#k.cu").symlink_to("user@host.1234:1700000000")  # an Emacs lock: a dangling link
    (tree / "src/.cache").mkdir()
    (tree / "src/.cache/index").write_text("clangd")
    assert identity(tree, tmp_path)[0] == first
