% lrelu.leakyrelu in MATLAB or GNU Octave (the +lrelu folder on the path).
y = lrelu.leakyrelu(single([-2 -1 0 1 2]))          % scaleFactor 0.01
z = lrelu.leakyrelu(randn(2, 3, 4), 0.2);           % any size, double
dx = lrelu.leakyrelu_backward(ones(1, 3), [-1 0 1], 0.2)
