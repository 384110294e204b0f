#!/usr/bin/env python3
"""Build a stub FlagGems benchmark suite from a marks fixture (tests/fixtures/flaggems-marks/).

usage: flaggems_marks_tree.py TSV DIR

DIR/benchmark/ gets every file of the fixture at its path, each test function with its
operator marks as decorators in order, and a conftest.py registering --level (as FlagGems'
does); nothing of FlagGems itself. The same stub tests/unit/test_resolve.c builds.
"""
import os
import sys


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: flaggems_marks_tree.py TSV DIR\n")
        return 2
    files = {}
    with open(argv[1], encoding="utf-8") as f:
        for line in f:
            path, func, marks = line.rstrip("\n").split("\t")
            body = files.setdefault(path, ["import pytest\n"])
            body.append("\n" + "".join("@pytest.mark.%s\n" % m for m in marks.split(",")))
            body.append("def %s():\n    pass\n" % func)
    for path, body in files.items():
        full = os.path.join(argv[2], path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write("".join(body))
    with open(os.path.join(argv[2], "benchmark", "conftest.py"), "w", encoding="utf-8") as f:
        f.write('def pytest_addoption(parser):\n    parser.addoption("--level", choices=["core", "comprehensive"])\n')
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
