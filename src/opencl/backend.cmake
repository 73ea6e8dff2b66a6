# The OpenCL backend's build, included by src/gpu_common/gpu.cmake (which
# defines lrelu_backend_objects and lrelu_src_dir).
#
#   LRELU_WITH_OPENCL  AUTO (default: if find_package(OpenCL) finds it), ON, OFF
set(LRELU_WITH_OPENCL AUTO CACHE STRING "Build the OpenCL backend (AUTO, ON, OFF)")
set(LRELU_HAS_OPENCL OFF)
if(NOT LRELU_WITH_OPENCL STREQUAL "OFF")
  if(LRELU_WITH_OPENCL STREQUAL "ON")
    find_package(OpenCL REQUIRED)
  else()
    find_package(OpenCL QUIET)
  endif()
  if(OpenCL_FOUND)
    set(LRELU_HAS_OPENCL ON)
  endif()
endif()
if(LRELU_HAS_OPENCL)
  add_library(lrelu_opencl_objects OBJECT
    ${lrelu_src_dir}/opencl/backend.cc ${lrelu_src_dir}/opencl/runtime.cc
    ${lrelu_src_dir}/opencl/loader.cc ${lrelu_src_dir}/opencl/prelu.cc)
  target_include_directories(lrelu_opencl_objects PRIVATE ${OpenCL_INCLUDE_DIRS})
  # libOpenCL.so.1 is opened at run time (opencl/loader.cc), only when a
  # caller asks for the OpenCL backend: liblrelu does not link it.
  target_link_libraries(lrelu_opencl_objects PRIVATE ${CMAKE_DL_LIBS})
  lrelu_set_warnings(lrelu_opencl_objects)
  lrelu_backend_objects(lrelu_opencl_objects
                        "OpenCL backend ON (${OpenCL_LIBRARIES})")
else()
  lrelu_backend_not_built(opencl OpenCL)
endif()

set(LRELU_HAS_OPENCL ${LRELU_HAS_OPENCL} PARENT_SCOPE)
