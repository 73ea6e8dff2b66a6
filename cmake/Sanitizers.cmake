# LRELU_SANITIZE=address,undefined or thread: applied to every target.
if(LRELU_SANITIZE)
  add_compile_options(-fsanitize=${LRELU_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${LRELU_SANITIZE})
  # An instrumented build runs its tests on this machine only and compiles
  # fewer Highway targets (each one is a copy of every kernel; the Highway
  # files are most of a sanitizer build's compile time). Release builds keep
  # every target and test each one bit for bit.
  # - AVX3 where this CPU lacks AVX-512 (F, VL, DQ and BW): it could not run.
  # - SSSE3: SSE4's vectors are as wide, so its loads, stores and tails touch
  #   the same bytes, which is what ASan checks.
  # - Under TSan also SSE4: TSan checks the pools' hand-overs, which no
  #   target changes; the best target and the scalar one remain.
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND EXISTS /proc/cpuinfo)
    set(lrelu_hwy_disabled HWY_SSSE3)
    if(LRELU_SANITIZE MATCHES "thread")
      list(APPEND lrelu_hwy_disabled HWY_SSE4)
    endif()
    file(STRINGS /proc/cpuinfo lrelu_cpu_flags REGEX "^flags" LIMIT_COUNT 1)
    foreach(flag avx512f avx512vl avx512dq avx512bw)
      if(NOT lrelu_cpu_flags MATCHES " ${flag}( |$)")
        list(APPEND lrelu_hwy_disabled HWY_AVX3 HWY_AVX3_DL)
        break()
      endif()
    endforeach()
    list(JOIN lrelu_hwy_disabled "|" lrelu_hwy_disabled)
    message(STATUS "lrelu: the sanitizer build leaves out the Highway "
                   "targets ${lrelu_hwy_disabled}")
    add_compile_definitions("HWY_DISABLED_TARGETS=(${lrelu_hwy_disabled})")
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
