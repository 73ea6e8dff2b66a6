"""Times lrelu.jax.leaky_relu (and its gradient) under jax.jit next to the
plain jnp.where expression. Prints, asserts nothing. Numbers on a busy
machine are only indicative.

    PYTHONPATH=build/ci/python-jax .venv-jax/bin/python python/scripts/time_jax.py
"""
import timeit

import jax
import jax.numpy as jnp
import numpy as np

import lrelu.jax as lj


def best_ms(f, x, repeat=7, number=10):
    f(x).block_until_ready()
    times = timeit.repeat(lambda: f(x).block_until_ready(), repeat=repeat,
                          number=number)
    return 1e3 * min(times) / number


def main():
    alpha = 0.01
    forward = {
        "lrelu.jax.leaky_relu": jax.jit(lambda x: lj.leaky_relu(x, alpha)),
        "jnp.where(x < 0, alpha * x, x)": jax.jit(
            lambda x: jnp.where(x < 0, alpha * x, x)),
    }
    gradient = {
        "grad lrelu.jax": jax.jit(jax.grad(
            lambda x: lj.leaky_relu(x, alpha).sum())),
        "grad jnp.where": jax.jit(jax.grad(
            lambda x: jnp.where(x < 0, alpha * x, x).sum())),
    }
    print(f"jax {jax.__version__}, {jax.devices()[0]}")
    for dtype in (jnp.float32, jnp.bfloat16):
        for n in (1 << 16, 1 << 22):
            x = jnp.asarray(np.random.default_rng(0).standard_normal(n),
                            dtype)
            cells = [f"{name} {best_ms(f, x):.3f} ms"
                     for name, f in {**forward, **gradient}.items()]
            print(f"{jnp.dtype(dtype).name:8} n={n:>8}: " + " | ".join(cells))


if __name__ == "__main__":
    main()
