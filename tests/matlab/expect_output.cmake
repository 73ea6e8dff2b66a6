# Runs COMMAND (a list); fails unless it exits 0 and its output matches the
# regular expression EXPECT.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "exit status ${status}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "output does not match: ${EXPECT}")
endif()
