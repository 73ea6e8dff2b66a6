"""pytest setup for the lrelu Python package tests.

ctest runs them with PYTHONPATH at the build tree's python/ folder. By hand,
with the venv of scripts/setup-python.sh:
    PYTHONPATH=build-py/python .venv/bin/python -m pytest -q tests/python
scripts/test-wheel.sh runs them against the installed wheel instead, with
LRELU_TEST_INSTALLED=1.
"""
import os
import pathlib

import numpy as np
import pytest


def pytest_configure(config):
    """LRELU_TEST_INSTALLED=1: the suite must test the installed package, so
    an lrelu imported from the source or build tree is an error."""
    if os.environ.get("LRELU_TEST_INSTALLED") != "1":
        return
    import lrelu
    if "site-packages" not in pathlib.Path(lrelu.__file__).parts:
        raise pytest.UsageError(
            f"LRELU_TEST_INSTALLED=1 but lrelu comes from {lrelu.__file__}")


@pytest.fixture
def rng():
    return np.random.default_rng(20240229)
