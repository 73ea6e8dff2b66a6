# Runs PROGRAM (with the optional argument ARG) and passes only when it exits
# with status 0 AND its standard output matches the regular expression
# EXPECT. ctest's PASS_REGULAR_EXPRESSION alone ignores the exit status, so a
# script that printed the right line and then failed would pass.
#   cmake -DPROGRAM=... [-DARG=...] -DEXPECT=... -P run_and_match.cmake
if(NOT DEFINED PROGRAM OR NOT DEFINED EXPECT)
  message(FATAL_ERROR "usage: -DPROGRAM=... [-DARG=...] -DEXPECT=... -P run_and_match.cmake")
endif()
set(command ${PROGRAM})
if(DEFINED ARG)
  list(APPEND command ${ARG})
endif()
execute_process(COMMAND ${command}
                RESULT_VARIABLE status
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT status STREQUAL "0")
  message(FATAL_ERROR "${PROGRAM} ${ARG} exited with status ${status}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "the output of ${PROGRAM} does not match '${EXPECT}'")
endif()
