"""The ```python snippets of docs/python.md run, in order, in one namespace,
so that the documentation cannot drift from the package."""
import pathlib
import re

import pytest

from lrelu_pytest_support import HAS_DASK, HAS_ML_DTYPES, HAS_TORCH, HAS_XARRAY

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def snippets():
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_docs_have_snippets():
    assert len(snippets()) >= 8


@pytest.mark.skipif(not (HAS_TORCH and HAS_DASK and HAS_XARRAY
                         and HAS_ML_DTYPES),
                    reason="the snippets use torch, dask, xarray, ml_dtypes")
def test_snippets_run():
    import lrelu
    namespace = {}
    before = lrelu.get_threads()
    try:
        for i, code in enumerate(snippets()):
            exec(compile(code, f"{DOC}:snippet{i}", "exec"), namespace)
    finally:
        lrelu.set_threads(before)
