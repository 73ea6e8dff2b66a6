"""pytest setup for the end-to-end tests of the `lrelu` command-line tool.

The binary comes from --lrelu=PATH or the LRELU_CLI environment variable
(ctest sets it). Run by hand:
    LRELU_CLI=build/tools/lrelu /usr/bin/python3 -m pytest -q tests/cli
"""
import os

import pytest


def pytest_addoption(parser):
    parser.addoption("--lrelu", default=None,
                     help="path of the lrelu binary (default: $LRELU_CLI)")


@pytest.fixture(scope="session")
def lrelu_path(request):
    path = request.config.getoption("--lrelu") or os.environ.get("LRELU_CLI")
    if not path:
        pytest.fail("give the lrelu binary with --lrelu=PATH or LRELU_CLI")
    if not os.access(path, os.X_OK):
        pytest.fail(f"lrelu binary {path!r} is not executable")
    return os.path.abspath(path)
