"""Once a subinterpreter exists, PyGILState_Check answers 1 whatever the
thread holds, and a loop that trusted it to release the GIL aborted Python
(Fatal Python error: PyEval_SaveThread). Each case runs in a fresh process,
so that a crash is a failed test rather than a dead test run."""
import subprocess
import sys
import textwrap

import pytest

from lrelu_pytest_support import HAS_ML_DTYPES

CASES = {
    # The reproducer: NumPy released the GIL before the loop.
    "float32": "x = -np.ones(1000, np.float32)",
    "float64-small": "x = -np.ones(10)",
    # ml_dtypes' bfloat16 needs the Python API: NumPy keeps the GIL and
    # the loop lets go of it itself.
    "bfloat16": "import ml_dtypes\nx = -np.ones(5000, ml_dtypes.bfloat16)",
    "float32-where": "x = -np.ones(3000, np.float32)\n"
                     "kw = dict(where=np.arange(3000) % 2 == 0, "
                     "out=np.zeros(3000, np.float32))",
}


@pytest.mark.skipif(sys.version_info >= (3, 12),
                    reason="_xxsubinterpreters is Python <= 3.11")
@pytest.mark.parametrize("case", sorted(CASES))
def test_calls_after_a_subinterpreter_exists(case):
    if case == "bfloat16" and not HAS_ML_DTYPES:
        pytest.skip("ml_dtypes not installed")
    script = "import numpy as np\nkw = {}\n" + CASES[case] + textwrap.dedent(
        """
        import _xxsubinterpreters as subinterpreters
        import threading
        import lrelu
        want = lrelu.leaky_relu(x, 0.5, **kw)
        subinterpreters.create()
        y = lrelu.leaky_relu(x, 0.5, **kw)
        assert y.tobytes() == want.tobytes()
        # -1 * 0.5 is exact in every dtype.
        assert (np.asarray(y, np.float64)[kw.get("where", ...)] == -0.5).all()
        assert lrelu._lrelu.last_loop_held_gil() is False or x.size < 500
        worker = threading.Thread(target=lrelu.leaky_relu, args=(x, 0.5))
        worker.start()
        worker.join()
        lrelu.leaky_relu_backward(np.ones(x.shape, x.dtype), x, 0.5)
        print("ok")
        """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"
