/* safetensors: header validation, tensor index, mapped or read access. */
#include "hrx/artifacts/safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/core/file.h"
#include "show.h"

#define HRX_SAFETENSORS_DEFAULT_HEADER_CAP (100ull << 20)

struct hrx_safetensors_s {
  hrx_allocator_t allocator;
  int fd;               /* -1 for a view of memory */
  const uint8_t* base;  /* the mapped or borrowed image; NULL in READ mode */
  size_t size;          /* of the file */
  bool unmap;
  uint64_t data_start;  /* 8 + header length */
  hrx_safetensors_tensor_t* tensors; /* by file offset */
  size_t count;
  size_t* by_name;      /* indices into |tensors|, sorted by name */
  hrx_safetensors_metadata_t* metadata;
  size_t metadata_count;
  char* label;          /* the path escaped, for messages */
};

void hrx_safetensors_destroy(hrx_safetensors_t* v) {
  if (!v) return;
  for (size_t i = 0; i < v->count; ++i) {
    hrx_allocator_free(v->allocator, (void*)v->tensors[i].name);
    hrx_allocator_free(v->allocator, (void*)v->tensors[i].shape);
  }
  for (size_t i = 0; i < v->metadata_count; ++i) {
    hrx_allocator_free(v->allocator, (void*)v->metadata[i].key);
    hrx_allocator_free(v->allocator, (void*)v->metadata[i].value);
  }
  hrx_allocator_free(v->allocator, v->tensors);
  hrx_allocator_free(v->allocator, v->by_name);
  hrx_allocator_free(v->allocator, v->metadata);
  if (v->unmap) munmap((void*)v->base, v->size);
  if (v->fd >= 0) close(v->fd);
  hrx_allocator_free(v->allocator, v->label);
  hrx_allocator_free(v->allocator, v);
}

static hrx_status_t hrx_st_error(const hrx_safetensors_t* v,
                                 const char* format, const char* detail) {
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "%s: %s%s", v->label,
                         format, detail ? detail : "");
}

/* A JSON integer in [0, 2^63). */
static bool hrx_st_u64(json_t* value, uint64_t* out) {
  if (!json_is_integer(value) || json_integer_value(value) < 0) return false;
  *out = (uint64_t)json_integer_value(value);
  return true;
}

static hrx_status_t hrx_st_tensor(hrx_safetensors_t* v, const char* name,
                                  json_t* spec, uint64_t data_size,
                                  hrx_safetensors_tensor_t* t) {
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  char what[HRX_ESCAPED_NAME_CAPACITY + 16];
  snprintf(what, sizeof(what), "tensor '%s'", hrx_artifacts_show(name, shown));
  if (!json_is_object(spec)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: %s is not an object", v->label, what);
  }
  const char* key;
  json_t* field;
  json_object_foreach(spec, key, field) {
    if (strcmp(key, "dtype") && strcmp(key, "shape") &&
        strcmp(key, "data_offsets")) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "%s: %s has unknown field \"%s\"", v->label,
                             what, hrx_artifacts_show(key, shown));
    }
  }
  json_t* dtype = json_object_get(spec, "dtype");
  if (!json_is_string(dtype)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: %s has no string \"dtype\"", v->label, what);
  }
  hrx_status_t status = hrx_dtype_parse(json_string_value(dtype), &t->dtype);
  if (status != HRX_OK) {
    hrx_status_t named = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                                         "%s: %s: %s", v->label, what,
                                         hrx_status_message(status));
    hrx_status_free(status);
    return named;
  }
  json_t* shape = json_object_get(spec, "shape");
  if (!json_is_array(shape) || json_array_size(shape) > HRX_SAFETENSORS_MAX_RANK) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: %s needs a \"shape\" array of at most %d "
                           "dimensions",
                           v->label, what, HRX_SAFETENSORS_MAX_RANK);
  }
  t->rank = (uint32_t)json_array_size(shape);
  uint64_t* dims = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(
      v->allocator, (t->rank ? t->rank : 1) * sizeof(uint64_t),
      (void**)&dims));
  t->shape = dims;
  uint64_t elements = 1;
  for (uint32_t d = 0; d < t->rank; ++d) {
    if (!hrx_st_u64(json_array_get(shape, d), &dims[d])) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "%s: %s dimension %u is not a non-negative "
                             "integer",
                             v->label, what, d);
    }
    if (__builtin_mul_overflow(elements, dims[d], &elements)) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "%s: %s has more elements than fit in 64 bits",
                             v->label, what);
    }
  }
  t->elements = elements;
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(elements, (uint64_t)hrx_dtype_size(t->dtype),
                             &bytes)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: %s is larger than 2^64 bytes", v->label, what);
  }
  json_t* offsets = json_object_get(spec, "data_offsets");
  uint64_t begin = 0, end = 0;
  if (!json_is_array(offsets) || json_array_size(offsets) != 2 ||
      !hrx_st_u64(json_array_get(offsets, 0), &begin) ||
      !hrx_st_u64(json_array_get(offsets, 1), &end)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: %s needs \"data_offsets\": [begin, end] of "
                           "non-negative integers",
                           v->label, what);
  }
  if (begin > end || end > data_size) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: %s bytes [%llu, %llu) are not inside the "
                           "%llu-byte data section",
                           v->label, what, (unsigned long long)begin,
                           (unsigned long long)end,
                           (unsigned long long)data_size);
  }
  if (end - begin != bytes) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: %s spans %llu bytes; its %s shape needs %llu",
                           v->label, what, (unsigned long long)(end - begin),
                           hrx_dtype_name(t->dtype),
                           (unsigned long long)bytes);
  }
  t->file_offset = v->data_start + begin;
  t->length = bytes;
  return HRX_OK;
}

static hrx_status_t hrx_st_metadata(hrx_safetensors_t* v, json_t* object) {
  if (!json_is_object(object)) {
    return hrx_st_error(v, "\"__metadata__\" must be an object of strings",
                        NULL);
  }
  size_t count = json_object_size(object);
  if (count) {
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
        v->allocator, count, sizeof(*v->metadata), (void**)&v->metadata));
  }
  const char* key;
  json_t* value;
  json_object_foreach(object, key, value) {
    if (!json_is_string(value)) {
      char shown[HRX_ESCAPED_NAME_CAPACITY];
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "%s: metadata \"%s\" is not a string",
                             v->label, hrx_artifacts_show(key, shown));
    }
    hrx_safetensors_metadata_t* m = &v->metadata[v->metadata_count];
    HRX_RETURN_IF_ERROR(
        hrx_allocator_strdup(v->allocator, key, (char**)&m->key));
    v->metadata_count++;
    HRX_RETURN_IF_ERROR(hrx_allocator_strdup(
        v->allocator, json_string_value(value), (char**)&m->value));
  }
  return HRX_OK;
}

static int hrx_st_by_offset(const void* a, const void* b) {
  const hrx_safetensors_tensor_t* x = a;
  const hrx_safetensors_tensor_t* y = b;
  if (x->file_offset != y->file_offset) {
    return x->file_offset < y->file_offset ? -1 : 1;
  }
  return (x->length > y->length) - (x->length < y->length);
}

/* Parses and validates the header; |v->data_start| and |v->size| set. */
static hrx_status_t hrx_st_index(hrx_safetensors_t* v, const char* header,
                                 size_t length) {
  json_error_t error;
  json_t* root = json_loadb(header, length, JSON_REJECT_DUPLICATES, &error);
  if (!root) {
    /* jansson quotes the text near the error: file bytes. */
    char shown[HRX_ESCAPED_NAME_CAPACITY];
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: header JSON, column %d: %s", v->label,
                           error.column, hrx_artifacts_show(error.text, shown));
  }
  hrx_status_t status = HRX_OK;
  if (!json_is_object(root)) {
    status = hrx_st_error(v, "the header is not a JSON object", NULL);
  }
  size_t count = status == HRX_OK ? json_object_size(root) : 0;
  if (status == HRX_OK && count) {
    status = hrx_allocator_malloc_array(v->allocator, count,
                                        sizeof(*v->tensors),
                                        (void**)&v->tensors);
  }
  uint64_t data_size = v->size - v->data_start;
  const char* key;
  json_t* value;
  if (status == HRX_OK) {
    json_object_foreach(root, key, value) {
      if (!strcmp(key, "__metadata__")) {
        status = hrx_st_metadata(v, value);
      } else {
        hrx_safetensors_tensor_t* t = &v->tensors[v->count];
        status = hrx_allocator_strdup(v->allocator, key, (char**)&t->name);
        if (status == HRX_OK) {
          v->count++;
          status = hrx_st_tensor(v, key, value, data_size, t);
        }
      }
      if (status != HRX_OK) break;
    }
  }
  json_decref(root);
  HRX_RETURN_IF_ERROR(status);
  if (v->count) {
    qsort(v->tensors, v->count, sizeof(*v->tensors), hrx_st_by_offset);
  }
  for (size_t i = 1; i < v->count; ++i) {
    const hrx_safetensors_tensor_t* a = &v->tensors[i - 1];
    const hrx_safetensors_tensor_t* b = &v->tensors[i];
    if (b->file_offset < a->file_offset + a->length) {
      char first[HRX_ESCAPED_NAME_CAPACITY], second[HRX_ESCAPED_NAME_CAPACITY];
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "%s: tensors '%s' and '%s' overlap", v->label,
                             hrx_artifacts_show(a->name, first),
                             hrx_artifacts_show(b->name, second));
    }
  }
  if (v->count) {
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
        v->allocator, v->count, sizeof(size_t), (void**)&v->by_name));
  }
  for (size_t i = 0; i < v->count; ++i) v->by_name[i] = i;
  return HRX_OK;
}

static int hrx_st_by_name(const void* a, const void* b, void* context) {
  const hrx_safetensors_tensor_t* t = context;
  return strcmp(t[*(const size_t*)a].name, t[*(const size_t*)b].name);
}

static void hrx_st_sort_names(hrx_safetensors_t* v) {
  if (v->count < 2) return;
  qsort_r(v->by_name, v->count, sizeof(size_t), hrx_st_by_name, v->tensors);
}

static hrx_status_t hrx_st_new(hrx_allocator_t allocator, const char* label,
                               hrx_safetensors_t** out) {
  hrx_safetensors_t* v = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, sizeof(*v), (void**)&v));
  v->allocator = allocator;
  v->fd = -1;
  /* Escaped once here, as every message starts with it. */
  hrx_string_builder_t builder;
  hrx_string_builder_init(allocator, &builder);
  size_t length = 0;
  hrx_status_t status =
      hrx_string_builder_append_escaped(&builder, label, strlen(label));
  if (status == HRX_OK) {
    status = hrx_string_builder_take(&builder, &v->label, &length);
  }
  hrx_string_builder_deinit(&builder);
  if (status != HRX_OK) {
    hrx_allocator_free(allocator, v);
    return status;
  }
  *out = v;
  return HRX_OK;
}

/* Reads and checks the 8-byte length prefix against |cap| and the size. */
static hrx_status_t hrx_st_prefix(hrx_safetensors_t* v, const uint8_t* prefix,
                                  uint64_t cap, uint64_t* out_length) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | prefix[i];
  if (n > cap) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: header of %llu bytes exceeds the %llu-byte "
                           "cap",
                           v->label, (unsigned long long)n,
                           (unsigned long long)cap);
  }
  if (n > v->size - 8) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: header of %llu bytes runs past the end of "
                           "the %zu-byte file",
                           v->label, (unsigned long long)n, v->size);
  }
  *out_length = n;
  v->data_start = 8 + n;
  return HRX_OK;
}

hrx_status_t hrx_safetensors_open_memory(const void* data, size_t length,
                                         uint64_t max_header_bytes,
                                         hrx_allocator_t allocator,
                                         hrx_safetensors_t** out_view) {
  *out_view = NULL;
  hrx_safetensors_t* v = NULL;
  HRX_RETURN_IF_ERROR(hrx_st_new(allocator, "<memory>", &v));
  v->base = data;
  v->size = length;
  uint64_t cap = max_header_bytes ? max_header_bytes
                                  : HRX_SAFETENSORS_DEFAULT_HEADER_CAP;
  uint64_t n = 0;
  hrx_status_t status =
      length < 8 || !data
          ? hrx_st_error(v, "shorter than the 8-byte header length", NULL)
          : hrx_st_prefix(v, data, cap, &n);
  if (status == HRX_OK) {
    status = hrx_st_index(v, (const char*)data + 8, (size_t)n);
  }
  if (status != HRX_OK) {
    hrx_safetensors_destroy(v);
    return status;
  }
  hrx_st_sort_names(v);
  *out_view = v;
  return HRX_OK;
}

hrx_status_t hrx_safetensors_open(
    const char* path, const hrx_safetensors_options_t* caller_options,
    hrx_allocator_t allocator, hrx_safetensors_t** out_view) {
  *out_view = NULL;
  hrx_safetensors_options_t local_options;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_safetensors_options_t,
                                      max_header_bytes, caller_options,
                                      &local_options));
  const hrx_safetensors_options_t* options = &local_options;
  hrx_safetensors_t* v = NULL;
  HRX_RETURN_IF_ERROR(hrx_st_new(allocator, path, &v));
  uint64_t cap = options->max_header_bytes
                     ? options->max_header_bytes
                     : HRX_SAFETENSORS_DEFAULT_HEADER_CAP;
  bool map = options->mode == HRX_SAFETENSORS_MAP;
  struct stat info;
  /* A FIFO or a device would block the open or the reads for ever. */
  hrx_status_t status = hrx_file_open_regular(path, true, &v->fd, &info);
  if (status == HRX_OK) v->size = (size_t)info.st_size;
  uint8_t prefix[8];
  if (status == HRX_OK &&
      (v->size < 8 || pread(v->fd, prefix, 8, 0) != 8)) {
    status = hrx_st_error(v, "shorter than the 8-byte header length", NULL);
  }
  uint64_t n = 0;
  if (status == HRX_OK) status = hrx_st_prefix(v, prefix, cap, &n);
  char* header = NULL;
  if (status == HRX_OK && map) {
    void* mapping = mmap(NULL, v->size, PROT_READ, MAP_SHARED, v->fd, 0);
    if (mapping == MAP_FAILED) {
      status = hrx_status_from_errno(errno, "cannot map %s", v->label);
    } else {
      v->base = mapping;
      v->unmap = true;
      header = (char*)v->base + 8;
    }
  } else if (status == HRX_OK) {
    status = hrx_allocator_malloc_uninitialized(allocator, n + 1,
                                                (void**)&header);
    if (status == HRX_OK && pread(v->fd, header, n, 8) != (ssize_t)n) {
      status = hrx_st_error(v, "the header could not be read", NULL);
    }
  }
  if (status == HRX_OK) status = hrx_st_index(v, header, (size_t)n);
  if (!map) hrx_allocator_free(allocator, header);
  if (status != HRX_OK) {
    hrx_safetensors_destroy(v);
    return status;
  }
  hrx_st_sort_names(v);
  *out_view = v;
  return HRX_OK;
}

size_t hrx_safetensors_count(const hrx_safetensors_t* v) { return v->count; }

const hrx_safetensors_tensor_t* hrx_safetensors_at(const hrx_safetensors_t* v,
                                                   size_t index) {
  return index < v->count ? &v->tensors[index] : NULL;
}

hrx_status_t hrx_safetensors_find(const hrx_safetensors_t* v,
                                  const char* name,
                                  const hrx_safetensors_tensor_t** out) {
  *out = NULL;
  size_t low = 0, high = v->count;
  while (low < high) {
    size_t mid = low + (high - low) / 2;
    const hrx_safetensors_tensor_t* t = &v->tensors[v->by_name[mid]];
    int c = strcmp(name, t->name);
    if (c == 0) {
      *out = t;
      return HRX_OK;
    }
    if (c < 0) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  return hrx_make_status(HRX_STATUS_NOT_FOUND, "%s has no tensor '%s'",
                         v->label, hrx_artifacts_show(name, shown));
}

size_t hrx_safetensors_metadata_count(const hrx_safetensors_t* v) {
  return v->metadata_count;
}

const hrx_safetensors_metadata_t* hrx_safetensors_metadata_at(
    const hrx_safetensors_t* v, size_t index) {
  return index < v->metadata_count ? &v->metadata[index] : NULL;
}

static hrx_status_t hrx_st_check_tensor(const hrx_safetensors_t* v,
                                        const hrx_safetensors_tensor_t* t) {
  if (!t || t < v->tensors || t >= v->tensors + v->count) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "tensor does not belong to %s", v->label);
  }
  return HRX_OK;
}

hrx_status_t hrx_safetensors_bytes(const hrx_safetensors_t* v,
                                   const hrx_safetensors_tensor_t* t,
                                   const void** out_data) {
  *out_data = NULL;
  HRX_RETURN_IF_ERROR(hrx_st_check_tensor(v, t));
  if (!v->base) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "%s was opened for reading, not mapped; use "
                           "hrx_safetensors_read",
                           v->label);
  }
  *out_data = v->base + t->file_offset;
  return HRX_OK;
}

hrx_status_t hrx_safetensors_read(const hrx_safetensors_t* v,
                                  const hrx_safetensors_tensor_t* t,
                                  void* buffer, size_t capacity) {
  HRX_RETURN_IF_ERROR(hrx_st_check_tensor(v, t));
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  if (capacity < t->length) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "tensor '%s' is %llu bytes; the buffer holds %zu",
                           hrx_artifacts_show(t->name, shown),
                           (unsigned long long)t->length, capacity);
  }
  if (v->base) {
    if (t->length) memcpy(buffer, v->base + t->file_offset, t->length);
    return HRX_OK;
  }
  uint8_t* at = buffer;
  uint64_t done = 0;
  while (done < t->length) {
    ssize_t n = pread(v->fd, at + done, t->length - done,
                      (off_t)(t->file_offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return n == 0 ? hrx_make_status(HRX_STATUS_DATA_LOSS,
                                      "%s shrank while reading '%s'",
                                      v->label,
                                      hrx_artifacts_show(t->name, shown))
                    : hrx_status_from_errno(errno, "cannot read '%s' from %s",
                                            hrx_artifacts_show(t->name, shown),
                                            v->label);
    }
    done += (uint64_t)n;
  }
  return HRX_OK;
}

hrx_status_t hrx_safetensors_advise(const hrx_safetensors_t* v,
                                    const hrx_safetensors_tensor_t* t,
                                    hrx_safetensors_advice_t advice) {
  HRX_RETURN_IF_ERROR(hrx_st_check_tensor(v, t));
  if ((unsigned)advice > HRX_SAFETENSORS_DONTNEED) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "unknown advice %d",
                           (int)advice);
  }
  if (t->length == 0) return HRX_OK;
  if (v->unmap) {
    static const int mmap_advice[] = {MADV_WILLNEED, MADV_SEQUENTIAL,
                                      MADV_DONTNEED};
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t begin = (uintptr_t)(v->base + t->file_offset) & ~(page - 1);
    uintptr_t end = (uintptr_t)(v->base + t->file_offset + t->length);
    /* A hint: failure changes nothing the caller can observe. */
    (void)madvise((void*)begin, end - begin, mmap_advice[advice]);
  } else if (v->fd >= 0) {
    static const int file_advice[] = {POSIX_FADV_WILLNEED,
                                      POSIX_FADV_SEQUENTIAL,
                                      POSIX_FADV_DONTNEED};
    (void)posix_fadvise(v->fd, (off_t)t->file_offset, (off_t)t->length,
                        file_advice[advice]);
  }
  return HRX_OK;
}

hrx_status_t hrx_safetensors_file_range(const hrx_safetensors_t* v,
                                        const char* name, int* out_fd,
                                        uint64_t* out_offset,
                                        uint64_t* out_length) {
  *out_fd = -1;
  const hrx_safetensors_tensor_t* t = NULL;
  HRX_RETURN_IF_ERROR(hrx_safetensors_find(v, name, &t));
  if (v->fd < 0) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "%s is a view of memory, not of a file", v->label);
  }
  int fd = fcntl(v->fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return hrx_status_from_errno(errno, "cannot duplicate a file");
  *out_fd = fd;
  *out_offset = t->file_offset;
  *out_length = t->length;
  return HRX_OK;
}
