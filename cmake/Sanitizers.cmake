# LRELU_SANITIZE=address,undefined or thread: applied to every target.
if(LRELU_SANITIZE)
  add_compile_options(-fsanitize=${LRELU_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${LRELU_SANITIZE})
endif()

# Highway kernel sources (many inlined targets per function): no
# use-after-scope poisoning under ASan, which multiplies their compile time
# (src/CMakeLists.txt). Called from the directory that owns the sources.
function(lrelu_simd_sources_under_asan)
  if(LRELU_SANITIZE MATCHES "address")
    set_source_files_properties(${ARGN} PROPERTIES
      COMPILE_OPTIONS -fno-sanitize-address-use-after-scope)
  endif()
endfunction()
