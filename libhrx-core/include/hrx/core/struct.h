/* Extensible public structs.
 *
 * A public struct that describes configuration or a report and may grow
 * with features (options, statistics, properties, info, descriptors,
 * faults) begins with `uint32_t struct_size`, the sizeof of the struct the
 * caller was compiled with. A later release appends members only, so a
 * library and a program built against different releases still agree on
 * every member both know:
 *   - input (options, descriptors): members the caller's struct lacks read
 *     as zero, which always means "the default"; a caller's struct larger
 *     than the library's is accepted only when the bytes the library does
 *     not know are all zero (as Linux's copy_struct_from_user does), so a
 *     request for a feature this library lacks never passes unnoticed.
 *   - output (statistics, info, reports): the library writes no more than
 *     the caller's struct_size bytes, and zeroes members the caller knows
 *     and the library does not; struct_size keeps the caller's value.
 *   - reports the library hands out by pointer (borrowed) carry the
 *     library's struct_size: read a member only when struct_size covers it.
 * A struct_size of 0 or below the first release's size is INVALID_ARGUMENT
 * naming the type.
 *
 * Plain value types whose layout is itself the contract stay as they are:
 * hardware packets, kernel ioctl structs, handles and spans, shapes and
 * dimensions, argument arrays and array elements (whose stride a caller
 * relies on), and structs a compiled kernel reads or writes.
 *
 * Callers initialise such a struct with HRX_STRUCT_INIT, in C and in C++:
 *   hrx_trace_options_t options = HRX_STRUCT_INIT(hrx_trace_options_t);
 *   options.max_bytes = 1 << 20;
 */
#ifndef HRX_CORE_STRUCT_H_
#define HRX_CORE_STRUCT_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core/api.h"
#include "hrx/core/status.h"

/* A zeroed |type| whose struct_size is sizeof(type). */
#ifdef __cplusplus
extern "C++" {
template <typename T>
inline T hrx_struct_init_cxx_(void) {
  T value{};
  value.struct_size = sizeof(T);
  return value;
}
}
#define HRX_STRUCT_INIT(type) (hrx_struct_init_cxx_<type>())
#else
#define HRX_STRUCT_INIT(type) \
  { .struct_size = (uint32_t)sizeof(type) }
#endif

/* The size of |type| up to and including |member|: the first release's
 * size when |member| is the last member of that release. */
#define HRX_STRUCT_SIZE_THROUGH(type, member) \
  (offsetof(type, member) + sizeof(((type*)0)->member))

#ifdef __cplusplus
extern "C" {
#endif

/* Library side. Copies the caller's input struct |src| into |dst|, the
 * library's own struct of |size| bytes, by the rules above; |first_size|
 * is the first release's size, |type_name| names the type in messages. A
 * NULL |src| yields the defaults (all zero). On success dst->struct_size
 * is |size|. */
HRX_API HRX_MUST_USE hrx_status_t hrx_struct_read(const char* type_name,
                                                  const void* src,
                                                  size_t first_size,
                                                  size_t size, void* dst);

/* Library side. Writes |src|, the library's report of |size| bytes, into
 * the caller's struct |dst| by the rules above (INVALID_ARGUMENT for a NULL
 * |dst|); bytes beyond dst->struct_size are never touched. */
HRX_API HRX_MUST_USE hrx_status_t hrx_struct_write(const char* type_name,
                                                   const void* src,
                                                   size_t first_size,
                                                   size_t size, void* dst);

/* hrx_struct_read / hrx_struct_write for |type|, whose first release ended
 * with |last_member|. */
#define HRX_STRUCT_READ(type, last_member, src, dst)                      \
  hrx_struct_read(#type, (src), HRX_STRUCT_SIZE_THROUGH(type, last_member), \
                  sizeof(type), (dst))
#define HRX_STRUCT_WRITE(type, last_member, src, dst)                      \
  hrx_struct_write(#type, (src), HRX_STRUCT_SIZE_THROUGH(type, last_member), \
                   sizeof(type), (dst))

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_STRUCT_H_ */
