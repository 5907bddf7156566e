/* The AMDGPU code-object loader (amdgpu_object.h) and its MessagePack
 * reader: objects HRX compiles for gfx1151 against their manifests,
 * placement at two addresses, foreign objects made by llvm-mc-19 and
 * ld.lld-19 when those are installed (skipped otherwise), and hostile
 * input: every truncation and bit flip of a real object, and one edit per
 * check the loader makes. */
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "amdgpu_msgpack.h"
#include "amdgpu_object.h"
#include "gfx11_test_util.h"
#include "hrx/core/bytes.h"
#include "hrx/loom.h"
#include "test_support.h"

#ifndef HRX_TEST_LLVM_MC
#define HRX_TEST_LLVM_MC ""
#endif
#ifndef HRX_TEST_LD_LLD
#define HRX_TEST_LD_LLD ""
#endif

/* Placement in the hostile tests is bounded, so a flip that grows a NOBITS
 * section stays cheap. */
#define PLACE_LIMIT ((uint64_t)16 << 20)

/*===------------------------------------------------------------------===*/
/* Helpers                                                                 */
/*===------------------------------------------------------------------===*/

typedef struct blob_t {
  uint8_t* data;
  size_t length;
} blob_t;

static blob_t blob_copy(const uint8_t* data, size_t length) {
  blob_t blob = {malloc(length), length};
  assert_non_null(blob.data);
  memcpy(blob.data, data, length);
  return blob;
}

/* |file|'s gfx1151 code object, copied out of its artifact. */
static blob_t compile_object(const char* file) {
  hrx_loom_artifact_t* artifact = gfx11_test_compile(file, NULL);
  size_t length = 0;
  const uint8_t* code = hrx_loom_artifact_code(artifact, &length);
  blob_t blob = blob_copy(code, length);
  hrx_loom_artifact_destroy(artifact);
  return blob;
}

static hrx_amdgpu_object_t* parse_ok(blob_t blob) {
  hrx_amdgpu_object_t* object = NULL;
  assert_ok(hrx_amdgpu_object_parse(blob.data, blob.length,
                                    hrx_allocator_system(), &object));
  assert_non_null(object);
  return object;
}

static const hrx_amdgpu_kernel_t* kernel_named(
    const hrx_amdgpu_object_t* object, const char* name) {
  for (size_t k = 0; k < hrx_amdgpu_object_kernel_count(object); ++k) {
    const hrx_amdgpu_kernel_t* kernel = hrx_amdgpu_object_kernel(object, k);
    if (!strcmp(kernel->name, name)) return kernel;
  }
  fail_msg("no kernel '%s'", name);
  return NULL;
}

/* An aligned buffer holding the image placed at its own address. */
typedef struct placed_t {
  uint8_t* block;
  uint8_t* image;
  uint64_t address;
} placed_t;

static placed_t place_at_home(const hrx_amdgpu_object_t* object) {
  uint64_t size = hrx_amdgpu_object_image_size(object);
  uint64_t alignment = hrx_amdgpu_object_image_alignment(object);
  placed_t p = {.block = malloc(size + alignment)};
  assert_non_null(p.block);
  p.address = ((uint64_t)(uintptr_t)p.block + alignment - 1) &
              ~(alignment - 1);
  p.image = (uint8_t*)(uintptr_t)p.address;
  assert_ok(hrx_amdgpu_object_place(object, p.address, p.image));
  return p;
}

static uint64_t get_le(const uint8_t* at, int bytes) {
  return hrx_get_le(&at, bytes);
}

static void put_le(uint8_t* at, uint64_t value, int bytes) {
  hrx_put_le(&at, value, bytes);
}

/* ELF editing for the malformed cases; the input is a well-formed object,
 * so these trust it. */
static uint8_t* section_header(blob_t blob, const char* name) {
  uint64_t table = get_le(blob.data + 40, 8);
  uint64_t count = get_le(blob.data + 60, 2);
  const uint8_t* names_header =
      blob.data + table + get_le(blob.data + 62, 2) * 64;
  const char* names = (const char*)blob.data + get_le(names_header + 24, 8);
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* header = blob.data + table + i * 64;
    if (!strcmp(names + get_le(header, 4), name)) return header;
  }
  fail_msg("no section '%s'", name);
  return NULL;
}

static uint64_t section_index(blob_t blob, const char* name) {
  return (uint64_t)(section_header(blob, name) - blob.data -
                    get_le(blob.data + 40, 8)) / 64;
}

static uint8_t* section_bytes(blob_t blob, const char* name) {
  return blob.data + get_le(section_header(blob, name) + 24, 8);
}

static uint8_t* symbol_entry(blob_t blob, const char* name) {
  uint8_t* symtab = section_header(blob, ".symtab");
  uint64_t table = get_le(blob.data + 40, 8);
  const uint8_t* strtab = blob.data + table + get_le(symtab + 40, 4) * 64;
  const char* names = (const char*)blob.data + get_le(strtab + 24, 8);
  uint64_t count = get_le(symtab + 32, 8) / 24;
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* sym = blob.data + get_le(symtab + 24, 8) + i * 24;
    if (!strcmp(names + get_le(sym, 4), name)) return sym;
  }
  fail_msg("no symbol '%s'", name);
  return NULL;
}

static uint8_t* find_bytes(blob_t blob, const void* needle, size_t length) {
  for (size_t i = 0; i + length <= blob.length; ++i) {
    if (!memcmp(blob.data + i, needle, length)) return blob.data + i;
  }
  fail_msg("pattern of %zu bytes not found", length);
  return NULL;
}

/* The NT_AMDGPU_METADATA note's header (namesz, descsz, type). */
static uint8_t* metadata_note(blob_t blob) {
  return find_bytes(blob, "AMDGPU\0", 7) - 12;
}

static bool expected_failure(hrx_status_code_t code) {
  return code == HRX_STATUS_DATA_LOSS ||
         code == HRX_STATUS_INVALID_ARGUMENT ||
         code == HRX_STATUS_UNIMPLEMENTED;
}

/* Parses |blob|: a failure must be one of the loader's own codes; a
 * success (a flip in code bytes, say) must place without harm. */
static bool survives(blob_t blob) {
  hrx_amdgpu_object_t* object = NULL;
  hrx_status_t status = hrx_amdgpu_object_parse(
      blob.data, blob.length, hrx_allocator_system(), &object);
  if (status != HRX_OK) {
    assert_null(object);
    hrx_status_code_t code = hrx_status_code(status);
    if (!expected_failure(code)) {
      char text[512];
      hrx_status_format(status, text, sizeof(text));
      fail_msg("unexpected failure: %s", text);
    }
    hrx_status_free(status);
    return false;
  }
  if (hrx_amdgpu_object_image_size(object) <= PLACE_LIMIT) {
    placed_t p = place_at_home(object);
    free(p.block);
  }
  hrx_amdgpu_object_destroy(object);
  return true;
}

/* Runs |tool| with |args| (a shell fragment); true on exit status 0. */
static bool run_tool(const char* tool, const char* args, const char* dir) {
  char* command = test_strdup_printf("'%s' %s >'%s/tool.log' 2>&1", tool,
                                     args, dir);
  int rc = system(command);
  free(command);
  if (rc != 0) {
    char* path = test_strdup_printf("%s/tool.log", dir);
    char* log = test_read_text(path);
    print_message("%s failed: %s\n", tool, log);
    free(log);
    free(path);
  }
  return rc == 0;
}

static blob_t read_blob(const char* path) {
  blob_t blob = {0};
  assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 24,
                              (void**)&blob.data, &blob.length));
  return blob;
}

static void blob_free(blob_t* blob) {
  hrx_allocator_free(hrx_allocator_system(), blob->data);
  blob->data = NULL;
}

/*===------------------------------------------------------------------===*/
/* MessagePack                                                             */
/*===------------------------------------------------------------------===*/

static hrx_status_t read_all(const uint8_t* bytes, size_t length) {
  hrx_msgpack_reader_t r;
  hrx_msgpack_reader_init(&r, bytes, length, "test input");
  return hrx_msgpack_skip(&r);
}

static void test_msgpack_values(void** state) {
  (void)state;
  static const uint8_t bytes[] = {
      0x86,                                  /* map of 6 pairs */
      0xa1, 'a', 0x7f,                       /* "a": 127 */
      0xa1, 'b', 0xff,                       /* "b": -1 */
      0xa1, 'c', 0xd1, 0xff, 0x00,           /* "c": int16 -256 */
      0xa1, 'd', 0xce, 0x00, 0x01, 0x00, 0x00, /* "d": uint32 65536 */
      0xa1, 'e', 0x92, 0xc3, 0xc0,           /* "e": [true, nil] */
      0xd9, 0x01, 'f', 0xcb, 0, 0, 0, 0, 0, 0, 0, 0, /* str8 "f": 0.0 */
  };
  hrx_msgpack_reader_t r;
  hrx_msgpack_reader_init(&r, bytes, sizeof(bytes), "test input");
  hrx_msgpack_value_t v;
  assert_ok(hrx_msgpack_expect(&r, HRX_MSGPACK_MAP, "top", &v));
  assert_int_equal(v.count, 6);
  assert_ok(hrx_msgpack_read(&r, &v));
  assert_true(hrx_msgpack_str_equals(&v, "a"));
  assert_false(hrx_msgpack_str_equals(&v, "ab"));
  uint32_t u = 0;
  assert_ok(hrx_msgpack_read_u32(&r, "a", &u));
  assert_int_equal(u, 127);
  assert_ok(hrx_msgpack_read(&r, &v));
  assert_ok(hrx_msgpack_read(&r, &v));
  assert_int_equal(v.type, HRX_MSGPACK_INT);
  assert_int_equal(v.int_value, -1);
  assert_ok(hrx_msgpack_read(&r, &v));
  assert_ok(hrx_msgpack_read(&r, &v));
  assert_int_equal(v.type, HRX_MSGPACK_INT);
  assert_int_equal(v.int_value, -256);
  assert_ok(hrx_msgpack_read(&r, &v));
  assert_ok(hrx_msgpack_read_u32(&r, "d", &u));
  assert_int_equal(u, 65536);
  assert_ok(hrx_msgpack_read(&r, &v));
  assert_ok(hrx_msgpack_skip(&r));  /* the array */
  assert_ok(hrx_msgpack_expect(&r, HRX_MSGPACK_STR, "key", &v));
  assert_true(hrx_msgpack_str_equals(&v, "f"));
  assert_status(hrx_msgpack_read_u32(&r, "f", &u), HRX_STATUS_DATA_LOSS,
                "f is a float, not a non-negative integer");
  assert_status(hrx_msgpack_read(&r, &v), HRX_STATUS_DATA_LOSS,
                "test input: msgpack ends early at byte 36");
  /* The whole map skips as one value. */
  assert_ok(read_all(bytes, sizeof(bytes)));
  /* Too big for 32 bits, and a negative where a count belongs. */
  static const uint8_t big[] = {0xcf, 1, 0, 0, 0, 0, 0, 0, 0};
  hrx_msgpack_reader_init(&r, big, sizeof(big), "test input");
  assert_status(hrx_msgpack_read_u32(&r, "x", &u), HRX_STATUS_DATA_LOSS,
                "does not fit 32 bits");
  static const uint8_t negative[] = {0xd0, 0x80};
  hrx_msgpack_reader_init(&r, negative, sizeof(negative), "test input");
  assert_status(hrx_msgpack_read_u32(&r, "x", &u), HRX_STATUS_DATA_LOSS,
                "x is a negative integer");
}

static void test_msgpack_hostile(void** state) {
  (void)state;
  /* 32 nested arrays skip; 33 do not. */
  uint8_t nested[40];
  memset(nested, 0x91, sizeof(nested));
  nested[32] = 0xc0;
  assert_ok(read_all(nested, 33));
  nested[32] = 0x91;
  nested[33] = 0xc0;
  assert_status(read_all(nested, 34), HRX_STATUS_DATA_LOSS,
                "nests containers too deeply");
  /* Counts are checked against what is left before anything else. */
  static const uint8_t lying_array[] = {0xdd, 0xff, 0xff, 0xff, 0xff, 0, 0};
  assert_status(read_all(lying_array, sizeof(lying_array)),
                HRX_STATUS_DATA_LOSS, "claims more elements than bytes");
  static const uint8_t lying_map[] = {0x81, 0xc0};
  assert_status(read_all(lying_map, sizeof(lying_map)), HRX_STATUS_DATA_LOSS,
                "claims more elements");
  static const uint8_t lying_str[] = {0xdb, 0, 0, 1, 0, 'x'};
  assert_status(read_all(lying_str, sizeof(lying_str)), HRX_STATUS_DATA_LOSS,
                "runs past the end");
  static const uint8_t reserved[] = {0x92, 0x01, 0xc1};
  assert_status(read_all(reserved, sizeof(reserved)), HRX_STATUS_DATA_LOSS,
                "reserved tag 0xc1 at byte 2");
  static const uint8_t short_int[] = {0xcd, 0x01};
  assert_status(read_all(short_int, sizeof(short_int)), HRX_STATUS_DATA_LOSS,
                "ends early");
  assert_status(read_all(short_int, 0), HRX_STATUS_DATA_LOSS, "ends early");
  /* Extensions and binaries of every width skip. */
  static const uint8_t mixed[] = {0x95, 0xd4, 1, 2, 0xc7, 1, 9, 3, 0xc4, 1,
                                  4, 0xca, 0, 0, 0, 0, 0x80};
  assert_ok(read_all(mixed, sizeof(mixed)));
  /* Every truncation of a valid value fails, and no byte is read beyond
   * the length (ASan watches the heap copy). */
  for (size_t length = 0; length < sizeof(mixed); ++length) {
    uint8_t* copy = malloc(length ? length : 1);
    memcpy(copy, mixed, length);
    hrx_status_t status = read_all(copy, length);
    assert_int_equal(hrx_status_code(status), HRX_STATUS_DATA_LOSS);
    hrx_status_free(status);
    free(copy);
  }
}

/*===------------------------------------------------------------------===*/
/* Objects HRX compiles                                                    */
/*===------------------------------------------------------------------===*/

static const char* const linear_config[] = {"linear.k=256", "linear.n=13",
                                            NULL};
static const struct {
  const char* file;
  const char* const* config;
} kernel_files[] = {
    {"saxpy.loom", NULL},          {"gather.loom", NULL},
    {"histogram.loom", NULL},      {"reduce_sum.loom", NULL},
    {"transpose.loom", NULL},      {"row_dot.loom", NULL},
    {"linear_bf16.loom", linear_config}, {"affine_sampler.loom", NULL},
    {"ring_drain.loom", NULL},
};

static long json_long(json_t* object, const char* key) {
  json_t* value = json_object_get(object, key);
  assert_true(json_is_integer(value));
  return (long)json_integer_value(value);
}

/* The object's kernel |k| against the manifest's account of it. */
static void check_against_manifest(const hrx_loom_artifact_t* artifact,
                                   const hrx_amdgpu_object_t* object,
                                   json_t* entry) {
  const char* exported =
      json_string_value(json_object_get(entry, "export"));
  json_t* amdgpu = json_object_get(entry, "amdgpu");
  assert_non_null(amdgpu);
  const hrx_amdgpu_kernel_t* k = kernel_named(object, exported);
  assert_string_equal(k->symbol,
                      json_string_value(json_object_get(amdgpu, "descriptor")));
  assert_int_equal(k->kernarg_size, json_long(amdgpu, "kernarg_size"));
  assert_int_equal(k->group_segment_size,
                   json_long(amdgpu, "group_segment_size"));
  assert_int_equal(k->wavefront_size, json_long(amdgpu, "wavefront_size"));
  assert_int_equal(k->max_flat_workgroup_size,
                   json_long(amdgpu, "max_flat_workgroup_size"));
  assert_true(k->kernarg_alignment >= 8);
  assert_int_equal(k->descriptor_offset % 64, 0);
  assert_int_equal(k->entry_offset % 256, 0);
  assert_true(k->sgpr_count > 0 && k->vgpr_count > 0);
  json_t* args = json_object_get(amdgpu, "arguments");
  size_t explicit_count = 0;
  for (uint32_t a = 0; a < k->arg_count; ++a) {
    const hrx_amdgpu_arg_t* arg = &k->args[a];
    if (arg->kind != HRX_AMDGPU_ARG_BY_VALUE &&
        arg->kind != HRX_AMDGPU_ARG_GLOBAL_BUFFER) {
      continue;
    }
    json_t* expected = json_array_get(args, explicit_count++);
    assert_non_null(expected);
    assert_int_equal(arg->offset, json_long(expected, "offset"));
    assert_int_equal(arg->size, json_long(expected, "size"));
    assert_string_equal(
        arg->kind == HRX_AMDGPU_ARG_GLOBAL_BUFFER ? "global_buffer"
                                                  : "by_value",
        json_string_value(json_object_get(expected, "kind")));
  }
  assert_int_equal(explicit_count, json_array_size(args));
  const uint8_t* launch = NULL;
  size_t launch_length = 0;
  assert_ok(hrx_loom_artifact_launch_program(artifact, exported, &launch,
                                             &launch_length));
  assert_int_equal(k->launch_program_length, launch_length);
  assert_memory_equal(k->launch_program, launch, launch_length);
}

static void test_compiled_objects(void** state) {
  (void)state;
  for (size_t f = 0; f < sizeof(kernel_files) / sizeof(kernel_files[0]);
       ++f) {
    hrx_loom_artifact_t* artifact =
        gfx11_test_compile(kernel_files[f].file, kernel_files[f].config);
    size_t length = 0;
    const uint8_t* code = hrx_loom_artifact_code(artifact, &length);
    hrx_amdgpu_object_t* object = parse_ok((blob_t){(uint8_t*)code, length});
    assert_string_equal(hrx_amdgpu_object_target(object), "gfx1151");
    assert_int_equal(hrx_amdgpu_object_image_alignment(object), 256);
    json_error_t error;
    json_t* manifest =
        json_loads(hrx_loom_artifact_manifest(artifact), 0, &error);
    assert_non_null(manifest);
    json_t* kernels = json_object_get(manifest, "kernels");
    assert_int_equal(hrx_amdgpu_object_kernel_count(object),
                     json_array_size(kernels));
    for (size_t k = 0; k < json_array_size(kernels); ++k) {
      check_against_manifest(artifact, object, json_array_get(kernels, k));
    }
    assert_null(hrx_amdgpu_object_kernel(
        object, hrx_amdgpu_object_kernel_count(object)));
    json_decref(manifest);
    hrx_amdgpu_object_destroy(object);
    hrx_loom_artifact_destroy(artifact);
  }
}

/* saxpy's hidden arguments, in the code object v5 layout. */
static void test_hidden_arguments(void** state) {
  (void)state;
  blob_t blob = compile_object("saxpy.loom");
  hrx_amdgpu_object_t* object = parse_ok(blob);
  const hrx_amdgpu_kernel_t* k = kernel_named(object, "saxpy");
  static const struct {
    uint32_t offset, size;
    hrx_amdgpu_arg_kind_t kind;
  } expected[] = {
      {0, 8, HRX_AMDGPU_ARG_BY_VALUE},
      {8, 4, HRX_AMDGPU_ARG_BY_VALUE},
      {16, 8, HRX_AMDGPU_ARG_GLOBAL_BUFFER},
      {24, 8, HRX_AMDGPU_ARG_GLOBAL_BUFFER},
      {32, 4, HRX_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_X},
      {36, 4, HRX_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Y},
      {40, 4, HRX_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Z},
      {44, 2, HRX_AMDGPU_ARG_HIDDEN_GROUP_SIZE_X},
      {46, 2, HRX_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Y},
      {48, 2, HRX_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Z},
      {50, 2, HRX_AMDGPU_ARG_HIDDEN_REMAINDER_X},
      {52, 2, HRX_AMDGPU_ARG_HIDDEN_REMAINDER_Y},
      {54, 2, HRX_AMDGPU_ARG_HIDDEN_REMAINDER_Z},
      {72, 8, HRX_AMDGPU_ARG_HIDDEN_OTHER},  /* hidden_global_offset_x */
      {80, 8, HRX_AMDGPU_ARG_HIDDEN_OTHER},
      {88, 8, HRX_AMDGPU_ARG_HIDDEN_OTHER},
      {96, 2, HRX_AMDGPU_ARG_HIDDEN_GRID_DIMS},
  };
  assert_int_equal(k->arg_count, sizeof(expected) / sizeof(expected[0]));
  for (uint32_t a = 0; a < k->arg_count; ++a) {
    assert_int_equal(k->args[a].offset, expected[a].offset);
    assert_int_equal(k->args[a].size, expected[a].size);
    assert_int_equal(k->args[a].kind, expected[a].kind);
    /* The backend names each explicit argument's Loom type. */
    static const char* const types[] = {"index", "f32", "buffer", "buffer"};
    assert_string_equal(k->args[a].type_name, a < 4 ? types[a] : "");
  }
  assert_int_equal(k->required_workgroup_size[0], 0);
  assert_int_equal(k->private_segment_size, 0);
  hrx_amdgpu_object_destroy(object);
  free(blob.data);
}

/* HRX's objects carry only PC-relative relocations, so the image is the
 * same wherever it lands; the descriptor's code entry points at .text. */
static void test_place_two_addresses(void** state) {
  (void)state;
  blob_t blob = compile_object("saxpy.loom");
  hrx_amdgpu_object_t* object = parse_ok(blob);
  const hrx_amdgpu_kernel_t* k = kernel_named(object, "saxpy");
  uint64_t size = hrx_amdgpu_object_image_size(object);
  uint8_t* first = malloc(size);
  uint8_t* second = malloc(size);
  memset(first, 0xaa, size);
  assert_ok(hrx_amdgpu_object_place(object, 0x7f0000000000, first));
  assert_ok(hrx_amdgpu_object_place(object, 0x1000, second));
  assert_memory_equal(first, second, size);
  const uint8_t* kd = first + k->descriptor_offset;
  assert_int_equal((int64_t)get_le(kd + 16, 8),
                   (int64_t)(k->entry_offset - k->descriptor_offset));
  assert_int_equal(get_le(kd + 8, 4), k->kernarg_size);
  uint8_t* text = section_bytes(blob, ".text");
  assert_memory_equal(first + k->entry_offset, text, 64);
  assert_status(hrx_amdgpu_object_place(object, 0x1080, second),
                HRX_STATUS_INVALID_ARGUMENT, "not 256-byte aligned");
  free(first);
  free(second);
  hrx_amdgpu_object_destroy(object);
  free(blob.data);
}

/* The gfx11 model loads through the same reader. */
static void test_gfx11_image(void** state) {
  (void)state;
  hrx_gfx11_image_t* image = gfx11_test_load("saxpy.loom");
  uint64_t kd = 0;
  assert_ok(hrx_gfx11_image_kernel(image, "saxpy", &kd));
  hrx_gfx11_range_t range = hrx_gfx11_image_range(image);
  assert_int_equal(range.base % 256, 0);
  assert_true(kd >= range.base && kd + 64 <= range.base + range.size);
  assert_status(hrx_gfx11_image_kernel(image, "saxpy.kd", &kd),
                HRX_STATUS_NOT_FOUND, "no kernel 'saxpy.kd'");
  hrx_gfx11_image_destroy(image);
  hrx_gfx11_image_t* none = NULL;
  static const uint8_t junk[16] = {0x7f, 'E', 'L', 'F'};
  assert_status(hrx_gfx11_image_load(junk, sizeof(junk),
                                     hrx_allocator_system(), &none),
                HRX_STATUS_DATA_LOSS, "ELF64");
  assert_null(none);
}

typedef struct parse_context_t {
  blob_t blob;
  hrx_amdgpu_object_t* object;
} parse_context_t;

static hrx_status_t parse_with(hrx_allocator_t allocator, void* context) {
  parse_context_t* c = context;
  return hrx_amdgpu_object_parse(c->blob.data, c->blob.length, allocator,
                                 &c->object);
}

static void destroy_parsed(hrx_allocator_t allocator, void* context) {
  (void)allocator;
  parse_context_t* c = context;
  hrx_amdgpu_object_destroy(c->object);
  c->object = NULL;
}

static void test_allocation_failures(void** state) {
  (void)state;
  parse_context_t context = {.blob = compile_object("gather.loom")};
  assert_true(test_exhaust_allocations(parse_with, destroy_parsed,
                                       &context) > 5);
  free(context.blob.data);
}

/*===------------------------------------------------------------------===*/
/* Hostile input                                                           */
/*===------------------------------------------------------------------===*/

static void test_truncations(void** state) {
  (void)state;
  blob_t blob = compile_object("saxpy.loom");
  for (size_t length = 0; length < blob.length; ++length) {
    /* A fresh allocation of exactly |length| bytes, so ASan catches any
     * read past the end. */
    blob_t cut = blob_copy(blob.data, length ? length : 1);
    cut.length = length;
    assert_false(survives(cut));
    free(cut.data);
  }
  free(blob.data);
}

static void test_bit_flips(void** state) {
  (void)state;
  blob_t blob = compile_object("saxpy.loom");
  size_t parsed = 0;
  for (size_t i = 0; i < blob.length; ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      blob.data[i] ^= (uint8_t)(1u << bit);
      parsed += survives(blob);
      blob.data[i] ^= (uint8_t)(1u << bit);
    }
  }
  /* Flips inside code and padding leave a valid object; most others do
   * not. */
  assert_true(parsed > 0 && parsed < blob.length * 8);
  free(blob.data);
}

/* Each metadata byte set to values that change what msgpack sees: tags
 * of every container and string width, the reserved tag, extremes. */
static void test_metadata_bytes(void** state) {
  (void)state;
  static const uint8_t values[] = {0x00, 0x7f, 0x80, 0x8f, 0x9f, 0xbf, 0xc1,
                                   0xc7, 0xcf, 0xd3, 0xdb, 0xdc, 0xdd, 0xde,
                                   0xdf, 0xff};
  blob_t blob = compile_object("saxpy.loom");
  uint8_t* note = metadata_note(blob);
  size_t start = (size_t)(note - blob.data) + 20;
  size_t end = start + get_le(note + 4, 4);
  for (size_t i = start; i < end; ++i) {
    uint8_t saved = blob.data[i];
    for (size_t v = 0; v < sizeof(values); ++v) {
      blob.data[i] = values[v];
      (void)survives(blob);
    }
    blob.data[i] = saved;
  }
  free(blob.data);
}

typedef void (*edit_fn)(blob_t blob);

typedef struct malformed_t {
  const char* what;
  edit_fn edit;
  hrx_status_code_t code;
  const char* message;
} malformed_t;

static void edit_magic(blob_t b) { b.data[1] = 'X'; }
static void edit_class(blob_t b) { b.data[4] = 1; }
static void edit_abi(blob_t b) { b.data[8] = 1; }
static void edit_type(blob_t b) { put_le(b.data + 16, 2, 2); }
static void edit_machine(blob_t b) { put_le(b.data + 18, 62, 2); }
static void edit_gfx1100(blob_t b) { put_le(b.data + 48, 0x41, 4); }
static void edit_mach_unknown(blob_t b) { put_le(b.data + 48, 0x77, 4); }
static void edit_generic_v5(blob_t b) { put_le(b.data + 48, 0x1000054, 4); }
static void edit_section_table(blob_t b) {
  put_le(b.data + 40, b.length - 32, 8);
}
static void edit_section_outside(blob_t b) {
  put_le(section_header(b, ".text") + 24, b.length - 16, 8);
}
static void edit_section_align(blob_t b) {
  put_le(section_header(b, ".rodata") + 48, 48, 8);
}
static void edit_huge_alignment(blob_t b) {
  put_le(section_header(b, ".text") + 48, 1 << 20, 8);
}
static void edit_symtab_entsize(blob_t b) {
  put_le(section_header(b, ".symtab") + 56, 16, 8);
}
static void edit_note_outside(blob_t b) {
  put_le(metadata_note(b) + 4, 0x100000, 4);
}
static void edit_note_type(blob_t b) { put_le(metadata_note(b) + 8, 33, 4); }
static void edit_msgpack_truncated(blob_t b) {
  /* The note (the section's only one) and its section both shrink, so the
   * notes stay well-formed and only the msgpack ends early. */
  uint8_t* note = metadata_note(b);
  uint64_t desc = get_le(note + 4, 4) - 100;
  put_le(note + 4, desc, 4);
  put_le(section_header(b, ".note") + 32, 20 + ((desc + 3) & ~3u), 8);
}
static void edit_msgpack_lying_count(blob_t b) {
  /* The .args array (array16) claims 65535 elements. */
  uint8_t* args = find_bytes(b, "\xa5.args\xdc", 7);
  args[7] = 0xff;
  args[8] = 0xff;
}
static void edit_kernarg_size(blob_t b) {
  static const uint8_t key[] = "\xb5.kernarg_segment_size\xcd\x01\x20";
  uint8_t* at = find_bytes(b, key, sizeof(key) - 1);
  put_le(at + 23, 0x1000, 2);  /* big-endian 16 */
}
static void edit_args_overlap(blob_t b) {
  static const uint8_t key[] = "\xa7.offset\x08";
  find_bytes(b, key, sizeof(key) - 1)[8] = 0x04;
}
static void edit_wavefront(blob_t b) {
  static const uint8_t key[] = "\xaf.wavefront_size\x20";
  find_bytes(b, key, sizeof(key) - 1)[16] = 0x40;
}
static void edit_value_kind(blob_t b) {
  find_bytes(b, "\xa8" "by_value", 9)[5] = 'x';
}
static void edit_hidden_size(blob_t b) {
  static const uint8_t key[] =
      "\xa5.size\x04\xab.value_kind\xb4hidden_block_count_x";
  find_bytes(b, key, sizeof(key) - 1)[6] = 0x02;
}
static void edit_target_string(blob_t b) {
  find_bytes(b, "amdhsa--gfx1151", 15)[14] = '0';
}
static void edit_repeated_key(blob_t b) {
  /* ".sgpr_count" becomes a second ".vgpr_count". */
  find_bytes(b, "\xab.sgpr_count", 12)[2] = 'v';
}
static void edit_missing_symbol(blob_t b) {
  find_bytes(b, "saxpy.kd\0", 9)[7] = 'x';
}
static void edit_undefined_symbol(blob_t b) {
  put_le(symbol_entry(b, "saxpy.kd") + 6, 0, 2);
}
static void edit_descriptor_misaligned(blob_t b) {
  uint8_t* sym = symbol_entry(b, "saxpy.kd");
  put_le(sym + 6, section_index(b, ".note"), 2);
  put_le(sym + 8, 4, 8);
}
static void edit_descriptor_outside(blob_t b) {
  put_le(symbol_entry(b, "saxpy.kd") + 8, 200, 8);
}
static void edit_descriptor_short(blob_t b) {
  put_le(symbol_entry(b, "saxpy.kd") + 8, 32, 8);
}
static void edit_descriptor_group(blob_t b) {
  section_bytes(b, ".rodata")[0] = 16;
}
static void edit_descriptor_wave64(blob_t b) {
  section_bytes(b, ".rodata")[57] &= (uint8_t)~4u;
}
static void edit_entry_misaligned(blob_t b) {
  put_le(section_bytes(b, ".rela.rodata") + 16, 0x14, 8);
}
static void edit_reloc_type(blob_t b) {
  put_le(section_bytes(b, ".rela.rodata") + 8, 7, 4);
}
static void edit_reloc_outside(blob_t b) {
  put_le(section_bytes(b, ".rela.rodata"), 0x3c, 8);
}
static void edit_reloc_symbol(blob_t b) {
  put_le(section_bytes(b, ".rela.rodata") + 12, 99, 4);
}
static void edit_rel_section(blob_t b) {
  put_le(section_header(b, ".rela.rodata") + 4, 9, 4);
}
static void edit_launch_magic(blob_t b) {
  section_bytes(b, ".hrx.launch")[0] = 'X';
}
static void edit_launch_name(blob_t b) {
  find_bytes(b, "\x05\0\0\0saxpy", 9)[8] = 'Y';
}
static void edit_launch_length(blob_t b) {
  uint8_t* table = section_bytes(b, ".hrx.launch");
  put_le(table + 12 + 4 + 5, 0x10000, 4);
}

static const malformed_t malformed_cases[] = {
    {"bad magic", edit_magic, HRX_STATUS_DATA_LOSS, "bad magic"},
    {"ELF32", edit_class, HRX_STATUS_DATA_LOSS, "little-endian ELF64"},
    {"code object v3", edit_abi, HRX_STATUS_DATA_LOSS, "version 1"},
    {"ET_EXEC", edit_type, HRX_STATUS_DATA_LOSS, "ELF type 2"},
    {"x86-64", edit_machine, HRX_STATUS_DATA_LOSS, "machine 62"},
    {"gfx1100", edit_gfx1100, HRX_STATUS_INVALID_ARGUMENT,
     "targets gfx1100, not gfx1151"},
    {"unknown mach", edit_mach_unknown, HRX_STATUS_INVALID_ARGUMENT,
     "EF_AMDGPU_MACH 0x77"},
    {"generic under v5", edit_generic_v5, HRX_STATUS_DATA_LOSS,
     "without code object v6"},
    {"section table", edit_section_table, HRX_STATUS_DATA_LOSS,
     "section table outside the file"},
    {"section outside", edit_section_outside, HRX_STATUS_DATA_LOSS,
     "section 2 lies outside the file"},
    {"alignment 48", edit_section_align, HRX_STATUS_DATA_LOSS,
     "not a power of two"},
    {"alignment 1 MiB", edit_huge_alignment, HRX_STATUS_DATA_LOSS,
     "asks for alignment 1048576"},
    {"symbol size", edit_symtab_entsize, HRX_STATUS_DATA_LOSS,
     "entries of 16 bytes"},
    {"note outside", edit_note_outside, HRX_STATUS_DATA_LOSS,
     "runs past its section"},
    {"no metadata", edit_note_type, HRX_STATUS_DATA_LOSS,
     "no NT_AMDGPU_METADATA note"},
    {"msgpack truncated", edit_msgpack_truncated, HRX_STATUS_DATA_LOSS,
     "code object metadata: msgpack"},
    {"msgpack count", edit_msgpack_lying_count, HRX_STATUS_DATA_LOSS,
     "msgpack container claims more elements than bytes"},
    {"arg outside kernarg", edit_kernarg_size, HRX_STATUS_DATA_LOSS,
     "kernel 'saxpy' argument 2 lies outside the kernarg segment"},
    {"args overlap", edit_args_overlap, HRX_STATUS_DATA_LOSS,
     "kernel 'saxpy' arguments 0 and 1 overlap"},
    {"wave64", edit_wavefront, HRX_STATUS_DATA_LOSS, "wavefront size 64"},
    {"value kind", edit_value_kind, HRX_STATUS_UNIMPLEMENTED,
     "argument 0 has value kind 'by_vxlue'"},
    {"hidden size", edit_hidden_size, HRX_STATUS_DATA_LOSS,
     "argument 4 (hidden_block_count_x) is 2 bytes, not 4"},
    {"target string", edit_target_string, HRX_STATUS_DATA_LOSS,
     "'amdgcn-amd-amdhsa--gfx1150' disagrees with e_flags (gfx1151)"},
    {"repeated key", edit_repeated_key, HRX_STATUS_DATA_LOSS,
     "kernel 'saxpy' metadata repeats key .vgpr_count"},
    {"missing symbol", edit_missing_symbol, HRX_STATUS_DATA_LOSS,
     "descriptor symbol 'saxpy.kd' is missing"},
    {"undefined symbol", edit_undefined_symbol, HRX_STATUS_DATA_LOSS,
     "descriptor symbol 'saxpy.kd' is undefined"},
    {"descriptor misaligned", edit_descriptor_misaligned,
     HRX_STATUS_DATA_LOSS, "is not 64-byte aligned"},
    {"descriptor outside", edit_descriptor_outside, HRX_STATUS_DATA_LOSS,
     "lies outside the loaded sections"},
    {"descriptor short", edit_descriptor_short, HRX_STATUS_DATA_LOSS,
     "descriptor 'saxpy.kd' is not 64 loaded bytes"},
    {"descriptor group", edit_descriptor_group, HRX_STATUS_DATA_LOSS,
     "disagrees with the metadata"},
    {"descriptor wave64", edit_descriptor_wave64, HRX_STATUS_DATA_LOSS,
     "is not wave32"},
    {"entry misaligned", edit_entry_misaligned, HRX_STATUS_DATA_LOSS,
     "code entry (descriptor -"},
    {"GOTPCREL", edit_reloc_type, HRX_STATUS_UNIMPLEMENTED,
     "relocation type 7 (R_AMDGPU_GOTPCREL)"},
    {"reloc outside", edit_reloc_outside, HRX_STATUS_DATA_LOSS,
     "patches outside its target section"},
    {"reloc symbol", edit_reloc_symbol, HRX_STATUS_DATA_LOSS,
     "names symbol 99 of a 3-entry table"},
    {"REL section", edit_rel_section, HRX_STATUS_DATA_LOSS,
     "REL relocations"},
    {"launch magic", edit_launch_magic, HRX_STATUS_DATA_LOSS, "HXLT"},
    {"launch name", edit_launch_name, HRX_STATUS_DATA_LOSS,
     "launch table names kernel 'saxpY'"},
    {"launch length", edit_launch_length, HRX_STATUS_DATA_LOSS,
     "launch table ends early"},
};

static void test_malformed(void** state) {
  (void)state;
  blob_t original = compile_object("saxpy.loom");
  for (size_t c = 0; c < sizeof(malformed_cases) / sizeof(malformed_cases[0]);
       ++c) {
    const malformed_t* m = &malformed_cases[c];
    print_message("malformed: %s\n", m->what);
    blob_t blob = blob_copy(original.data, original.length);
    m->edit(blob);
    hrx_amdgpu_object_t* object = NULL;
    assert_status(hrx_amdgpu_object_parse(blob.data, blob.length,
                                          hrx_allocator_system(), &object),
                  m->code, m->message);
    assert_null(object);
    free(blob.data);
  }
  free(original.data);
}

/*===------------------------------------------------------------------===*/
/* Foreign objects: llvm-mc-19 and ld.lld-19                               */
/*===------------------------------------------------------------------===*/

/* A kernel plus a data table holding its own address (ABS64 against a
 * global symbol: a dynamic ABS64 once linked), a local address (against
 * the section: RELATIVE64 once linked) and the kernel's code address. */
static const char kernel_source[] =
    "\t.amdgcn_target \"amdgcn-amd-amdhsa--@TARGET@\"\n"
    "\t.amdhsa_code_object_version @VERSION@\n"
    "\t.text\n"
    "\t.globl add1\n"
    "\t.p2align 8\n"
    "\t.type add1,@function\n"
    "add1:\n"
    "\ts_load_b64 s[0:1], s[0:1], 0x0\n"
    "\ts_endpgm\n"
    ".Lend:\n"
    "\t.size add1, .Lend-add1\n"
    "\t.rodata\n"
    "\t.p2align 6\n"
    "\t.amdhsa_kernel add1\n"
    "\t\t.amdhsa_kernarg_size 24\n"
    "\t\t.amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
    "\t\t.amdhsa_wavefront_size32 1\n"
    "\t\t.amdhsa_next_free_vgpr 1\n"
    "\t\t.amdhsa_next_free_sgpr 2\n"
    "\t\t.amdhsa_group_segment_fixed_size 16\n"
    "\t.end_amdhsa_kernel\n"
    "\t.data\n"
    "\t.globl table\n"
    "\t.p2align 3\n"
    "table:\n"
    "\t.quad table\n"
    "\t.quad local\n"
    "\t.quad add1\n"
    "local:\n"
    "\t.quad 7\n"
    "\t.amdgpu_metadata\n"
    "---\n"
    "amdhsa.kernels:\n"
    "  - .args:\n"
    "      - .address_space: global\n"
    "        .name: p\n"
    "        .offset: 0\n"
    "        .size: 8\n"
    "        .type_name: 'float*'\n"
    "        .value_kind: global_buffer\n"
    "      - .offset: 8\n"
    "        .size: 4\n"
    "        .value_kind: by_value\n"
    "      - .offset: 16\n"
    "        .size: 2\n"
    "        .value_kind: hidden_grid_dims\n"
    "    .group_segment_fixed_size: 16\n"
    "    .kernarg_segment_align: 8\n"
    "    .kernarg_segment_size: 24\n"
    "    .max_flat_workgroup_size: 64\n"
    "    .reqd_workgroup_size: [ 64, 1, 1 ]\n"
    "    .name: add1\n"
    "    .private_segment_fixed_size: 0\n"
    "    .sgpr_count: 2\n"
    "    .symbol: add1.kd\n"
    "    .vgpr_count: 1\n"
    "    .wavefront_size: 32\n"
    "    .an_unknown_key: { nested: [ 1, [ 2, { x: y } ] ] }\n"
    "amdhsa.target: amdgcn-amd-amdhsa--@TARGET@\n"
    "amdhsa.version: [ 1, 2 ]\n"
    "...\n"
    "\t.end_amdgpu_metadata\n";

/* |source| with @TARGET@ and @VERSION@ substituted. */
static char* instantiate(const char* target, const char* version) {
  size_t capacity = sizeof(kernel_source) + 64;
  char* out = malloc(capacity);
  size_t used = 0;
  for (const char* s = kernel_source; *s;) {
    const char* with = NULL;
    if (!strncmp(s, "@TARGET@", 8)) with = target;
    if (!strncmp(s, "@VERSION@", 9)) with = version;
    if (with) {
      memcpy(out + used, with, strlen(with));
      used += strlen(with);
      s += with == target ? 8 : 9;
    } else {
      out[used++] = *s++;
    }
  }
  out[used] = '\0';
  return out;
}

/* Assembles the fixture for |target| into |dir|/|name|; false when
 * llvm-mc-19 is not installed. */
static bool assemble(const char* dir, const char* target,
                     const char* version, const char* name) {
  if (!HRX_TEST_LLVM_MC[0]) return false;
  char* source = instantiate(target, version);
  char* source_path = test_strdup_printf("%s/%s.s", dir, name);
  test_write_file(source_path, source, strlen(source));
  char* args = test_strdup_printf(
      "-triple=amdgcn-amd-amdhsa -mcpu=%s -filetype=obj '%s' -o '%s/%s'",
      target, source_path, dir, name);
  assert_true(run_tool(HRX_TEST_LLVM_MC, args, dir));
  free(args);
  free(source_path);
  free(source);
  return true;
}

static uint64_t symbol_value(blob_t blob, const char* name) {
  return get_le(symbol_entry(blob, name) + 8, 8);
}

/* The relocatable fixture: ABS64 against a global symbol, a section
 * symbol and a function, which move with the load address. */
static void check_assembled_rel(blob_t blob) {
  hrx_amdgpu_object_t* object = parse_ok(blob);
  assert_string_equal(hrx_amdgpu_object_target(object), "gfx1151");
  const hrx_amdgpu_kernel_t* k = kernel_named(object, "add1");
  assert_string_equal(k->symbol, "add1.kd");
  assert_int_equal(k->group_segment_size, 16);
  assert_int_equal(k->kernarg_size, 24);
  assert_int_equal(k->required_workgroup_size[0], 64);
  assert_int_equal(k->required_workgroup_size[1], 1);
  assert_int_equal(k->required_workgroup_size[2], 1);
  assert_int_equal(k->arg_count, 3);
  assert_string_equal(k->args[0].type_name, "float*");
  assert_int_equal(k->args[0].kind, HRX_AMDGPU_ARG_GLOBAL_BUFFER);
  assert_int_equal(k->args[2].kind, HRX_AMDGPU_ARG_HIDDEN_GRID_DIMS);
  assert_null(k->launch_program);
  assert_int_equal(k->launch_program_length, 0);
  /* Sections are laid out in order at their alignment: .text (12 bytes
   * at 0), then .rodata (64-aligned), then .data (8-aligned). */
  assert_int_equal(k->entry_offset, 0);
  assert_int_equal(k->descriptor_offset, 64);
  uint64_t data = 64 + 64;
  uint64_t size = hrx_amdgpu_object_image_size(object);
  uint8_t* first = malloc(size);
  uint8_t* second = malloc(size);
  uint64_t a = 0x100000000, b = 0x7fff00001000;
  assert_ok(hrx_amdgpu_object_place(object, a, first));
  assert_ok(hrx_amdgpu_object_place(object, b, second));
  assert_int_equal(get_le(first + data, 8), a + data);
  assert_int_equal(get_le(first + data + 8, 8), a + data + 24);
  assert_int_equal(get_le(first + data + 16, 8), a);
  assert_int_equal(get_le(second + data, 8), b + data);
  assert_int_equal(get_le(second + data + 16, 8), b);
  assert_int_equal(get_le(first + data + 24, 8), 7);
  /* The descriptor holds an offset: the same at both addresses. */
  assert_memory_equal(first + 64, second + 64, 64);
  assert_int_equal((int64_t)get_le(first + 64 + 16, 8), -64);
  free(first);
  free(second);
  hrx_amdgpu_object_destroy(object);
}

/* The linked fixture: PT_LOAD segments at their addresses, RELATIVE64 and
 * dynamic ABS64 relocations applied for the load address. */
static void check_linked(blob_t blob) {
  hrx_amdgpu_object_t* object = parse_ok(blob);
  const hrx_amdgpu_kernel_t* k = kernel_named(object, "add1");
  uint64_t alignment = hrx_amdgpu_object_image_alignment(object);
  assert_true(alignment >= 256);
  uint64_t table = symbol_value(blob, "table");
  uint64_t code = symbol_value(blob, "add1");
  assert_int_equal(k->descriptor_offset, symbol_value(blob, "add1.kd"));
  assert_int_equal(k->entry_offset, code);
  uint64_t size = hrx_amdgpu_object_image_size(object);
  assert_true(size >= table + 32);
  uint8_t* first = malloc(size);
  uint8_t* second = malloc(size);
  uint64_t a = alignment * 0x1000, b = alignment * 0x123456;
  assert_ok(hrx_amdgpu_object_place(object, a, first));
  assert_ok(hrx_amdgpu_object_place(object, b, second));
  assert_int_equal(get_le(first + table, 8), a + table);
  assert_int_equal(get_le(first + table + 8, 8), a + table + 24);
  assert_int_equal(get_le(first + table + 16, 8), a + code);
  assert_int_equal(get_le(second + table, 8), b + table);
  assert_int_equal(get_le(second + table + 8, 8), b + table + 24);
  assert_int_equal(get_le(second + table + 16, 8), b + code);
  assert_int_equal(get_le(first + table + 24, 8), 7);
  assert_memory_equal(first + k->descriptor_offset,
                      second + k->descriptor_offset, 64);
  /* s_endpgm ends the two-instruction kernel. */
  assert_int_equal(get_le(first + code + 8, 4), 0xbfb00000);
  free(first);
  free(second);
  hrx_amdgpu_object_destroy(object);
}

/* The first dynamic relocation entry of a linked object. */
static uint8_t* dynamic_reloc(blob_t blob) {
  return section_bytes(blob, ".rela.dyn");
}

static void check_linked_malformed(blob_t linked) {
  blob_t b = blob_copy(linked.data, linked.length);
  put_le(dynamic_reloc(b) + 8, 9, 4);
  assert_status(hrx_amdgpu_object_parse(b.data, b.length,
                                        hrx_allocator_system(),
                                        &(hrx_amdgpu_object_t*){NULL}),
                HRX_STATUS_UNIMPLEMENTED, "(R_AMDGPU_GOTPCREL32_HI)");
  memcpy(b.data, linked.data, b.length);
  put_le(dynamic_reloc(b), 0x7fff0000, 8);
  assert_status(hrx_amdgpu_object_parse(b.data, b.length,
                                        hrx_allocator_system(),
                                        &(hrx_amdgpu_object_t*){NULL}),
                HRX_STATUS_DATA_LOSS, "patches outside the loaded segments");
  /* The second PT_LOAD moved below the first. */
  memcpy(b.data, linked.data, b.length);
  uint64_t phoff = get_le(b.data + 32, 8);
  for (uint64_t i = 0, loads = 0; i < get_le(b.data + 56, 2); ++i) {
    uint8_t* h = b.data + phoff + i * 56;
    if (get_le(h, 4) == 1 && ++loads == 2) put_le(h + 16, 0, 8);
  }
  assert_status(hrx_amdgpu_object_parse(b.data, b.length,
                                        hrx_allocator_system(),
                                        &(hrx_amdgpu_object_t*){NULL}),
                HRX_STATUS_DATA_LOSS, "overlaps or precedes");
  free(b.data);
}

static void test_foreign_objects(void** state) {
  (void)state;
  char* dir = test_temp_dir_create();
  if (!assemble(dir, "gfx1151", "5", "add1.o")) {
    test_temp_dir_remove(dir);
    skip();
  }
  char* path = test_strdup_printf("%s/add1.o", dir);
  blob_t rel = read_blob(path);
  check_assembled_rel(rel);
  for (size_t length = 0; length < rel.length; length += 7) {
    blob_t cut = blob_copy(rel.data, length ? length : 1);
    cut.length = length;
    assert_false(survives(cut));
    free(cut.data);
  }
  if (HRX_TEST_LD_LLD[0]) {
    char* args = test_strdup_printf("-shared '%s' -o '%s/add1.so'", path, dir);
    assert_true(run_tool(HRX_TEST_LD_LLD, args, dir));
    free(args);
    char* so_path = test_strdup_printf("%s/add1.so", dir);
    blob_t linked = read_blob(so_path);
    check_linked(linked);
    check_linked_malformed(linked);
    for (size_t i = 0; i < linked.length; ++i) {
      linked.data[i] ^= 0x10;
      (void)survives(linked);
      linked.data[i] ^= 0x10;
    }
    blob_free(&linked);
    free(so_path);
  } else {
    print_message("ld.lld-19 not found: ET_DYN cases skipped\n");
  }
  blob_free(&rel);
  free(path);
  test_temp_dir_remove(dir);
}

/* gfx11-generic needs code object v6; the same kernel assembles to it. */
static void test_generic_target(void** state) {
  (void)state;
  char* dir = test_temp_dir_create();
  if (!assemble(dir, "gfx11-generic", "6", "generic.o")) {
    test_temp_dir_remove(dir);
    skip();
  }
  char* path = test_strdup_printf("%s/generic.o", dir);
  blob_t blob = read_blob(path);
  assert_int_equal(blob.data[8], 4);
  hrx_amdgpu_object_t* object = parse_ok(blob);
  assert_string_equal(hrx_amdgpu_object_target(object), "gfx11-generic");
  assert_int_equal(hrx_amdgpu_object_kernel_count(object), 1);
  hrx_amdgpu_object_destroy(object);
  /* Its metadata must name the same target as e_flags. */
  find_bytes(blob, "amdhsa--gfx11-generic", 21)[18] = '2';
  assert_status(hrx_amdgpu_object_parse(blob.data, blob.length,
                                        hrx_allocator_system(),
                                        &(hrx_amdgpu_object_t*){NULL}),
                HRX_STATUS_DATA_LOSS, "disagrees with e_flags (gfx11-generic)");
  blob_free(&blob);
  free(path);
  test_temp_dir_remove(dir);
}

/* A relocation this loader has no GOT for: UNIMPLEMENTED, named. */
static void test_unsupported_relocation(void** state) {
  (void)state;
  if (!HRX_TEST_LLVM_MC[0]) skip();
  char* dir = test_temp_dir_create();
  static const char source[] =
      "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx1151\"\n"
      "\t.amdhsa_code_object_version 5\n"
      "\t.text\n"
      "\t.p2align 8\n"
      "f:\n"
      "\ts_getpc_b64 s[0:1]\n"
      "\ts_add_u32 s0, s0, external@gotpcrel32@lo+4\n"
      "\ts_addc_u32 s1, s1, external@gotpcrel32@hi+12\n"
      "\ts_endpgm\n";
  char* source_path = test_strdup_printf("%s/got.s", dir);
  test_write_file(source_path, source, sizeof(source) - 1);
  char* args = test_strdup_printf(
      "-triple=amdgcn-amd-amdhsa -mcpu=gfx1151 -filetype=obj '%s' -o "
      "'%s/got.o'", source_path, dir);
  assert_true(run_tool(HRX_TEST_LLVM_MC, args, dir));
  char* path = test_strdup_printf("%s/got.o", dir);
  blob_t blob = read_blob(path);
  assert_status(hrx_amdgpu_object_parse(blob.data, blob.length,
                                        hrx_allocator_system(),
                                        &(hrx_amdgpu_object_t*){NULL}),
                HRX_STATUS_UNIMPLEMENTED,
                "relocation type 8 (R_AMDGPU_GOTPCREL32_LO) in section "
                "'.rela.text' is not supported");
  blob_free(&blob);
  free(path);
  free(args);
  free(source_path);
  test_temp_dir_remove(dir);
}

/* An object HRX compiled, linked into ET_DYN: the same kernels, the
 * launch programs still found in the unallocated .hrx.launch section. */
static void test_linked_loom_object(void** state) {
  (void)state;
  if (!HRX_TEST_LD_LLD[0]) skip();
  char* dir = test_temp_dir_create();
  blob_t rel = compile_object("gather.loom");
  char* path = test_strdup_printf("%s/gather.o", dir);
  test_write_file(path, rel.data, rel.length);
  char* args = test_strdup_printf("-shared '%s' -o '%s/gather.so'", path, dir);
  assert_true(run_tool(HRX_TEST_LD_LLD, args, dir));
  char* so_path = test_strdup_printf("%s/gather.so", dir);
  blob_t linked = read_blob(so_path);
  hrx_amdgpu_object_t* a = parse_ok(rel);
  hrx_amdgpu_object_t* b = parse_ok(linked);
  const hrx_amdgpu_kernel_t* ka = kernel_named(a, "gather_rows");
  const hrx_amdgpu_kernel_t* kb = kernel_named(b, "gather_rows");
  assert_int_equal(ka->kernarg_size, kb->kernarg_size);
  assert_int_equal(ka->arg_count, kb->arg_count);
  assert_int_equal(ka->launch_program_length, kb->launch_program_length);
  assert_memory_equal(ka->launch_program, kb->launch_program,
                      ka->launch_program_length);
  placed_t pa = place_at_home(a), pb = place_at_home(b);
  assert_memory_equal(pa.image + ka->entry_offset,
                      pb.image + kb->entry_offset, 256);
  free(pa.block);
  free(pb.block);
  hrx_amdgpu_object_destroy(a);
  hrx_amdgpu_object_destroy(b);
  blob_free(&linked);
  free(rel.data);
  free(so_path);
  free(args);
  free(path);
  test_temp_dir_remove(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_msgpack_values),
      cmocka_unit_test(test_msgpack_hostile),
      cmocka_unit_test(test_compiled_objects),
      cmocka_unit_test(test_hidden_arguments),
      cmocka_unit_test(test_place_two_addresses),
      cmocka_unit_test(test_gfx11_image),
      cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_truncations),
      cmocka_unit_test(test_bit_flips),
      cmocka_unit_test(test_metadata_bytes),
      cmocka_unit_test(test_malformed),
      cmocka_unit_test(test_foreign_objects),
      cmocka_unit_test(test_generic_target),
      cmocka_unit_test(test_unsupported_relocation),
      cmocka_unit_test(test_linked_loom_object),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
