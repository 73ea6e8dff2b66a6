#!/usr/bin/env python3
"""Checks that every test docs/errors.md names exists.

References are code spans of the form
    path::Suite.Name            a GoogleTest TEST/TEST_F/TEST_P in path
    path::test_function         a pytest function in path
    path::test_function[id]     ... whose parameter id appears quoted in path
    path                        a file (the fuzz targets)
Usage: check_error_catalogue.py REPO_ROOT
"""
import pathlib
import re
import sys

REFERENCE = re.compile(r"`(tests/[^`\s:]+\.(?:cc|py))(?:::([A-Za-z0-9_.]+)(?:\[([^\]]+)\])?)?`")


def check(root):
    doc = (root / "docs" / "errors.md").read_text()
    problems = []
    count = 0
    for match in REFERENCE.finditer(doc):
        path, name, param = match.groups()
        count += 1
        file = root / path
        if not file.is_file():
            problems.append(f"{match.group(0)}: no file {path}")
            continue
        text = file.read_text()
        if name is None:
            continue
        if "." in name:  # GoogleTest Suite.Name
            suite, test = name.split(".", 1)
            pattern = rf"TEST(_F|_P)?\(\s*{re.escape(suite)},\s*{re.escape(test)}\s*\)"
            if not re.search(pattern, text):
                problems.append(f"{match.group(0)}: no TEST({suite}, {test})")
        else:
            if not re.search(rf"^def {re.escape(name)}\(", text, re.MULTILINE):
                problems.append(f"{match.group(0)}: no def {name}(")
            elif param and f'"{param}"' not in text and f"'{param}'" not in text:
                problems.append(f"{match.group(0)}: no parameter id {param!r}")
    if count < 50:
        problems.append(f"only {count} test references found; is the format intact?")
    for p in problems:
        print("docs/errors.md:", p)
    print(f"{count} references checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(check(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()))
