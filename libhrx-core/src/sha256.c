#include "hrx/core/file.h"
#include "hrx/core/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <mbedtls/sha256.h>
#include <mbedtls/version.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(mbedtls_sha256_context) <=
                   sizeof(((hrx_sha256_t*)0)->opaque),
               "hrx_sha256_t too small for mbedtls_sha256_context");
_Static_assert(_Alignof(mbedtls_sha256_context) <= 16,
               "hrx_sha256_t under-aligned for mbedtls_sha256_context");

/* mbedTLS 2.x names the status-returning functions *_ret; 3.x dropped the
 * suffix. SHA-256 in software cannot fail, so results are not inspected. */
#if MBEDTLS_VERSION_MAJOR >= 3
#define HRX_SHA256_STARTS mbedtls_sha256_starts
#define HRX_SHA256_UPDATE mbedtls_sha256_update
#define HRX_SHA256_FINISH mbedtls_sha256_finish
#else
#define HRX_SHA256_STARTS mbedtls_sha256_starts_ret
#define HRX_SHA256_UPDATE mbedtls_sha256_update_ret
#define HRX_SHA256_FINISH mbedtls_sha256_finish_ret
#endif

static mbedtls_sha256_context* hrx_sha256_ctx(hrx_sha256_t* context) {
  return (mbedtls_sha256_context*)context->opaque;
}

void hrx_sha256_init(hrx_sha256_t* context) {
  mbedtls_sha256_init(hrx_sha256_ctx(context));
  (void)HRX_SHA256_STARTS(hrx_sha256_ctx(context), 0);
}

void hrx_sha256_update(hrx_sha256_t* context, const void* data,
                       size_t length) {
  if (length == 0) return;
  (void)HRX_SHA256_UPDATE(hrx_sha256_ctx(context), data, length);
}

void hrx_sha256_final(hrx_sha256_t* context,
                      hrx_sha256_digest_t* out_digest) {
  (void)HRX_SHA256_FINISH(hrx_sha256_ctx(context), out_digest->bytes);
  mbedtls_sha256_free(hrx_sha256_ctx(context));
}

void hrx_sha256(const void* data, size_t length,
                hrx_sha256_digest_t* out_digest) {
  hrx_sha256_t context;
  hrx_sha256_init(&context);
  hrx_sha256_update(&context, data, length);
  hrx_sha256_final(&context, out_digest);
}

/* Large enough to amortise syscalls, small enough for any stack of threads
 * that hash concurrently (it lives on the heap). */
#define HRX_SHA256_CHUNK (1u << 20)

hrx_status_t hrx_sha256_update_fd(hrx_sha256_t* context, int fd,
                                  uint64_t* out_bytes) {
  if (out_bytes) *out_bytes = 0;
  uint8_t* chunk = malloc(HRX_SHA256_CHUNK);
  if (!chunk) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "sha256: no memory for a read buffer");
  }
  hrx_status_t status = HRX_OK;
  for (;;) {
    ssize_t n = read(fd, chunk, HRX_SHA256_CHUNK);
    if (n < 0) {
      if (errno == EINTR) continue;
      status = hrx_status_from_errno(errno, "sha256: read failed");
      break;
    }
    if (n == 0) break;
    hrx_sha256_update(context, chunk, (size_t)n);
    if (out_bytes) *out_bytes += (uint64_t)n;
  }
  free(chunk);
  return status;
}

hrx_status_t hrx_sha256_fd(int fd, hrx_sha256_digest_t* out_digest) {
  hrx_sha256_t context;
  hrx_sha256_init(&context);
  hrx_status_t status = hrx_sha256_update_fd(&context, fd, NULL);
  hrx_sha256_final(&context, out_digest);
  return status;
}

hrx_status_t hrx_sha256_file(const char* path,
                             hrx_sha256_digest_t* out_digest) {
  int fd = -1;
  HRX_RETURN_IF_ERROR(hrx_status_annotate(
      hrx_file_open_regular(path, true, &fd, NULL), "sha256"));
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  hrx_status_t status = hrx_sha256_fd(fd, out_digest);
  close(fd);
  return hrx_status_annotate(status, "hashing '%s'", path);
}

void hrx_hex_encode(const void* bytes, size_t length, char* out_hex) {
  static const char digits[] = "0123456789abcdef";
  const uint8_t* in = bytes;
  for (size_t i = 0; i < length; ++i) {
    out_hex[2 * i] = digits[in[i] >> 4];
    out_hex[2 * i + 1] = digits[in[i] & 0xF];
  }
  out_hex[2 * length] = '\0';
}

static int hrx_hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

hrx_status_t hrx_hex_decode(const char* hex, size_t hex_length,
                            void* out_bytes, size_t capacity,
                            size_t* out_length) {
  *out_length = 0;
  if (hex_length % 2 != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "hex string has odd length %zu", hex_length);
  }
  if (hex_length / 2 > capacity) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "hex string decodes to %zu bytes, room for %zu",
                           hex_length / 2, capacity);
  }
  uint8_t* out = out_bytes;
  for (size_t i = 0; i < hex_length; i += 2) {
    int hi = hrx_hex_value(hex[i]);
    int lo = hrx_hex_value(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      size_t at = hi < 0 ? i : i + 1;
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "invalid hex digit 0x%02x at position %zu",
                             (unsigned char)hex[at], at);
    }
    out[i / 2] = (uint8_t)(hi << 4 | lo);
  }
  *out_length = hex_length / 2;
  return HRX_OK;
}

hrx_status_t hrx_sha256_digest_parse(const char* hex,
                                     hrx_sha256_digest_t* out_digest) {
  size_t length = strnlen(hex, 2 * HRX_SHA256_DIGEST_SIZE + 1);
  if (length != 2 * HRX_SHA256_DIGEST_SIZE) {
    if (length > 2 * HRX_SHA256_DIGEST_SIZE) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "a SHA-256 digest is 64 hex digits, got more");
    }
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a SHA-256 digest is 64 hex digits, got %zu",
                           length);
  }
  size_t decoded = 0;
  return hrx_hex_decode(hex, length, out_digest->bytes,
                        sizeof(out_digest->bytes), &decoded);
}

void hrx_sha256_digest_format(const hrx_sha256_digest_t* digest,
                              char out_hex[HRX_SHA256_HEX_SIZE]) {
  hrx_hex_encode(digest->bytes, sizeof(digest->bytes), out_hex);
}
