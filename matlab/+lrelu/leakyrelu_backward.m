%LEAKYRELU_BACKWARD Gradient of lrelu.leakyrelu, bit for bit (contract v1).
%   dX = lrelu.leakyrelu_backward(dY, X, scaleFactor) computes
%   dX = scaleFactor*dY where X < 0 and dY elsewhere, elementwise: the
%   gradient of the loss with respect to X, given its gradient dY with
%   respect to Y = lrelu.leakyrelu(X, scaleFactor).
%
%   dY and X are real, full arrays of the same class (single or double) and
%   size; scaleFactor is a real numeric scalar. Errors as lrelu.leakyrelu,
%   plus lrelu:leakyrelu:classMismatch and lrelu:leakyrelu:sizeMismatch.
%
%   Example:
%     dx = lrelu.leakyrelu_backward(ones(1, 3), [-1 0 1], 0.2)
%
%   See also lrelu.leakyrelu.
function dX = leakyrelu_backward(varargin) %#ok<STOUT,INUSD>
error('lrelu:leakyrelu:notBuilt', ...
      'lrelu.leakyrelu_backward: the MEX file is missing; build it (docs/matlab.md)');
end
