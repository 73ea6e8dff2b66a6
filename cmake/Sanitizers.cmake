# LRELU_SANITIZE=address,undefined or thread: applied to every target.
if(LRELU_SANITIZE)
  add_compile_options(-fsanitize=${LRELU_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${LRELU_SANITIZE})
endif()
