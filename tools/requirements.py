"""The Python tools' requirements, read from tools/pyproject.toml (the one list).

    python3 tools/requirements.py --check [EXTRA ...]   exit 0 if this interpreter has them all
    python3 tools/requirements.py --list [EXTRA ...]    print them, one a line (for pip)
    python3 tools/requirements.py --check-lock          exit 0 if this interpreter has exactly the
                                                        versions pinned in tools/requirements.lock

EXTRA names an optional-dependency group (test, lint) added to the base list;
"all" means every group. The check reads installed distributions' metadata
(no import, so it is fast) and understands `name` and `name>=X.Y`: the only
forms pyproject.toml uses; any other specifier is refused, so a new one cannot
be skipped silently. Runs on Python 3.11+, and on 3.9/3.10 with tomli or pip.
"""

import argparse
import re
import sys
from importlib import metadata
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent / "pyproject.toml"
LOCK = Path(__file__).resolve().parent / "requirements.lock"  # tools/lock-requirements writes it
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:>=\s*([0-9][0-9.]*))?\s*$")


def _load_toml(text):
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        try:
            import tomli as tomllib  # Python 3.9/3.10: the same parser, as a package
        except ImportError:
            from pip._vendor import tomli as tomllib  # or the copy inside pip
    return tomllib.loads(text)


def requirements(extras, pyproject=PYPROJECT):
    project = _load_toml(Path(pyproject).read_text(encoding="utf-8"))["project"]
    groups = project.get("optional-dependencies", {})
    wanted = list(groups) if "all" in extras else extras
    unknown = [e for e in wanted if e not in groups]
    if unknown:
        raise ValueError(f"no optional-dependency group {', '.join(unknown)} in {pyproject}")
    reqs = list(project.get("dependencies", []))
    for group in wanted:
        reqs += groups[group]
    return list(dict.fromkeys(reqs))  # once each, in order


def _version_tuple(text):
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def missing(reqs):
    """The requirements this interpreter does not satisfy, with why."""
    out = []
    for req in reqs:
        m = _REQUIREMENT.match(req)
        if not m:
            raise ValueError(f"requirement '{req}': only 'name' and 'name>=X.Y' are understood")
        name, minimum = m.groups()
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            out.append(f"{req} (not installed)")
            continue
        if minimum and _version_tuple(have) < _version_tuple(minimum):
            out.append(f"{req} (have {have})")
    return out


def _normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(lock=LOCK):
    """{normalized name: version} of every package the lock pins."""
    out = {}
    for line in Path(lock).read_text(encoding="utf-8").splitlines():
        m = _PIN.match(line)
        if m:
            out[_normalized(m.group(1))] = m.group(2)
    if not out:
        raise ValueError(f"{lock}: pins no package (not a pip-compile lock?)")
    return out


def off_lock(lock=LOCK):
    """The pinned packages this interpreter lacks or has at another version, with why."""
    out = []
    for name, version in pins(lock).items():
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            out.append(f"{name}=={version} (not installed)")
            continue
        if have != version:
            out.append(f"{name}=={version} (have {have})")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 0 if all are installed, 1 if not")
    mode.add_argument("--list", action="store_true", help="print the requirements, one a line")
    mode.add_argument("--check-lock", action="store_true",
                      help="exit 0 if every package of tools/requirements.lock is installed at its pinned version")
    parser.add_argument("extras", nargs="*", help="optional-dependency groups (test, lint, all)")
    args = parser.parse_args(argv)
    try:
        if args.check_lock:
            lacking = off_lock()
            if lacking:
                shown = ", ".join(lacking[:4]) + (f" and {len(lacking) - 4} more" if len(lacking) > 4 else "")
                print(f"{sys.executable} is not at the lock ({LOCK.name}): {shown}", file=sys.stderr)
                return 1
            return 0
        reqs = requirements(args.extras)
        if args.list:
            print("\n".join(reqs))
            return 0
        lacking = missing(reqs)
    except (OSError, ValueError, KeyError, ImportError) as e:
        print(f"requirements: {e}", file=sys.stderr)
        return 2
    if lacking:
        print(f"{sys.executable} lacks: {', '.join(lacking)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
