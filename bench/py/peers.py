"""The Python-side variants: the np.copyto baseline, PyTorch, NumPy, ONNX
Runtime and, when its package is importable, lrelu itself.

A variant's make(x, y) does the untimed setup for one block and returns the
callable that is timed, taking the call number (in-place variants alternate
alpha between 0.01 and 100 with it, so repeated calls do not drive the data
to zero). It raises Unsupported when the library refuses the dtype.
"""
import numpy as np

from data import ALPHA, NP_TYPES


class Unsupported(Exception):
    pass


def in_place_alpha(call):
    return 100.0 if call % 2 else ALPHA


class Variant:
    def __init__(self, impl, name, threads, make, dtypes, inplace=False,
                 is_copy=False, allocates=False):
        self.impl, self.name, self.threads = impl, name, threads
        self.make, self.dtypes = make, dtypes
        self.inplace, self.is_copy = inplace, is_copy
        # The output is the call's return value, not y.
        self.allocates = allocates

    def supports(self, dtype):
        return dtype in self.dtypes


ALL = ('f32', 'f16', 'bf16', 'f64')


def numpy_variants():
    def copyto(x, y, dtype):
        return lambda call: np.copyto(y, x)

    def where(x, y, dtype):
        a = NP_TYPES[dtype](ALPHA)  # NumPy computes in the storage type
        return lambda call: np.where(x >= 0, x, a * x)

    return [Variant('numpy', 'np.copyto(y, x)', 1, copyto, ALL,
                    is_copy=True),
            Variant('numpy', 'np.where(x >= 0, x, a*x)', 1, where,
                    ('f32', 'f16', 'f64'), allocates=True)]


def torch_variants(torch):
    def tensors(x, y, dtype):
        if dtype == 'bf16':
            return (torch.from_numpy(x.view(np.int16)).view(torch.bfloat16),
                    torch.from_numpy(y.view(np.int16)).view(torch.bfloat16))
        return torch.from_numpy(x), torch.from_numpy(y)

    def probe(xt):
        try:
            torch.nn.functional.leaky_relu(xt[:8], ALPHA)
        except RuntimeError as e:
            raise Unsupported(str(e).splitlines()[0]) from None

    def copy(x, y, dtype):
        xt, yt = tensors(x, y, dtype)
        return lambda call: yt.copy_(xt)

    def alloc(x, y, dtype):
        xt, _ = tensors(x, y, dtype)
        probe(xt)
        f = torch.nn.functional.leaky_relu
        return lambda call: f(xt, ALPHA)

    def out(x, y, dtype):
        xt, yt = tensors(x, y, dtype)
        probe(xt)
        f = torch._C._nn.leaky_relu
        return lambda call: f(xt, ALPHA, out=yt)

    def inplace(x, y, dtype):
        _, yt = tensors(x, y, dtype)
        probe(yt)
        f = torch.nn.functional.leaky_relu_
        return lambda call: f(yt, in_place_alpha(call))

    result = []
    for t in (1, 2):
        result += [
            Variant('PyTorch', 'y.copy_(x)', t, copy, ALL, is_copy=True),
            Variant('PyTorch', 'F.leaky_relu(x, a) (allocates y)', t, alloc,
                    ALL, allocates=True),
            Variant('PyTorch', 'leaky_relu(x, a, out=y)', t, out, ALL),
            Variant('PyTorch', 'F.leaky_relu_(y, a) in-place', t, inplace,
                    ALL, inplace=True),
        ]
    return result


def onnxruntime_variants(ort, onnx, on_new_threads):
    from onnx import TensorProto, helper

    onnx_types = {'f32': TensorProto.FLOAT, 'f16': TensorProto.FLOAT16,
                  'f64': TensorProto.DOUBLE, 'bf16': TensorProto.BFLOAT16}
    sessions = {}

    def session(dtype, threads):
        key = (dtype, threads)
        if key not in sessions:
            node = helper.make_node('LeakyRelu', ['X'], ['Y'], alpha=ALPHA)
            vx = helper.make_tensor_value_info('X', onnx_types[dtype], ['n'])
            vy = helper.make_tensor_value_info('Y', onnx_types[dtype], ['n'])
            graph = helper.make_graph([node], 'leaky_relu', [vx], [vy])
            model = helper.make_model(
                graph, opset_imports=[helper.make_opsetid('', 16)])
            so = ort.SessionOptions()
            so.intra_op_num_threads = threads
            so.inter_op_num_threads = 1
            so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            try:
                sessions[key] = ort.InferenceSession(
                    model.SerializeToString(), so,
                    providers=['CPUExecutionProvider'])
            except Exception as e:  # ORT raises its own exception types
                sessions[key] = Unsupported(str(e).splitlines()[0][:160])
            on_new_threads(f'onnxruntime {threads}T')
        s = sessions[key]
        if isinstance(s, Unsupported):
            raise s
        return s

    def bound(threads):
        def make(x, y, dtype):
            if dtype == 'bf16':
                raise Unsupported('no bfloat16 NumPy type to bind')
            s = session(dtype, threads)
            io = s.io_binding()
            np_type = NP_TYPES[dtype]
            io.bind_input('X', 'cpu', 0, np_type, [x.size], x.ctypes.data)
            io.bind_output('Y', 'cpu', 0, np_type, [y.size], y.ctypes.data)
            run = s.run_with_iobinding
            return lambda call: run(io)
        return make

    def plain_run(threads):
        def make(x, y, dtype):
            if dtype == 'bf16':
                raise Unsupported('no bfloat16 NumPy type to feed')
            s = session(dtype, threads)
            feed = {'X': x}
            return lambda call: s.run(None, feed)
        return make

    result = []
    for t in (1, 2):
        result += [
            Variant('ONNX Runtime', 'LeakyRelu, IOBinding into y', t,
                    bound(t), ALL),
            Variant('ONNX Runtime', 'LeakyRelu, run() (allocates y)', t,
                    plain_run(t), ALL, allocates=True),
        ]
    return result


def lrelu_variants(lrelu, torch):
    def make(threads, inplace):
        def f(x, y, dtype):
            if dtype == 'bf16':
                if torch is None:
                    raise Unsupported('bfloat16 goes through torch tensors')
                xt = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
                yt = torch.from_numpy(y.view(np.int16)).view(torch.bfloat16)
            else:
                xt, yt = x, y
            lr = lrelu.leaky_relu
            if inplace:
                return lambda call: lr(yt, in_place_alpha(call),
                                       threads=threads, out=yt)
            return lambda call: lr(xt, ALPHA, threads=threads, out=yt)
        return f

    result = []
    for t in (1, 2):
        result += [
            Variant('lrelu', 'lrelu.leaky_relu(x, a, out=y)', t,
                    make(t, False), ALL),
            Variant('lrelu', 'lrelu.leaky_relu(y, a, out=y) in-place', t,
                    make(t, True), ALL, inplace=True),
        ]
    return result
