function test_prelu(cases_file)
%TEST_PRELU lrelu.prelu and lrelu.prelu_backward against lrelu's oracle.
%   test_prelu(CASES_FILE): CASES_FILE is the JSON of make_prelu_cases.py
%   (X and alpha sizes under MATLAB's expansion, y and dx from the Python
%   oracle, dalpha the exact sum rounded once). Also: a scalar alpha is
%   lrelu.leakyrelu's bits, dX alone, every refused input by identifier.
%   Errors out (octave-cli exits 1) on any failure.
failures = {};
cases = jsondecode(fileread(cases_file));
for i = 1:numel(cases)
  c = cases(i);
  xs = c.x_size(:)';
  as = c.alpha_size(:)';
  x = reshape(from_words(c.x, c.class), xs);
  alpha = reshape(from_words(c.alpha, c.alpha_class), as);
  y = lrelu.prelu(x, alpha);
  if ~isequal(size(y), size(x)) || ~strcmp(class(y), c.class)
    failures{end+1} = [c.name ': y size or class'];
  end
  failures = check_bits(failures, [c.name ' y'], y, c.y, c.y_anynan, c.class);

  gx = reshape(from_words(c.gx, c.class), xs);
  gdy = reshape(from_words(c.gdy, c.class), xs);
  galpha = reshape(from_words(c.galpha, c.alpha_class), as);
  [dx, dalpha] = lrelu.prelu_backward(gdy, gx, galpha);
  failures = check_bits(failures, [c.name ' dx'], dx, c.dx, c.dx_anynan, ...
                        c.class);
  if ~isequal(size(dalpha), size(galpha)) || ...
     ~strcmp(class(dalpha), c.alpha_class)
    failures{end+1} = [c.name ': dalpha size or class'];
  end
  failures = check_bits(failures, [c.name ' dalpha'], dalpha, c.dalpha, ...
                        zeros(numel(galpha), 1), c.alpha_class);
  % One output: dX alone, the same bits.
  dx1 = lrelu.prelu_backward(gdy, gx, galpha);
  failures = check_bits(failures, [c.name ' dx alone'], dx1, c.dx, ...
                        c.dx_anynan, c.class);
end
fprintf('%d PReLU oracle cases checked\n', numel(cases));

% A scalar alpha is LeakyReLU, bit for bit; per channel of HxWxCxN data.
x = single(randn(8, 8, 3, 2) * 4);
y = lrelu.prelu(x, single(0.2));
want = lrelu.leakyrelu(x, 0.2);
if ~isequal(typecast(y(:), 'uint32'), typecast(want(:), 'uint32'))
  failures{end+1} = 'scalar alpha differs from lrelu.leakyrelu';
end
alpha = single(reshape([0.1 -0.5 2], 1, 1, 3));
y = lrelu.prelu(x, alpha);
for ch = 1:3
  want = lrelu.leakyrelu(x(:, :, ch, :), double(alpha(ch)));
  if ~isequal(typecast(reshape(y(:, :, ch, :), [], 1), 'uint32'), ...
              typecast(want(:), 'uint32'))
    failures{end+1} = sprintf('channel %d differs from lrelu.leakyrelu', ch);
  end
end

% Refused inputs, each with its identifier.
x = single(ones(2, 3));
bad = {
  'sizeMismatch', @() lrelu.prelu(x, single([1 2]))
  'sizeMismatch', @() lrelu.prelu(x, single(ones(2, 3, 2)))
  'sizeMismatch', @() lrelu.prelu(x, single(ones(1, 1, 2)))
  'classMismatch', @() lrelu.prelu(double(x), single(1))
  'unsupportedType', @() lrelu.prelu(x, int8(1))
  'unsupportedType', @() lrelu.prelu(int8(x), int8(1))
  'unsupportedType', @() lrelu.prelu(x, true)
  'complexInput', @() lrelu.prelu(x, single(1i))
  'sparseInput', @() lrelu.prelu(double(x), sparse(1))
  'notEnoughInputs', @() lrelu.prelu(x)
  'tooManyInputs', @() lrelu.prelu(x, 1, 2)
  'notEnoughInputs', @() lrelu.prelu_backward(x, x)
  'classMismatch', @() lrelu.prelu_backward(x, double(x), 1)
  'sizeMismatch', @() lrelu.prelu_backward(x, x', single(1))
  'sizeMismatch', @() lrelu.prelu_backward(x, x, single([1 2]))
};
for k = 1:rows(bad)
  failures = expect_error(failures, ['lrelu:prelu:' bad{k, 1}], bad{k, 2});
end
try
  [a, b] = lrelu.prelu(x, single(1)); %#ok<ASGLU>
  failures{end+1} = 'two outputs of lrelu.prelu accepted';
catch err
  if ~strcmp(err.identifier, 'lrelu:prelu:tooManyOutputs')
    failures{end+1} = ['two outputs: ' err.identifier];
  end
end
try
  [a, b, c] = lrelu.prelu_backward(x, x, single(1)); %#ok<ASGLU>
  failures{end+1} = 'three outputs of lrelu.prelu_backward accepted';
catch err
  if ~strcmp(err.identifier, 'lrelu:prelu:tooManyOutputs')
    failures{end+1} = ['three outputs: ' err.identifier];
  end
end

if ~isempty(failures)
  fprintf(2, 'FAILED: %s\n', failures{:});
  error('lrelu:test:failed', '%d failures', numel(failures));
end
fprintf('all PReLU MEX checks passed\n');
end
