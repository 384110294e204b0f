#!/usr/bin/env python3
"""The operator marks of a FlagGems checkout's benchmark suite, as zlbench's tests use them.

usage: scripts/flaggems-marks.py FLAGGEMS_DIR > tests/fixtures/flaggems-marks/<commit>.tsv

One line per test function (or class) that carries an operator mark, in the order of the
files (sorted, folders included) and of the functions in each file:

    benchmark/test_div.py<TAB>test_div_tensor<TAB>div_tensor

the third field lists the function's operator marks in source order, comma-separated: its
decorators' @pytest.mark.<op> and the marks of its pytest.param(..., marks=...) cases.
pytest's own marks (FlagGems' BUILTIN_MARKS: parametrize, skip, skipif, xfail, usefixtures,
filterwarnings, timeout, tryfirst, trylast) are left out, as FlagGems' conftest leaves them
out of an operator's ID. Python's ast reads the files: comments, strings and
`from _pytest.mark.structures import ...` are no marks. Nothing is imported or run.
"""
import ast
import os
import sys

BUILTIN_MARKS = {"parametrize", "skip", "skipif", "xfail", "usefixtures", "filterwarnings",
                 "timeout", "tryfirst", "trylast"}


def mark_name(node):
    """pytest.mark.<name> or pytest.mark.<name>(...) -> name, else None."""
    if isinstance(node, ast.Call):
        node = node.func
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
            and node.value.attr == "mark" and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "pytest"):
        return node.attr
    return None


def param_marks(decorator):
    """The marks= of every pytest.param(...) inside a decorator, in order."""
    names = []
    for node in ast.walk(decorator):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "param"):
            continue
        for kw in node.keywords:
            if kw.arg != "marks":
                continue
            values = kw.value.elts if isinstance(kw.value, (ast.List, ast.Tuple)) else [kw.value]
            names += [n for n in map(mark_name, values) if n]
    return names


def marks_of(definition):
    names = []
    for dec in definition.decorator_list:
        name = mark_name(dec)
        for n in ([name] if name else []) + param_marks(dec):
            if n not in BUILTIN_MARKS and n not in names:
                names.append(n)
    return names


def test_files(root):
    bench = os.path.join(root, "benchmark")
    for dirpath, dirnames, filenames in os.walk(bench):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        for name in sorted(filenames):
            if name.startswith("test_") and name.endswith(".py"):
                path = os.path.join(dirpath, name)
                yield path, os.path.relpath(path, root)


def main(argv):
    if len(argv) != 2 or not os.path.isdir(os.path.join(argv[1], "benchmark")):
        sys.stderr.write("usage: flaggems-marks.py FLAGGEMS_DIR (a checkout with benchmark/)\n")
        return 2
    rows = []
    for path, rel in test_files(argv[1]):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=rel)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = marks_of(node)
                if names:
                    rows.append((rel, node.lineno, node.name, names))
    rows.sort(key=lambda r: (r[0], r[1]))
    for rel, _, name, names in rows:
        sys.stdout.write("%s\t%s\t%s\n" % (rel, name, ",".join(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
