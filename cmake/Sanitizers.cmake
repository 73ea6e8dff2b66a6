# LRELU_SANITIZE=address,undefined or thread: applied to every target.
if(LRELU_SANITIZE)
  add_compile_options(-fsanitize=${LRELU_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${LRELU_SANITIZE})
  # An instrumented build runs its tests on this machine only, so SIMD code
  # this CPU cannot run is compiled for nothing: without AVX-512 (Highway's
  # AVX3 needs F, VL, DQ and BW) the AVX3 target is left out, which is a
  # quarter of the Highway files' compile time under ASan. Release builds
  # keep every target.
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND EXISTS /proc/cpuinfo)
    file(STRINGS /proc/cpuinfo lrelu_cpu_flags REGEX "^flags" LIMIT_COUNT 1)
    set(lrelu_avx3 TRUE)
    foreach(flag avx512f avx512vl avx512dq avx512bw)
      if(NOT lrelu_cpu_flags MATCHES " ${flag}( |$)")
        set(lrelu_avx3 FALSE)
      endif()
    endforeach()
    if(NOT lrelu_avx3)
      message(STATUS "lrelu: no AVX-512 here: the sanitizer build leaves "
                     "out the AVX3 target")
      add_compile_definitions("HWY_DISABLED_TARGETS=(HWY_AVX3|HWY_AVX3_DL)")
    endif()
  endif()
endif()

# Highway kernel sources (many inlined targets per function): no
# use-after-scope poisoning under ASan, which multiplies their compile time
# (src/CMakeLists.txt). Called from the directory that owns the sources.
function(lrelu_simd_sources_under_asan)
  if(LRELU_SANITIZE MATCHES "address")
    set_property(SOURCE ${ARGN} APPEND PROPERTY
      COMPILE_OPTIONS -fno-sanitize-address-use-after-scope)
  endif()
endfunction()
