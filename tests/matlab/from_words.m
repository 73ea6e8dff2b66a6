%FROM_WORDS The values of 32-bit words W as a column of class DTYPE
%   (double: two words each, low word first), as the JSON cases carry them.
function v = from_words(w, dtype)
v = typecast(uint32(w(:)'), dtype)';
end
