%LEAKYRELU Leaky rectified linear unit, bit for bit (lrelu contract v1).
%   Y = lrelu.leakyrelu(X) computes Y = X where X >= 0 (and where X is NaN)
%   and 0.01*X where X < 0, elementwise.
%
%   Y = lrelu.leakyrelu(X, scaleFactor) uses scaleFactor instead of 0.01.
%
%   X is a real, full single or double array of any size (empty too); Y has
%   the class and size of X. scaleFactor is a real numeric scalar. single
%   computes in single precision with scaleFactor rounded to single once;
%   double in double. +0, -0, Inf and every NaN pass through unchanged; no
%   flush to zero. Large arrays are split over lrelu's worker threads.
%
%   Errors (identifier lrelu:leakyrelu:...): unsupportedType (integer,
%   logical, char, cell, struct X), complexInput, sparseInput,
%   invalidScaleFactor, notEnoughInputs, tooManyInputs, tooManyOutputs.
%
%   The package name keeps this apart from the Deep Learning Toolbox's
%   leakyrelu (for dlarray). This file holds the help text; the function is
%   the MEX file next to it, built from lrelu's sources (docs/matlab.md).
%
%   Example:
%     y = lrelu.leakyrelu(single([-2 -1 0 1 2]))
%     y = lrelu.leakyrelu([-3 3], 0.2)
%
%   See also lrelu.leakyrelu_backward.
function Y = leakyrelu(varargin) %#ok<STOUT,INUSD>
error('lrelu:leakyrelu:notBuilt', ...
      'lrelu.leakyrelu: the MEX file is missing; build it (docs/matlab.md)');
end
