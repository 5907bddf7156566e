/* SHA-256 (through mbedTLS) and hexadecimal encoding.
 *
 * A hrx_sha256_t is a plain value the caller owns (stack or heap); one
 * context must not be used by two threads at once, different contexts are
 * independent.
 */
#ifndef HRX_CORE_SHA256_H_
#define HRX_CORE_SHA256_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core/api.h"
#include "hrx/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_SHA256_DIGEST_SIZE 32
/* 64 hex digits and a NUL. */
#define HRX_SHA256_HEX_SIZE 65

typedef struct hrx_sha256_digest_t {
  uint8_t bytes[HRX_SHA256_DIGEST_SIZE];
} hrx_sha256_digest_t;

/* Streaming context. The storage is opaque so that consumers need no
 * mbedTLS headers; its size is checked against mbedTLS at build time. */
typedef struct hrx_sha256_t {
  HRX_ALIGNAS(16) uint8_t opaque[256];
} hrx_sha256_t;

HRX_API void hrx_sha256_init(hrx_sha256_t* context);
HRX_API void hrx_sha256_update(hrx_sha256_t* context, const void* data,
                               size_t length);
/* Writes the digest and wipes the context; init again to reuse it. */
HRX_API void hrx_sha256_final(hrx_sha256_t* context,
                              hrx_sha256_digest_t* out_digest);

HRX_API void hrx_sha256(const void* data, size_t length,
                        hrx_sha256_digest_t* out_digest);

/* Hashes a whole regular file, read in chunks (never mapped), so files
 * larger than memory work. NOT_FOUND / PERMISSION_DENIED / DATA_LOSS as
 * errno says; a FIFO or device is refused (hrx_file_open_regular), never
 * waited on or read forever. */
HRX_API HRX_MUST_USE hrx_status_t hrx_sha256_file(
    const char* path, hrx_sha256_digest_t* out_digest);

/* Feeds |context| from the current position of |fd| to end of file;
 * |out_bytes| (may be NULL) receives how many bytes were read, also on
 * failure. The context stays open, so a caller can go on adding (a
 * resumed download hashes what an earlier try kept, then the rest). */
HRX_API HRX_MUST_USE hrx_status_t hrx_sha256_update_fd(hrx_sha256_t* context,
                                                       int fd,
                                                       uint64_t* out_bytes);

/* Hashes from the current position of |fd| to end of file. */
HRX_API HRX_MUST_USE hrx_status_t hrx_sha256_fd(
    int fd, hrx_sha256_digest_t* out_digest);

/* Lower-case hex of |length| bytes into |out_hex|, which must hold
 * 2 * length + 1 bytes. */
HRX_API void hrx_hex_encode(const void* bytes, size_t length, char* out_hex);

/* Decodes |hex_length| hex digits (either case) into |out_bytes|. Fails with
 * INVALID_ARGUMENT on an odd length or a non-hex character (naming its
 * position) and OUT_OF_RANGE when |capacity| is too small. */
HRX_API HRX_MUST_USE hrx_status_t hrx_hex_decode(const char* hex,
                                                 size_t hex_length,
                                                 void* out_bytes,
                                                 size_t capacity,
                                                 size_t* out_length);

/* Parses exactly 64 hex digits into a digest. */
HRX_API HRX_MUST_USE hrx_status_t hrx_sha256_digest_parse(
    const char* hex, hrx_sha256_digest_t* out_digest);

HRX_API void hrx_sha256_digest_format(const hrx_sha256_digest_t* digest,
                                      char out_hex[HRX_SHA256_HEX_SIZE]);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_SHA256_H_ */
