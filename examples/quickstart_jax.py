import jax
import jax.numpy as jnp
import lrelu.jax

x = jnp.array([-2.0, -1.0, 0.0, 1.0, 2.0], jnp.float32)
y = lrelu.jax.leaky_relu(x)  # alpha = 0.01
grad = jax.jit(jax.grad(lambda x: lrelu.jax.leaky_relu(x, 0.2).sum()))
dx = grad(x)
batched = jax.vmap(grad)(jnp.stack([x, -x]))
print(y)        # [-0.02 -0.01  0.    1.    2.  ]
print(dx)       # [0.2 0.2 1.  1.  1. ]
print(batched)  # [[0.2 0.2 1.  1.  1. ] [1.  1.  1.  0.2 0.2]]
