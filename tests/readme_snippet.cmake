# Fails unless README contains SNIPPET's text verbatim.
file(READ ${README} readme)
file(READ ${SNIPPET} snippet)
string(FIND "${readme}" "${snippet}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md does not contain ${SNIPPET} verbatim")
endif()
