/* Shared declaration attributes for every HRX library.
 *
 * Ownership follows one rule across HRX: results of *_create / *_copy are
 * owned by the caller and released with the matching *_destroy / *_release;
 * results of accessors are borrowed and live as long as their owner.
 * Out-parameters are named out_* and always come last.
 */
#ifndef HRX_CORE_API_H_
#define HRX_CORE_API_H_

#if defined(__GNUC__)
#define HRX_API __attribute__((visibility("default")))
#define HRX_MUST_USE __attribute__((warn_unused_result))
#define HRX_PRINTF(fmt_index, first_arg) \
  __attribute__((format(printf, fmt_index, first_arg)))
#else
#define HRX_API
#define HRX_MUST_USE
#define HRX_PRINTF(fmt_index, first_arg)
#endif

/* C11's _Alignas and _Static_assert under names that C++ also accepts,
 * so every public header compiles as C11 and as C++. */
#ifdef __cplusplus
#define HRX_ALIGNAS(bytes) alignas(bytes)
#define HRX_STATIC_ASSERT(condition, message) static_assert(condition, message)
#else
#define HRX_ALIGNAS(bytes) _Alignas(bytes)
#define HRX_STATIC_ASSERT(condition, message) _Static_assert(condition, message)
#endif

#endif /* HRX_CORE_API_H_ */
