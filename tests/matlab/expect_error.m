%EXPECT_ERROR Appends a failure unless F() raises the error identifier ID.
function failures = expect_error(failures, id, f)
try
  f();
  failures{end+1} = sprintf('no error, expected %s', id);
catch err
  if ~strcmp(err.identifier, id)
    failures{end+1} = sprintf('expected %s, got %s (%s)', id, ...
                              err.identifier, err.message);
  end
end
end
