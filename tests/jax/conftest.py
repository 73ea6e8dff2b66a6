"""pytest setup for lrelu.jax's tests (ctest's jax_tests runs them in
.venv-jax, scripts/setup-jax-python.sh, with PYTHONPATH at the build tree's
python-jax/ folder). By hand:
    PYTHONPATH=build/ci/python-jax .venv-jax/bin/python -m pytest -q tests/jax

float64 needs jax_enable_x64, set here before any test traces anything. The
oracle is the package tests' independent NumPy one (tests/python).
"""
import os
import sys

import jax
import numpy as np
import pytest

jax.config.update("jax_enable_x64", True)
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))


@pytest.fixture
def rng():
    return np.random.default_rng(20251201)
