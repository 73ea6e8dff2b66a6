# Third-party libraries, all from Debian packages (scripts/install-deps.sh).
find_package(hwy 1.0 REQUIRED)        # libhwy-dev: SIMD with runtime dispatch
find_package(Threads REQUIRED)

# libpthreadpool-dev ships no CMake or pkg-config file. liblrelu has its own
# pool (src/cpu/thread_pool.cc) and links none: only benchmarks that plug
# pthreadpool in as a caller pool (bench/) use this target.
find_path(PTHREADPOOL_INCLUDE_DIR pthreadpool.h REQUIRED)
find_library(PTHREADPOOL_LIBRARY pthreadpool REQUIRED)
if(NOT TARGET lrelu_pthreadpool)
  add_library(lrelu_pthreadpool INTERFACE IMPORTED)
  target_include_directories(lrelu_pthreadpool INTERFACE ${PTHREADPOOL_INCLUDE_DIR})
  target_link_libraries(lrelu_pthreadpool INTERFACE ${PTHREADPOOL_LIBRARY} Threads::Threads)
endif()

find_package(nlohmann_json 3.10 REQUIRED)   # nlohmann-json3-dev
# (header-only: used by liblrelu_contract, the CLI and bench/, not liblrelu)
