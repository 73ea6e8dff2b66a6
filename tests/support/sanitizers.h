// Whether this test binary runs under AddressSanitizer or ThreadSanitizer:
// they slow every access and reserve terabytes of address space, so some
// tests do less (or skip a limit) there.
#ifndef LRELU_TESTS_SUPPORT_SANITIZERS_H_
#define LRELU_TESTS_SUPPORT_SANITIZERS_H_

namespace lrelu::testing {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// ThreadSanitizer alone: it cannot start threads in a forked child of a
// multi-threaded process ("not supported. Dying").
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
#else
inline constexpr bool kThreadSanitizer = false;
#endif

}  // namespace lrelu::testing

#endif  // LRELU_TESTS_SUPPORT_SANITIZERS_H_
