%CHECK_BITS Appends a failure unless ACTUAL has the EXPECTED bits.
%   failures = check_bits(failures, name, actual, expected, anynan, dtype):
%   EXPECTED holds 32-bit words (double: low word, high word per value);
%   where ANYNAN is set, any NaN is right (a NaN the product makes).
function failures = check_bits(failures, name, actual, expected, anynan, dtype)
if strcmp(dtype, 'single')
  got = typecast(actual(:)', 'uint32')';
  want = uint32(expected(:));
else
  got = typecast(actual(:)', 'uint32')';
  want = uint32(expected(:));
  anynan = reshape(repmat(anynan(:)', 2, 1), [], 1);  % two words each
end
nan_ok = logical(anynan(:));
if strcmp(dtype, 'double')
  nan_at = reshape(repmat(isnan(actual(:))', 2, 1), [], 1);
else
  nan_at = isnan(actual(:));
end
wrong = (nan_ok & ~nan_at) | (~nan_ok & got ~= want);
if numel(got) ~= numel(want) || any(wrong)
  failures{end+1} = sprintf('%s: %d words differ', name, sum(wrong));
end
end
