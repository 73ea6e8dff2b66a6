# Compiler warnings for lrelu's own targets: lrelu_set_warnings(target).
function(lrelu_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow -Wconversion
                           -Wno-sign-conversion -Wnon-virtual-dtor)
    if(LRELU_WARNINGS_AS_ERRORS)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()
