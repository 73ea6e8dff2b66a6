import numpy as np
import torch

import lrelu

# NumPy: a real ufunc, so out=, where= and broadcasting work as usual.
x = np.array([-2.0, -1.0, 0.0, 1.0, 2.0], dtype=np.float32)
print(lrelu.leaky_relu(x))                 # [-0.02 -0.01  0.    1.    2.  ]
print(lrelu.leaky_relu(np.float32(-3.0), 0.2))

# torch: read in place (zero copy), a torch tensor comes back.
t = torch.linspace(-1, 1, 5, dtype=torch.float64, requires_grad=True)
layer = lrelu.torch.LeakyReLU(negative_slope=0.2)
layer(t).sum().backward()
print(t.grad)                              # 0.2 where t < 0, else 1
