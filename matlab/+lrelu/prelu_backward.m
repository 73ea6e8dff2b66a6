%PRELU_BACKWARD Gradient of lrelu.prelu, bit for bit (ai.onnx.PRelu v1).
%   [dX, dalpha] = lrelu.prelu_backward(dY, X, alpha) returns
%     dX     = alpha.*dY where X < 0, else dY (elementwise, alpha expanded
%              to X as in lrelu.prelu), the class and size of dY;
%     dalpha = the sum of X.*dY over the elements where X < 0, along the
%              dimensions alpha is expanded over, the class and size of
%              alpha: correctly rounded (the exact sum of the exact
%              products, rounded once to nearest even), so it is the same
%              on every machine and thread count. An exact sum beyond the
%              class's range is +-Inf; NaN or Inf products of both signs
%              give NaN; an exact zero is +0.
%   dX = lrelu.prelu_backward(dY, X, alpha) skips dalpha's sum.
%
%   dY and X have the same class and size; alpha as for lrelu.prelu.
%   Errors: as lrelu.prelu's, and classMismatch / sizeMismatch for dY.
%
%   Example:
%     X = randn(5, 3); alpha = [0.1; 0.2; 0.3; 0.4; 0.5];   % per row
%     [dX, dalpha] = lrelu.prelu_backward(ones(5, 3), X, alpha)
%
%   See also lrelu.prelu.
function [dX, dalpha] = prelu_backward(varargin) %#ok<STOUT,INUSD>
error('lrelu:prelu:notBuilt', ...
      'lrelu.prelu_backward: the MEX file is missing; build it (docs/matlab.md)');
end
