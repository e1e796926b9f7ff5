// Result<T>: a value or an Error. It is std::expected<T, Error> wherever the standard library has
// it (g++ 12 and later). Compilers whose library lacks <expected> (clang 14 on libstdc++ 12, used
// for the fuzz build) get a small stand-in with the subset of the std::expected API sluice uses.
#pragma once

#include <utility>
#include <version>

#include "sluice/base/error.h"

#if defined(__cpp_lib_expected) && __cpp_lib_expected >= 202202L
#include <expected>
#define SLUICE_HAVE_STD_EXPECTED 1
#else
#include <optional>
#include <type_traits>
#include <variant>
#define SLUICE_HAVE_STD_EXPECTED 0
#endif

namespace sluice {

#if SLUICE_HAVE_STD_EXPECTED

template <class E>
using Unexpected = std::unexpected<E>;
template <class T, class E>
using Expected = std::expected<T, E>;

#else

template <class E>
class Unexpected {
 public:
  explicit Unexpected(E e) : error_(std::move(e)) {}
  E& error() & { return error_; }
  const E& error() const& { return error_; }
  E&& error() && { return std::move(error_); }

 private:
  E error_;
};
template <class E>
Unexpected(E) -> Unexpected<E>;

template <class T, class E>
class Expected {
 public:
  using value_type = T;
  using error_type = E;

  Expected() requires std::is_default_constructible_v<T> : v_(std::in_place_index<0>) {}
  template <class U = T>
  requires(std::is_constructible_v<T, U&&> && !std::is_same_v<std::remove_cvref_t<U>, Expected> &&
           !std::is_same_v<std::remove_cvref_t<U>, Unexpected<E> >) Expected(U&& v)
      : v_(std::in_place_index<0>, std::forward<U>(v)) {}  // NOLINT
  template <class G>
  Expected(Unexpected<G> u) : v_(std::in_place_index<1>, std::move(u).error()) {}  // NOLINT

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  E& error() & { return std::get<1>(v_); }
  const E& error() const& { return std::get<1>(v_); }
  E&& error() && { return std::get<1>(std::move(v_)); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, E> v_;
};

template <class E>
class Expected<void, E> {
 public:
  using value_type = void;
  using error_type = E;

  Expected() = default;
  template <class G>
  Expected(Unexpected<G> u) : error_(std::move(u).error()) {}  // NOLINT

  bool has_value() const { return !error_.has_value(); }
  explicit operator bool() const { return has_value(); }
  void value() const {}
  void operator*() const {}
  E& error() & { return *error_; }
  const E& error() const& { return *error_; }
  E&& error() && { return std::move(*error_); }

 private:
  std::optional<E> error_;
};

#endif

/// A value of type T, or the Error that prevented computing it. [[nodiscard]]: an ignored
/// Result is an ignored error; write `(void)` only where dropping it is the point.
template <class T>
class [[nodiscard]] Result : public Expected<T, Error> {
 public:
  using Base = Expected<T, Error>;
  using Base::Base;
  Result() = default;
  Result(const Base& other) : Base(other) {}        // NOLINT: implicit, as the base is
  Result(Base&& other) : Base(std::move(other)) {}  // NOLINT
};

/// Success, or the Error that prevented it.
using Status = Result<void>;

inline Status Ok() { return Status(); }

/// Wrap an Error for returning from a function that returns Result<T> or Status.
inline Unexpected<Error> Fail(Error e) { return Unexpected<Error>(std::move(e)); }
inline Unexpected<Error> Fail(ErrorCode code, std::string message) {
  return Unexpected<Error>(Error(code, std::move(message)));
}

inline Unexpected<Error> InvalidArgument(std::string m) {
  return Fail(ErrorCode::kInvalidArgument, std::move(m));
}
inline Unexpected<Error> ParseError(std::string m) {
  return Fail(ErrorCode::kParseError, std::move(m));
}
inline Unexpected<Error> NotFound(std::string m) {
  return Fail(ErrorCode::kNotFound, std::move(m));
}
inline Unexpected<Error> AlreadyExists(std::string m) {
  return Fail(ErrorCode::kAlreadyExists, std::move(m));
}
inline Unexpected<Error> IoError(std::string m) { return Fail(ErrorCode::kIoError, std::move(m)); }
inline Unexpected<Error> Unimplemented(std::string m) {
  return Fail(ErrorCode::kUnimplemented, std::move(m));
}
inline Unexpected<Error> Internal(std::string m) {
  return Fail(ErrorCode::kInternal, std::move(m));
}

}  // namespace sluice

#define SLUICE_CONCAT_INNER_(a, b) a##b
#define SLUICE_CONCAT_(a, b) SLUICE_CONCAT_INNER_(a, b)

/// Evaluate `expr` (a Status or Result); on error, return that error from the enclosing function.
#define SLUICE_TRY(expr)                                            \
  do {                                                              \
    auto&& sluice_try_result_ = (expr);                             \
    if (!sluice_try_result_.has_value()) {                          \
      return ::sluice::Fail(std::move(sluice_try_result_).error()); \
    }                                                               \
  } while (false)

#define SLUICE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.has_value()) {                             \
    return ::sluice::Fail(std::move(tmp).error());    \
  }                                                   \
  lhs = std::move(tmp).value()

/// Evaluate `expr` (a Result<T>); on error return it, else assign or declare: `lhs = value`.
#define SLUICE_ASSIGN_OR_RETURN(lhs, expr) \
  SLUICE_ASSIGN_OR_RETURN_IMPL_(SLUICE_CONCAT_(sluice_result_, __LINE__), lhs, expr)
