# Device backends and kernel-source emission (docs/gpu.md), included from
# src/CMakeLists.txt after lrelu_objects exists. Each device backend is
# optional: when it is not built, its not_built.cc gives the backend table
# (src/api/backends.cc) a row without plan(), for which the info calls and
# selection say "backend X is not built into this library".
#
# The backends' options are in their folders: src/opencl/backend.cmake
# (LRELU_WITH_OPENCL), src/cuda/backend.cmake (LRELU_WITH_CUDA,
# CMAKE_CUDA_ARCHITECTURES).
set(lrelu_gpu_dir ${CMAKE_CURRENT_LIST_DIR})
set(lrelu_src_dir ${lrelu_gpu_dir}/..)

# Kernel sources live in real files and are embedded at build time. The WGSL
# templates belong to the contract packages (contract/v1/metadata.json and
# contract/prelu/v1/metadata.json list their sha256), so the library renders
# the very files the packages ship.
set(lrelu_wgsl_dir ${PROJECT_SOURCE_DIR}/contract/v1)
set(lrelu_prelu_wgsl_dir ${PROJECT_SOURCE_DIR}/contract/prelu/v1)
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
  kWgslPrelu=${lrelu_prelu_wgsl_dir}/prelu.wgsl.jinja
  kWgslPreluF32=${lrelu_prelu_wgsl_dir}/prelu-f32.wgsl
  kWgslPreluF16=${lrelu_prelu_wgsl_dir}/prelu-f16.wgsl
  kWgslPreluVec4=${lrelu_prelu_wgsl_dir}/prelu-vec4.wgsl.jinja
  kWgslPreluVec4F32=${lrelu_prelu_wgsl_dir}/prelu-vec4-f32.wgsl
  kWgslPreluVec4F16=${lrelu_prelu_wgsl_dir}/prelu-vec4-f16.wgsl)
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
# imported targets) go to liblrelu. `summary` is the configure line's.
function(lrelu_backend_objects name summary)
  target_include_directories(${name} PRIVATE ${lrelu_src_dir}
                             ${PROJECT_SOURCE_DIR}/include)
  target_compile_definitions(${name} PRIVATE LRELU_BUILDING_SHARED)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  set(LRELU_EXTRA_OBJECTS ${LRELU_EXTRA_OBJECTS} ${name} PARENT_SCOPE)
  message(STATUS "lrelu: ${summary}")
endfunction()

# A backend not compiled in: its folder's not_built.cc gives the table row.
function(lrelu_backend_not_built folder label)
  target_sources(lrelu_objects PRIVATE ${lrelu_src_dir}/${folder}/not_built.cc)
  message(STATUS "lrelu: ${label} backend OFF")
endfunction()

# The device backends: every src/<backend>/backend.cmake (each declares its
# LRELU_WITH_<BACKEND> option and adds its objects, or its not_built.cc), so
# a new backend's build lives in its own folder.
file(GLOB lrelu_backend_cmakes ${lrelu_src_dir}/*/backend.cmake)
list(SORT lrelu_backend_cmakes)
foreach(backend_cmake IN LISTS lrelu_backend_cmakes)
  include(${backend_cmake})
endforeach()
