function test_leakyrelu(cases_file, example_file)
%TEST_LEAKYRELU The MEX gateway against lrelu's oracle, bit for bit.
%   test_leakyrelu(CASES_FILE, EXAMPLE_FILE): CASES_FILE is the JSON of
%   make_oracle_cases.py (contract cases, float32 specials, expected bits
%   from the Python oracle); EXAMPLE_FILE the README's example. Also N-D
%   sizes, empty arrays, ranges, scale factor classes, every refused input
%   (by identifier), and a printed (not asserted) speed comparison with
%   max(X,0) + s*min(X,0). Errors out (octave-cli exits 1) on any failure.
failures = {};
cases = jsondecode(fileread(cases_file));
for i = 1:numel(cases)
  c = cases(i);
  alpha = typecast(uint32(c.alpha(:)'), 'double');
  x = from_words(c.x, c.dtype);
  if strcmp(c.op, 'forward')
    actual = lrelu.leakyrelu(x, alpha);
  else
    actual = lrelu.leakyrelu_backward(from_words(c.dy, c.dtype), x, alpha);
  end
  failures = check_bits(failures, c.name, actual, c.expected, c.anynan, ...
                        c.dtype);
end
fprintf('%d oracle groups checked\n', numel(cases));

% The default scale factor is 0.01, and a scale factor of any numeric class
% means its value.
seed = find_case(cases, 'forward/float32/seed/example');
y = lrelu.leakyrelu(from_words(seed.x, 'single'));
failures = check_bits(failures, 'default scaleFactor', y, seed.expected, ...
                      seed.anynan, 'single');
x = single([-3 -1.5 0 2]);
for s = {0.2, single(0.2), int8(-1), uint16(3)}
  want = lrelu.leakyrelu(x, double(s{1}));
  got = lrelu.leakyrelu(x, s{1});
  if ~isequal(typecast(got, 'uint32'), typecast(want, 'uint32'))
    failures{end+1} = sprintf('scaleFactor of class %s', class(s{1}));
  end
end

% The README example, run as written: its y is the seed case.
run(example_file);
failures = check_bits(failures, 'README example', y, seed.expected, ...
                      seed.anynan, 'single');

% N-D sizes (and empty) keep size and class; values match the flat call.
sizes = {[1 1], [0 0], [0 3], [3 0 2], [1 7], [7 1], [4 5 6], ...
         [2 3 4 5], [2 1 3 1 2], [250 400 2]};
for k = 1:numel(sizes)
  for cls = {'single', 'double'}
    x = cast(randn(sizes{k}) * 4, cls{1});
    y = lrelu.leakyrelu(x, 0.2);
    flat = lrelu.leakyrelu(x(:), 0.2);
    if ~isequal(size(y), size(x)) || ~strcmp(class(y), cls{1}) || ...
       ~isequal(y(:), flat)
      failures{end+1} = sprintf('size %s %s', mat2str(sizes{k}), cls{1});
    end
    dx = lrelu.leakyrelu_backward(ones(size(x), cls{1}), x, 0.2);
    if ~isequal(size(dx), size(x)) || ~strcmp(class(dx), cls{1})
      failures{end+1} = sprintf('gradient size %s %s', mat2str(sizes{k}), ...
                                cls{1});
    end
  end
end
% A range (Octave stores -1:1 lazily) is read like the matrix it stands for.
if ~isequal(lrelu.leakyrelu(-1:1, 0.5), lrelu.leakyrelu([-1 0 1], 0.5))
  failures{end+1} = 'range input';
end

% Refused inputs, each with its identifier.
bad = {
  'unsupportedType', @() lrelu.leakyrelu(int8([1 -1]))
  'unsupportedType', @() lrelu.leakyrelu(uint32(1))
  'unsupportedType', @() lrelu.leakyrelu(true)
  'unsupportedType', @() lrelu.leakyrelu('abc')
  'unsupportedType', @() lrelu.leakyrelu({1})
  'unsupportedType', @() lrelu.leakyrelu(struct('a', 1))
  'complexInput', @() lrelu.leakyrelu([1+2i -1])
  'complexInput', @() lrelu.leakyrelu(single(1i))
  'sparseInput', @() lrelu.leakyrelu(sparse([1 -1]))
  'invalidScaleFactor', @() lrelu.leakyrelu(1, [0.1 0.2])
  'invalidScaleFactor', @() lrelu.leakyrelu(1, [])
  'invalidScaleFactor', @() lrelu.leakyrelu(1, 'a')
  'invalidScaleFactor', @() lrelu.leakyrelu(1, true)
  'invalidScaleFactor', @() lrelu.leakyrelu(1, 1i)
  'invalidScaleFactor', @() lrelu.leakyrelu(1, {0.1})
  'invalidScaleFactor', @() lrelu.leakyrelu(1, sparse(0.1))
  'notEnoughInputs', @() lrelu.leakyrelu()
  'tooManyInputs', @() lrelu.leakyrelu(1, 0.1, 3)
  'notEnoughInputs', @() lrelu.leakyrelu_backward(1, 1)
  'tooManyInputs', @() lrelu.leakyrelu_backward(1, 1, 0.1, 4)
  'classMismatch', @() lrelu.leakyrelu_backward(single(1), 1, 0.1)
  'sizeMismatch', @() lrelu.leakyrelu_backward([1 2], [1; 2], 0.1)
  'sizeMismatch', @() lrelu.leakyrelu_backward(ones(2, 2), ones(2, 2, 2), 0.1)
  'unsupportedType', @() lrelu.leakyrelu_backward(int8(1), int8(1), 0.1)
  'invalidScaleFactor', @() lrelu.leakyrelu_backward(1, 1, [1 2])
};
for k = 1:rows(bad)
  failures = expect_error(failures, ['lrelu:leakyrelu:' bad{k, 1}], bad{k, 2});
end
try
  [a, b] = lrelu.leakyrelu(1); %#ok<ASGLU>
  failures{end+1} = 'two outputs accepted';
catch err
  if ~strcmp(err.identifier, 'lrelu:leakyrelu:tooManyOutputs')
    failures{end+1} = ['two outputs: ' err.identifier];
  end
end

% Speed next to the plain expression (printed, not asserted).
for cls = {'single', 'double'}
  x = cast(randn(1, 4e6), cls{1});
  s = 0.01;
  tic; for r = 1:10, y1 = lrelu.leakyrelu(x, s); end; t_mex = toc / 10;
  tic; for r = 1:10, y2 = max(x, 0) + s * min(x, 0); end; t_expr = toc / 10;
  fprintf(['%s, %d elements: lrelu.leakyrelu %.2f ms, ' ...
           'max(X,0) + s*min(X,0) %.2f ms\n'], cls{1}, numel(x), ...
          1e3 * t_mex, 1e3 * t_expr);
end

if ~isempty(failures)
  fprintf(2, 'FAILED: %s\n', failures{:});
  error('lrelu:test:failed', '%d failures', numel(failures));
end
fprintf('all MEX checks passed\n');
end

function c = find_case(cases, name)
c = cases(strcmp({cases.name}, name));
end
