"""pytest setup for the lrelu Python package tests.

ctest runs them with PYTHONPATH at the build tree's python/ folder. By hand,
with the venv of scripts/setup-python.sh:
    PYTHONPATH=build-py/python .venv/bin/python -m pytest -q tests/python
"""
import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(20240229)
