/* Symbol visibility for liblrelu_contract (include/lrelu/kernel.hpp), a
 * library of its own on top of liblrelu: built with hidden visibility, so
 * only LRELU_CONTRACT_API declarations are exported. Link the static
 * library with LRELU_CONTRACT_STATIC_DEFINE (the CMake target sets it). */
#ifndef LRELU_CONTRACT_EXPORT_H_
#define LRELU_CONTRACT_EXPORT_H_

#if defined(_WIN32)
#if defined(LRELU_CONTRACT_STATIC_DEFINE)
#define LRELU_CONTRACT_API
#elif defined(LRELU_CONTRACT_BUILDING_SHARED)
#define LRELU_CONTRACT_API __declspec(dllexport)
#else
#define LRELU_CONTRACT_API __declspec(dllimport)
#endif
#else
#define LRELU_CONTRACT_API __attribute__((visibility("default")))
#endif

#endif /* LRELU_CONTRACT_EXPORT_H_ */
