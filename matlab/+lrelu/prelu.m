%PRELU Parametric rectified linear unit, bit for bit (lrelu, ai.onnx.PRelu v1).
%   Y = lrelu.prelu(X, alpha) computes Y = X where X >= 0 (and where X is
%   NaN) and alpha.*X where X < 0, elementwise, with alpha expanded to X as
%   implicit expansion does (alpha only): each dimension of alpha is 1 or
%   X's. Per channel for H-by-W-by-C-by-N data: alpha of size 1x1xC; for
%   C-by-N features: C-by-1.
%
%   X is a real, full single or double array of any size (empty too); Y has
%   the class and size of X. alpha has X's class, or is double for single X
%   (each value then rounded to single once). single computes in single
%   precision (one multiply, rounded to nearest even), double in double.
%   +0, -0, Inf and every NaN of X pass through unchanged; no flush to
%   zero. Large arrays are split over lrelu's worker threads.
%
%   Errors (identifier lrelu:prelu:...): unsupportedType, complexInput,
%   sparseInput (X or alpha), classMismatch, sizeMismatch (alpha does not
%   expand to X), notEnoughInputs, tooManyInputs, tooManyOutputs.
%
%   This file holds the help text; the function is the MEX file next to it,
%   built from lrelu's sources (docs/matlab.md).
%
%   Example:
%     X = single(randn(4, 4, 3, 2));          % H x W x C x N
%     alpha = single(reshape([0.1 0.2 0.3], 1, 1, 3));
%     Y = lrelu.prelu(X, alpha)
%
%   See also lrelu.prelu_backward, lrelu.leakyrelu.
function Y = prelu(varargin) %#ok<STOUT,INUSD>
error('lrelu:prelu:notBuilt', ...
      'lrelu.prelu: the MEX file is missing; build it (docs/matlab.md)');
end
