# The CUDA backend's build, included by src/gpu_common/gpu.cmake (which
# defines lrelu_backend_objects and lrelu_src_dir).
#
#   LRELU_WITH_CUDA    AUTO (default: if nvcc is found), ON, OFF
#   CMAKE_CUDA_ARCHITECTURES  default "80-real;90-real;90-virtual" (CUDA 13
#                      knows sm_75..sm_121; CMake's default and "native" fail
#                      on a machine without a GPU)
set(LRELU_WITH_CUDA AUTO CACHE STRING "Build the CUDA backend (AUTO, ON, OFF)")
set(LRELU_HAS_CUDA OFF)
if(NOT LRELU_WITH_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "80-real;90-real;90-virtual" CACHE STRING
        "CUDA architectures" FORCE)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(LRELU_HAS_CUDA ON)
  elseif(LRELU_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "LRELU_WITH_CUDA=ON but no CUDA compiler was found")
  endif()
endif()
set(LRELU_HAS_CUDA ${LRELU_HAS_CUDA} PARENT_SCOPE)
if(LRELU_HAS_CUDA)
  add_library(lrelu_cuda_objects OBJECT ${lrelu_src_dir}/cuda/backend.cu
    ${lrelu_src_dir}/cuda/prelu.cu)
  set_target_properties(lrelu_cuda_objects PROPERTIES CUDA_STANDARD 17
    CUDA_STANDARD_REQUIRED ON)
  # Contract v1: one correctly rounded multiply, denormals kept.
  target_compile_options(lrelu_cuda_objects PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-fmad=false -ftz=false -prec-div=true -prec-sqrt=true>)
  target_include_directories(lrelu_cuda_objects PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  # Static cudart (never -lcuda): liblrelu then loads on machines without
  # the NVIDIA driver and reports "no CUDA device" at run time.
  target_link_libraries(lrelu_cuda_objects PRIVATE
    ${CUDA_cudart_static_LIBRARY} Threads::Threads ${CMAKE_DL_LIBS} rt)
  lrelu_backend_objects(lrelu_cuda_objects
    "CUDA backend ON (architectures ${CMAKE_CUDA_ARCHITECTURES})")
else()
  lrelu_backend_not_built(cuda CUDA)
endif()
