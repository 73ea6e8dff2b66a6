// A vector that keeps up to N elements in itself and only longer contents
// on the heap: PReLU's plans hold a shape and strides per tensor, and with
// std::vector every one-shot call paid about ten allocations for them (a
// fifth of a small call's time). Neither dependency (Highway, pthreadpool)
// offers one, and abseil or Boost for one container would be a new build
// dependency of the wheel. Only what the plan code uses.
#ifndef LRELU_SRC_API_INLINE_VECTOR_H_
#define LRELU_SRC_API_INLINE_VECTOR_H_

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace lrelu {

template <class T, size_t N>
class InlineVector {
 public:
  InlineVector() = default;
  // Copies only the elements in use: the inline storage beyond them is
  // never initialised (a plan holds a dozen of these; zeroing them all
  // cost more than the copies).
  InlineVector(const InlineVector& other) { *this = other; }
  InlineVector& operator=(const InlineVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* data() { return size_ <= N ? inline_ : heap_.data(); }
  const T* data() const { return size_ <= N ? inline_ : heap_.data(); }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }

  void assign(size_t n, const T& value) {
    Resize(n);
    std::fill(begin(), end(), value);
  }
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  void assign(It first, It last) {
    Resize(static_cast<size_t>(last - first));
    std::copy(first, last, begin());
  }
  void clear() { Resize(0); }
  // n elements whose values the caller writes next (C++23's
  // resize_and_overwrite idea): no fill, no memmove call for a few values.
  void resize_for_overwrite(size_t n) { Resize(n); }
  void push_back(const T& value) {
    const size_t n = size_;
    if (n == N) {  // moving out of the inline storage
      heap_.assign(inline_, inline_ + N);
    }
    if (n >= N) {
      heap_.push_back(value);
    } else {
      inline_[n] = value;
    }
    size_ = n + 1;
  }

  friend bool operator==(const InlineVector& a, const InlineVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator!=(const InlineVector& a, const InlineVector& b) {
    return !(a == b);
  }

 private:
  // Contents are undefined after a resize; callers fill them.
  void Resize(size_t n) {
    if (n > N) {
      heap_.resize(n);
    } else {
      heap_.clear();
    }
    size_ = n;
  }

  size_t size_ = 0;
  T inline_[N];          // the contents when size_ <= N
  std::vector<T> heap_;  // the contents when size_ > N
};

}  // namespace lrelu

#endif  // LRELU_SRC_API_INLINE_VECTOR_H_
