# lrelu/_torch_ops.so: lrelu's torch operators (lrelu::leaky_relu, ...)
# compiled against libtorch, so that torch.ops.lrelu calls, TorchScript and
# traced graphs run C++ kernels rather than Python ones (torch 1.13 spends
# ~2.4 us entering a Python kernel). Built when libtorch's headers and
# libraries are found (Debian: libtorch-dev, which matches python3-torch).
# A libtorch is one exact ABI: next to the library, _torch_ops.libtorch
# names the libtorch_cpu it links, and lrelu.torch loads the library only
# into a process that has that very file mapped; elsewhere (a PyPI torch)
# lrelu.torch registers the same operators with Python kernels.
#   LRELU_BUILD_TORCH_OPS   AUTO (default: when libtorch is found), ON, OFF
set(LRELU_BUILD_TORCH_OPS AUTO CACHE STRING
    "Build lrelu's compiled torch operators (AUTO, ON, OFF)")
if(LRELU_BUILD_TORCH_OPS STREQUAL "OFF")
  return()
endif()

find_path(LRELU_TORCH_INCLUDE_DIR torch/library.h
          DOC "Directory holding libtorch's torch/library.h")
find_library(LRELU_LIBTORCH_CPU torch_cpu DOC "libtorch_cpu")
find_library(LRELU_LIBC10 c10 DOC "libc10")
if(NOT LRELU_TORCH_INCLUDE_DIR OR NOT LRELU_LIBTORCH_CPU OR NOT LRELU_LIBC10)
  if(LRELU_BUILD_TORCH_OPS STREQUAL "ON")
    message(FATAL_ERROR "LRELU_BUILD_TORCH_OPS=ON but libtorch's headers or "
                        "libraries were not found (Debian: libtorch-dev)")
  endif()
  message(STATUS "lrelu: libtorch not found: lrelu.torch uses Python kernels")
  return()
endif()

add_library(lrelu_torch_ops MODULE
  src/torch_ops/autograd.cc
  src/torch_ops/kernels.cc
  src/torch_ops/library.cc
)
target_include_directories(lrelu_torch_ops SYSTEM PRIVATE
                           ${LRELU_TORCH_INCLUDE_DIR})
target_include_directories(lrelu_torch_ops PRIVATE
                           ${CMAKE_CURRENT_SOURCE_DIR}/src
                           ${PROJECT_SOURCE_DIR}/include)
target_link_libraries(lrelu_torch_ops PRIVATE ${LRELU_LIBTORCH_CPU}
                      ${LRELU_LIBC10})
target_compile_features(lrelu_torch_ops PRIVATE cxx_std_17)
lrelu_set_warnings(lrelu_torch_ops)
set_target_properties(lrelu_torch_ops PROPERTIES
  OUTPUT_NAME _torch_ops PREFIX ""
  CXX_VISIBILITY_PRESET hidden
  LIBRARY_OUTPUT_DIRECTORY ${LRELU_PYTHON_PACKAGE_DIR})
file(REAL_PATH ${LRELU_LIBTORCH_CPU} lrelu_libtorch_cpu_file)
file(WRITE ${LRELU_PYTHON_PACKAGE_DIR}/_torch_ops.libtorch
     "${lrelu_libtorch_cpu_file}\n")
message(STATUS "lrelu: torch operators compiled against "
               "${lrelu_libtorch_cpu_file}")

if(SKBUILD)
  set_target_properties(lrelu_torch_ops PROPERTIES INSTALL_RPATH "")
  install(TARGETS lrelu_torch_ops LIBRARY DESTINATION lrelu COMPONENT python)
  install(FILES ${LRELU_PYTHON_PACKAGE_DIR}/_torch_ops.libtorch
          DESTINATION lrelu COMPONENT python)
endif()
