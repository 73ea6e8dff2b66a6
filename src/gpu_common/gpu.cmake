# Device backends and kernel-source emission (docs/gpu.md), included from
# src/CMakeLists.txt after lrelu_objects exists. Each device backend is
# optional: when it is not built, its not_built.cc gives the backend table
# (src/api/backends.cc) a row without plan(), for which the info calls and
# selection say "backend X is not built into this library".
#
#   LRELU_WITH_OPENCL  AUTO (default: if find_package(OpenCL) finds it), ON, OFF
#   LRELU_WITH_CUDA    AUTO (default: if nvcc is found), ON, OFF
#   CMAKE_CUDA_ARCHITECTURES  default "80-real;90-real;90-virtual" (CUDA 13
#                      knows sm_75..sm_121; CMake's default and "native" fail
#                      on a machine without a GPU)
set(LRELU_WITH_OPENCL AUTO CACHE STRING "Build the OpenCL backend (AUTO, ON, OFF)")
set(LRELU_WITH_CUDA AUTO CACHE STRING "Build the CUDA backend (AUTO, ON, OFF)")
set(lrelu_gpu_dir ${CMAKE_CURRENT_LIST_DIR})
set(lrelu_src_dir ${lrelu_gpu_dir}/..)

# Kernel sources live in real files and are embedded at build time. The WGSL
# templates belong to the contract package (contract/v1/metadata.json lists
# their sha256), so the library renders the very files the package ships.
set(lrelu_wgsl_dir ${PROJECT_SOURCE_DIR}/contract/v1)
set(lrelu_embedded
  kOpenClSource=${lrelu_src_dir}/opencl/lrelu.cl
  kOpenClPreluSource=${lrelu_src_dir}/opencl/prelu.cl
  kCudaKernels=${lrelu_src_dir}/cuda/kernels.cuh
  kWgslScalar=${lrelu_wgsl_dir}/unary-scalar.wgsl.jinja
  kWgslVec4=${lrelu_wgsl_dir}/unary-vec4.wgsl.jinja
  kWgslMultiplyF32=${lrelu_wgsl_dir}/multiply-f32.wgsl
  kWgslHelpersF32=${lrelu_wgsl_dir}/helpers-f32.wgsl
  kWgslHelpersF16=${lrelu_wgsl_dir}/helpers-f16.wgsl
  kCudaPreluKernels=${lrelu_src_dir}/cuda/prelu_kernels.cuh
  kWgslPrelu=${lrelu_gpu_dir}/prelu.wgsl.jinja
  kWgslPreluF32=${lrelu_gpu_dir}/prelu-f32.wgsl
  kWgslPreluF16=${lrelu_gpu_dir}/prelu-f16.wgsl)
set(lrelu_embedded_files)
foreach(entry IN LISTS lrelu_embedded)
  string(REGEX REPLACE "^[^=]*=" "" path "${entry}")
  list(APPEND lrelu_embedded_files ${path})
endforeach()
string(REPLACE ";" "," lrelu_embedded_arg "${lrelu_embedded}")
set(lrelu_gpu_sources_cc ${CMAKE_CURRENT_BINARY_DIR}/gpu_sources.cc)
add_custom_command(
  OUTPUT ${lrelu_gpu_sources_cc}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${lrelu_gpu_sources_cc}
          -DENTRIES=${lrelu_embedded_arg} -P ${lrelu_gpu_dir}/embed_text.cmake
  DEPENDS ${lrelu_embedded_files} ${lrelu_gpu_dir}/embed_text.cmake
  COMMENT "Embedding OpenCL, CUDA and WGSL kernel sources"
  VERBATIM)
target_sources(lrelu_objects PRIVATE
  ${lrelu_gpu_dir}/device_checks.cc
  ${lrelu_gpu_dir}/kernel_source.cc
  ${lrelu_gpu_sources_cc})

# A device backend is an OBJECT library added to LRELU_EXTRA_OBJECTS; its
# link libraries (plain file paths, so the installed export needs no extra
# imported targets) go to liblrelu.
function(lrelu_backend_objects name)
  target_include_directories(${name} PRIVATE ${lrelu_src_dir}
                             ${PROJECT_SOURCE_DIR}/include)
  target_compile_definitions(${name} PRIVATE LRELU_BUILDING_SHARED)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
endfunction()

# ---- OpenCL
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
  lrelu_backend_objects(lrelu_opencl_objects)
  target_include_directories(lrelu_opencl_objects PRIVATE ${OpenCL_INCLUDE_DIRS})
  # libOpenCL.so.1 is opened at run time (opencl/loader.cc), only when a
  # caller asks for the OpenCL backend: liblrelu does not link it.
  target_link_libraries(lrelu_opencl_objects PRIVATE ${CMAKE_DL_LIBS})
  lrelu_set_warnings(lrelu_opencl_objects)
  list(APPEND LRELU_EXTRA_OBJECTS lrelu_opencl_objects)
  message(STATUS "lrelu: OpenCL backend ON (${OpenCL_LIBRARIES})")
else()
  target_sources(lrelu_objects PRIVATE ${lrelu_src_dir}/opencl/not_built.cc)
  message(STATUS "lrelu: OpenCL backend OFF")
endif()

# ---- CUDA
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
set(LRELU_HAS_OPENCL ${LRELU_HAS_OPENCL} PARENT_SCOPE)
if(LRELU_HAS_CUDA)
  add_library(lrelu_cuda_objects OBJECT ${lrelu_src_dir}/cuda/backend.cu
    ${lrelu_src_dir}/cuda/prelu.cu)
  lrelu_backend_objects(lrelu_cuda_objects)
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
  list(APPEND LRELU_EXTRA_OBJECTS lrelu_cuda_objects)
  message(STATUS "lrelu: CUDA backend ON (architectures ${CMAKE_CUDA_ARCHITECTURES})")
else()
  target_sources(lrelu_objects PRIVATE ${lrelu_src_dir}/cuda/not_built.cc)
  message(STATUS "lrelu: CUDA backend OFF")
endif()
