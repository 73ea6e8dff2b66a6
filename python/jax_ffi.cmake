# lrelu._jax_ffi: the XLA FFI handlers behind lrelu.jax (docs/jax.md). XLA's
# FFI headers ship in PyPI's jaxlib (jax.ffi.include_dir()) and are never
# vendored: they are taken from the jaxlib of LRELU_JAX_PYTHON, or from
# LRELU_JAX_INCLUDE_DIR.
#   LRELU_BUILD_JAX    AUTO (default: when the headers are found), ON, OFF
#   LRELU_JAX_PYTHON   interpreter with jaxlib. Default: Python_EXECUTABLE
#     when it has jaxlib (a wheel build: pyproject.toml puts jaxlib in the
#     build environment), else the project's .venv-jax
#     (scripts/setup-jax-python.sh). When it is not Python_EXECUTABLE, a
#     second copy of the package is built for it in <build>/python-jax/lrelu,
#     its _lrelu compiled against that interpreter's NumPy (JAX needs NumPy 2;
#     .venv has Debian's 1.24) and linked with the same static library.
set(LRELU_BUILD_JAX AUTO CACHE STRING
    "Build the XLA FFI handlers for lrelu.jax (AUTO, ON, OFF)")
set(LRELU_JAX_INCLUDE_DIR "" CACHE PATH
    "Directory holding xla/ffi/api/ffi.h (default: jaxlib's include dir)")
if(LRELU_BUILD_JAX STREQUAL "OFF")
  return()
endif()

# jaxlib's include directory for an interpreter, or "" ("find_spec" reads the
# package's location without importing it: jaxlib's import needs SciPy).
function(lrelu_jaxlib_include python out)
  execute_process(
    COMMAND ${python} -c
      "import importlib.util, os; s = importlib.util.find_spec('jaxlib'); print(os.path.join(list(s.submodule_search_locations)[0], 'include') if s else '')"
    OUTPUT_VARIABLE dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(dir AND NOT EXISTS "${dir}/xla/ffi/api/ffi.h")
    set(dir "")
  endif()
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()

if(NOT LRELU_JAX_PYTHON)
  lrelu_jaxlib_include(${Python_EXECUTABLE} own_jaxlib)
  if(own_jaxlib)
    set(LRELU_JAX_PYTHON ${Python_EXECUTABLE})
  elseif(EXISTS ${PROJECT_SOURCE_DIR}/.venv-jax/bin/python)
    set(LRELU_JAX_PYTHON ${PROJECT_SOURCE_DIR}/.venv-jax/bin/python)
  endif()
endif()
set(LRELU_JAX_PYTHON "${LRELU_JAX_PYTHON}" CACHE FILEPATH
    "Python with jaxlib that lrelu.jax is built for")
set(lrelu_jax_include "${LRELU_JAX_INCLUDE_DIR}")
if(NOT lrelu_jax_include AND LRELU_JAX_PYTHON)
  lrelu_jaxlib_include(${LRELU_JAX_PYTHON} lrelu_jax_include)
endif()
# A second interpreter must be the same Python version (one extension ABI).
set(lrelu_jax_python_ok ON)
if(LRELU_JAX_PYTHON AND NOT LRELU_JAX_PYTHON STREQUAL Python_EXECUTABLE)
  execute_process(
    COMMAND ${LRELU_JAX_PYTHON} -c
      "import sys, numpy; print('%d.%d' % sys.version_info[:2]); print(numpy.get_include())"
    OUTPUT_VARIABLE jax_python_facts OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET)
  string(REPLACE "\n" ";" jax_python_facts "${jax_python_facts}")
  list(GET jax_python_facts 0 jax_python_version)
  if(NOT jax_python_version STREQUAL
     "${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}")
    set(lrelu_jax_python_ok OFF)
  else()
    list(GET jax_python_facts 1 lrelu_jax_numpy_include)
  endif()
endif()
if(NOT lrelu_jax_include OR NOT lrelu_jax_python_ok)
  if(LRELU_BUILD_JAX STREQUAL "ON")
    message(FATAL_ERROR "LRELU_BUILD_JAX=ON but no jaxlib with XLA's FFI "
      "headers for Python ${Python_VERSION_MAJOR}.${Python_VERSION_MINOR}: "
      "run scripts/setup-jax-python.sh, or set LRELU_JAX_PYTHON or "
      "LRELU_JAX_INCLUDE_DIR")
  endif()
  message(STATUS "lrelu: JAX handlers OFF (no jaxlib found)")
  return()
endif()

if(LRELU_JAX_PYTHON STREQUAL Python_EXECUTABLE OR NOT LRELU_JAX_PYTHON)
  set(lrelu_jax_package_dir ${LRELU_PYTHON_PACKAGE_DIR})
else()
  # The second copy: _lrelu for the other NumPy, the same .py files.
  set(lrelu_jax_package_dir ${PROJECT_BINARY_DIR}/python-jax/lrelu)
  get_target_property(lrelu_module_sources _lrelu SOURCES)
  nanobind_add_module(_lrelu_for_jax NB_STATIC NOMINSIZE
                      ${lrelu_module_sources})
  target_include_directories(_lrelu_for_jax SYSTEM PRIVATE
                             ${lrelu_jax_numpy_include})
  lrelu_set_warnings(_lrelu_for_jax)
  target_link_libraries(_lrelu_for_jax PRIVATE lrelu_static)
  set_target_properties(_lrelu_for_jax PROPERTIES OUTPUT_NAME _lrelu
    LIBRARY_OUTPUT_DIRECTORY ${lrelu_jax_package_dir})
  add_custom_command(
    OUTPUT ${lrelu_jax_package_dir}/.copied
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${lrelu_python_sources}
            ${lrelu_jax_package_dir}
    COMMAND ${CMAKE_COMMAND} -E touch ${lrelu_jax_package_dir}/.copied
    DEPENDS ${lrelu_python_sources}
    COMMENT "Copying lrelu/*.py for ${LRELU_JAX_PYTHON}")
  add_custom_target(lrelu_python_for_jax ALL
                    DEPENDS ${lrelu_jax_package_dir}/.copied)
  add_dependencies(lrelu_python_for_jax _lrelu_for_jax)
endif()

set(lrelu_jax_sources
  src/jax/module.cc
  src/jax/handlers.cc
  src/jax/cpu_handlers.cc
  src/jax/prelu_handlers.cc
  src/jax/xla_thread_pool.cc)
if(LRELU_HAS_CUDA)
  list(APPEND lrelu_jax_sources src/jax/cuda_handlers.cc)
endif()
nanobind_add_module(_jax_ffi NB_STATIC ${lrelu_jax_sources})
target_include_directories(_jax_ffi PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src
                                            ${PROJECT_SOURCE_DIR}/src)
# XLA's headers are someone else's: no warnings from them.
target_include_directories(_jax_ffi SYSTEM PRIVATE ${lrelu_jax_include})
lrelu_set_warnings(_jax_ffi)
target_link_libraries(_jax_ffi PRIVATE lrelu_static)
if(LRELU_HAS_CUDA)
  find_package(CUDAToolkit REQUIRED)  # its targets are per directory
  target_compile_definitions(_jax_ffi PRIVATE LRELU_JAX_CUDA)
  target_link_libraries(_jax_ffi PRIVATE CUDA::cudart)
endif()
set_target_properties(_jax_ffi PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${lrelu_jax_package_dir})
add_dependencies(lrelu_python _jax_ffi)
if(SKBUILD)
  install(TARGETS _jax_ffi LIBRARY DESTINATION lrelu COMPONENT python)
endif()
set(LRELU_JAX_PACKAGE_DIR ${lrelu_jax_package_dir})
if(LRELU_BUILD_TESTS)
  add_subdirectory(${PROJECT_SOURCE_DIR}/tests/jax
                   ${PROJECT_BINARY_DIR}/tests/jax)
endif()
message(STATUS "lrelu: JAX handlers ON for ${LRELU_JAX_PYTHON} (XLA FFI "
               "headers: ${lrelu_jax_include}; CUDA handler: ${LRELU_HAS_CUDA})")
