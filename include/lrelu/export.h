/* Symbol visibility for the lrelu C ABI. The shared library is built with
 * hidden visibility, so only LRELU_API functions are exported. */
#ifndef LRELU_EXPORT_H_
#define LRELU_EXPORT_H_

#if defined(_WIN32)
#if defined(LRELU_STATIC_DEFINE)
#define LRELU_API
#elif defined(LRELU_BUILDING_SHARED)
#define LRELU_API __declspec(dllexport)
#else
#define LRELU_API __declspec(dllimport)
#endif
#else
#define LRELU_API __attribute__((visibility("default")))
#endif

#endif /* LRELU_EXPORT_H_ */
