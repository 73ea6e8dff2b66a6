"""A DLPack producer that is neither NumPy nor torch (as JAX or CuPy arrays
on the CPU are): read without copying, result handed back through the
producer's array-API namespace."""
import numpy as np
import pytest

import lrelu


class Namespace:
    """A minimal array-API namespace: only from_dlpack is needed."""

    @staticmethod
    def from_dlpack(array):
        return Producer(np.from_dlpack(array))


class Producer:
    """Exposes a NumPy array through DLPack only (no __array_ufunc__)."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None, **kwargs):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __array_namespace__(self, api_version=None):
        return Namespace


class ProducerWithoutNamespace(Producer):
    __array_namespace__ = None


def test_read_in_place_and_returned_through_the_namespace():
    x = np.array([-2.0, -0.0, 3.0, np.inf], np.float32)
    producer = Producer(x)
    assert lrelu._lrelu.data_ptr(producer) == x.ctypes.data
    y = lrelu.leaky_relu(producer, 0.5)
    assert isinstance(y, Producer)
    np.testing.assert_array_equal(y.array, [-1.0, -0.0, 3.0, np.inf])
    assert np.signbit(y.array[1])


def test_out_and_gradient():
    x = Producer(np.array([-2.0, 2.0]))
    out = Producer(np.empty(2))
    assert lrelu.leaky_relu(x, 0.25, out=out) is out
    np.testing.assert_array_equal(out.array, [-0.5, 2.0])
    dx = lrelu.leaky_relu_backward(Producer(np.ones(2)), x, 0.25)
    np.testing.assert_array_equal(dx.array, [0.25, 1.0])


def test_without_namespace_out_is_needed():
    x = np.array([-1.0])
    with pytest.raises(TypeError, match="pass out="):
        lrelu.leaky_relu(ProducerWithoutNamespace(x))
    out = np.empty(1)
    lrelu.leaky_relu(ProducerWithoutNamespace(x), 0.5, out=out)
    assert out[0] == -0.5


def test_not_an_array():
    with pytest.raises(TypeError, match="not a NumPy array or DLPack"):
        lrelu._lrelu.forward(object(), 0.1, np.empty(1))
