"""What the WGSL tests (wgsl_test.py, wgsl_prelu_test.py) share around
their runners: the module fixture, one dispatch over a 2-D grid, and the
entry point ctest calls."""
import numpy as np
import pytest


def runner_fixture(make_runner):
    """A module-scoped pytest fixture `runner`: make_runner(), or the tests
    skipped where it fails (no wgpu, no adapter)."""
    @pytest.fixture(scope="module")
    def runner():
        try:
            return make_runner()
        except Exception as e:  # no wgpu, no adapter
            pytest.skip(f"no WebGPU: {e}")
    return runner


def dispatch(device, pipeline, group, units, workgroup, out, dtype):
    """Runs `pipeline` with bind group 0 = `group` over `units` invocations
    (more than 65535 workgroups use the grid's y dimension) and returns the
    buffer `out` read back as `dtype`."""
    groups = -(-units // workgroup)
    gx = min(groups, 65535)
    gy = -(-groups // gx)
    encoder = device.create_command_encoder()
    compute = encoder.begin_compute_pass()
    compute.set_pipeline(pipeline)
    compute.set_bind_group(0, group)
    compute.dispatch_workgroups(gx, gy, 1)
    compute.end()
    device.queue.submit([encoder.finish()])
    return np.frombuffer(device.queue.read_buffer(out), dtype=dtype)


def main(name, test_file, make_runner):
    """ctest's entry: 77 (skipped) without a WebGPU adapter, else pytest on
    test_file."""
    try:
        runner = make_runner()
    except Exception as e:
        print(f"{name}: skipped: no WebGPU ({e})")
        return 77
    print(f"{name}: adapter {runner.adapter.info['device']} "
          f"({runner.adapter.info['backend_type']})")
    del runner
    return pytest.main([test_file, "-q", "-p", "no:cacheprovider"])
