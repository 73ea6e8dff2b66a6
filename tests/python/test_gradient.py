"""leaky_relu_backward on NumPy arrays: layouts, out=, and the errors the
library reports (mapped to TypeError and ValueError with its message)."""
import numpy as np
import pytest

import lrelu


def test_gradient_is_one_at_zero_and_alpha_below():
    x = np.array([-2.0, -0.0, 0.0, 3.0, np.inf, -np.inf])
    dx = lrelu.leaky_relu_backward(np.ones_like(x), x, 0.25)
    np.testing.assert_array_equal(dx, [0.25, 1.0, 1.0, 1.0, 1.0, 0.25])


def test_strided_inputs_and_in_place_out():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((6, 8)).astype(np.float32)
    dy = rng.standard_normal((8, 6)).astype(np.float32).T  # transposed
    expected = np.where(x < 0, np.float32(0.3) * dy, dy)
    np.testing.assert_array_equal(lrelu.leaky_relu_backward(dy, x, 0.3),
                                  expected)
    dy_copy = dy.copy()
    dx = lrelu.leaky_relu_backward(dy_copy, x, 0.3, out=dy_copy)
    assert dx is dy_copy
    np.testing.assert_array_equal(dy_copy, expected)
    # Reversed and broadcast (stride 0) inputs.
    row = x[0, ::-1]
    dx = lrelu.leaky_relu_backward(np.broadcast_to(np.float32(2.0), (8,)),
                                   row, 0.3)
    np.testing.assert_array_equal(dx, np.where(row < 0, np.float32(0.6), 2))


def test_zero_d_and_empty():
    dx = lrelu.leaky_relu_backward(np.float64(3.0), np.float64(-1.0), 0.5)
    assert dx == 1.5 and np.ndim(dx) == 0
    dx = lrelu.leaky_relu_backward(np.empty((0, 3), np.float16),
                                   np.empty((0, 3), np.float16))
    assert dx.shape == (0, 3) and dx.dtype == np.float16


def test_from_output_needs_positive_alpha():
    y = np.array([-1.0, 2.0])
    for alpha in (0.0, -0.5, float("nan")):
        with pytest.raises(ValueError, match="alpha > 0"):
            lrelu.leaky_relu_backward(np.ones(2), y, alpha, from_output=True)


def test_shape_mismatch_is_a_value_error():
    with pytest.raises(ValueError, match="SHAPE_MISMATCH"):
        lrelu.leaky_relu_backward(np.ones(3), np.ones(4))
    with pytest.raises(ValueError):
        # No broadcasting in the gradient.
        lrelu.leaky_relu_backward(np.ones((2, 3)), np.ones(3))


def test_dtype_errors_are_type_errors():
    with pytest.raises(TypeError, match="DTYPE_MISMATCH"):
        lrelu.leaky_relu_backward(np.ones(3, np.float32), np.ones(3))
    with pytest.raises(TypeError, match="int64"):
        lrelu.leaky_relu_backward(np.ones(3, np.int64), np.ones(3, np.int64))
    with pytest.raises(TypeError):
        lrelu.leaky_relu_backward(np.ones(3), np.ones(3), 1j)


def test_output_errors():
    dy = np.ones(4)
    x = np.ones(4)
    read_only = np.ones(4)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        lrelu.leaky_relu_backward(dy, x, out=read_only)
    with pytest.raises(ValueError, match="OVERLAP"):
        # dx overlapping x without being it exactly.
        buffer = np.ones(5)
        lrelu.leaky_relu_backward(buffer[1:], buffer[:4], out=buffer[1:])
    with pytest.raises(TypeError):
        lrelu.leaky_relu_backward(dy, x, out=[0.0] * 4)


def test_array_likes_are_converted():
    dx = lrelu.leaky_relu_backward([1.0, 1.0], [-1.0, 1.0], 0.5)
    np.testing.assert_array_equal(dx, [0.5, 1.0])


def test_inputs_the_c_abi_cannot_describe_are_copied():
    # Byte-swapped dy and a packed-record x (stride 5 bytes) are read
    # through a native copy; outputs like that are refused.
    dy = np.array([1.0, 2.0, 3.0], dtype=">f4")
    records = np.zeros(3, dtype=np.dtype([("tag", "u1"), ("x", "<f4")]))
    records["x"] = [-1.0, 0.0, 1.0]
    dx = lrelu.leaky_relu_backward(dy, records["x"], 0.5)
    np.testing.assert_array_equal(dx, [0.5, 2.0, 3.0])
    with pytest.raises(ValueError, match="whole elements"):
        lrelu.leaky_relu_backward(np.ones(3, np.float32), records["x"],
                                  out=records["x"])
    with pytest.raises(TypeError, match="byte-swapped"):
        lrelu.leaky_relu_backward(np.ones(3, np.float32),
                                  np.ones(3, np.float32),
                                  out=np.empty(3, ">f4"))
