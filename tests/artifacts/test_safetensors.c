/* safetensors views of files written by numpy (make_safetensors.py), and
 * one failing case for every validation rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/artifacts.h"
#include "producer.h"
#include "test_support.h"

static int make_files(void** state) {
  *state = artifacts_produce("make_safetensors.py", "50");
  return *state ? 0 : -1;
}

static int remove_files(void** state) {
  test_temp_dir_remove(*state);
  return 0;
}

static void check_good(hrx_safetensors_t* v, bool mapped) {
  assert_int_equal(hrx_safetensors_count(v), 6);
  const hrx_safetensors_tensor_t* t = NULL;
  assert_ok(hrx_safetensors_find(v, "weight", &t));
  assert_int_equal(t->dtype, HRX_DTYPE_F32);
  assert_int_equal(t->rank, 2);
  assert_int_equal(t->shape[0], 2);
  assert_int_equal(t->shape[1], 3);
  assert_int_equal(t->elements, 6);
  assert_int_equal(t->length, 24);
  float weight[6];
  assert_ok(hrx_safetensors_read(v, t, weight, sizeof(weight)));
  for (int i = 0; i < 6; ++i) assert_true(weight[i] == (float)i);
  const void* bytes = NULL;
  if (mapped) {
    assert_ok(hrx_safetensors_bytes(v, t, &bytes));
    assert_memory_equal(bytes, weight, sizeof(weight));
  } else {
    assert_status_code(hrx_safetensors_bytes(v, t, &bytes),
                       HRX_STATUS_FAILED_PRECONDITION);
  }
  assert_status_code(hrx_safetensors_read(v, t, weight, 8),
                     HRX_STATUS_OUT_OF_RANGE);
  assert_ok(hrx_safetensors_find(v, "scale", &t));
  assert_int_equal(t->dtype, HRX_DTYPE_BF16);
  uint16_t scale[4];
  assert_ok(hrx_safetensors_read(v, t, scale, sizeof(scale)));
  assert_int_equal(scale[0], 0x3F80);
  assert_int_equal(scale[2], 0xBF00);
  assert_ok(hrx_safetensors_find(v, "step", &t));
  assert_int_equal(t->rank, 0);
  assert_int_equal(t->elements, 1);
  int64_t step = 0;
  assert_ok(hrx_safetensors_read(v, t, &step, sizeof(step)));
  assert_int_equal(step, 7);
  assert_ok(hrx_safetensors_find(v, "empty", &t));
  assert_int_equal(t->length, 0);
  assert_int_equal(t->elements, 0);
  assert_ok(hrx_safetensors_advise(v, t, HRX_SAFETENSORS_WILLNEED));
  assert_ok(hrx_safetensors_find(v, "mask", &t));
  assert_int_equal(t->dtype, HRX_DTYPE_BOOL);
  for (int a = 0; a < 3; ++a) {
    assert_ok(hrx_safetensors_advise(v, t, (hrx_safetensors_advice_t)a));
  }
  assert_status_code(
      hrx_safetensors_advise(v, t, (hrx_safetensors_advice_t)9),
      HRX_STATUS_INVALID_ARGUMENT);
  hrx_status_t status = hrx_safetensors_find(v, "nope", &t);
  assert_non_null(strstr(hrx_status_message(status), "no tensor 'nope'"));
  assert_status_code(status, HRX_STATUS_NOT_FOUND);
  /* Data order: ascending offsets. */
  for (size_t i = 1; i < hrx_safetensors_count(v); ++i) {
    assert_true(hrx_safetensors_at(v, i - 1)->file_offset <=
                hrx_safetensors_at(v, i)->file_offset);
  }
  assert_null(hrx_safetensors_at(v, 6));
  assert_int_equal(hrx_safetensors_metadata_count(v), 2);
  bool found = false;
  for (size_t i = 0; i < hrx_safetensors_metadata_count(v); ++i) {
    const hrx_safetensors_metadata_t* m = hrx_safetensors_metadata_at(v, i);
    if (!strcmp(m->key, "format")) found = !strcmp(m->value, "pt");
  }
  assert_true(found);
}

static void test_numpy_file_both_modes(void** state) {
  char* path = test_strdup_printf("%s/good.safetensors", (char*)*state);
  for (int mode = 0; mode < 2; ++mode) {
    hrx_safetensors_options_t options =
        HRX_STRUCT_INIT(hrx_safetensors_options_t);
    options.mode = (hrx_safetensors_mode_t)mode;
    hrx_safetensors_t* v = NULL;
    assert_ok(hrx_safetensors_open(path, &options, hrx_allocator_system(), &v));
    check_good(v, mode == HRX_SAFETENSORS_MAP);
    /* file_range: a descriptor of our own and the absolute range. */
    int fd = -1;
    uint64_t offset = 0, length = 0;
    assert_ok(hrx_safetensors_file_range(v, "weight", &fd, &offset, &length));
    float weight[6];
    assert_int_equal(pread(fd, weight, length, (off_t)offset), 24);
    assert_true(weight[5] == 5.0f);
    close(fd);
    hrx_safetensors_destroy(v);
  }
  hrx_safetensors_t* v = NULL;
  char* many = test_strdup_printf("%s/many.safetensors", (char*)*state);
  assert_ok(hrx_safetensors_open(many, NULL, hrx_allocator_system(), &v));
  assert_int_equal(hrx_safetensors_count(v), 50);
  const hrx_safetensors_tensor_t* t = NULL;
  assert_ok(hrx_safetensors_find(v, "layers.49.w", &t));
  assert_int_equal(t->length, 16 * 16 * 4);
  hrx_safetensors_destroy(v);
  assert_status_code(hrx_safetensors_open("/nonexistent.safetensors", NULL,
                                          hrx_allocator_system(), &v),
                     HRX_STATUS_NOT_FOUND);
  free(many);
  free(path);
}

/* Options from a newer caller open the file while the members this
 * library does not know are zero; a set one, or a size 0, is refused. */
static void test_options_struct_size(void** state) {
  char* path = test_strdup_printf("%s/good.safetensors", (char*)*state);
  struct {
    hrx_safetensors_options_t known;
    uint64_t future;
  } newer;
  memset(&newer, 0, sizeof(newer));
  newer.known.struct_size = sizeof(newer);
  hrx_safetensors_t* v = NULL;
  assert_ok(hrx_safetensors_open(path, &newer.known, hrx_allocator_system(),
                                 &v));
  hrx_safetensors_destroy(v);
  v = NULL;
  newer.future = 1;
  assert_status(hrx_safetensors_open(path, &newer.known,
                                     hrx_allocator_system(), &v),
                HRX_STATUS_INVALID_ARGUMENT, "hrx_safetensors_options_t is");
  assert_null(v);
  hrx_safetensors_options_t zero = {0};
  assert_status(
      hrx_safetensors_open(path, &zero, hrx_allocator_system(), &v),
      HRX_STATUS_INVALID_ARGUMENT,
      "HRX_STRUCT_INIT(hrx_safetensors_options_t)");
  assert_null(v);
  free(path);
}

/* An image with |header| and |data_size| zero bytes of data. */
static uint8_t* image(const char* header, size_t data_size, size_t* out) {
  size_t n = strlen(header);
  uint8_t* bytes = calloc(1, 8 + n + data_size + 1);
  for (int i = 0; i < 8; ++i) bytes[i] = (uint8_t)((uint64_t)n >> (8 * i));
  memcpy(bytes + 8, header, n);
  *out = 8 + n + data_size;
  return bytes;
}

static void test_every_rule_has_a_failing_case(void** state) {
  (void)state;
  struct {
    const char* header;
    size_t data;
    const char* message;
  } cases[] = {
      {"{\"a\":", 0, "header JSON"},
      {"[1]", 0, "not a JSON object"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
       "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
       8, "header JSON"},
      {"{\"a\":3}", 0, "is not an object"},
      {"{\"a\":{\"dtype\":\"F33\",\"shape\":[],\"data_offsets\":[0,4]}}", 4,
       "unknown dtype 'F33'"},
      {"{\"a\":{\"shape\":[],\"data_offsets\":[0,4]}}", 4,
       "no string \"dtype\""},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":3,\"data_offsets\":[0,4]}}", 4,
       "\"shape\" array"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
       "1],\"data_offsets\":[0,4]}}",
       4, "at most 16"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4,
       "dimension 0 is not a non-negative"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}",
       4, "dimension 0"},
      {"{\"a\":{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296],"
       "\"data_offsets\":[0,4]}}",
       4, "more elements than fit"},
      {"{\"a\":{\"dtype\":\"F64\",\"shape\":[4294967296,536870912],"
       "\"data_offsets\":[0,4]}}",
       4, "larger than 2^64 bytes"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 4,
       "[begin, end]"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,\"4\"]}}",
       4, "[begin, end]"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,0]}}", 4,
       "not inside"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 2,
       "not inside the 2-byte data section"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 8,
       "spans 4 bytes; its F32 shape needs 8"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
       "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
       8, "overlap"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],"
       "\"extra\":1}}",
       4, "unknown field \"extra\""},
      {"{\"__metadata__\":{\"k\":1}}", 0, "metadata \"k\" is not a string"},
      {"{\"__metadata__\":[]}", 0, "\"__metadata__\" must be an object"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    size_t length = 0;
    uint8_t* bytes = image(cases[i].header, cases[i].data, &length);
    hrx_safetensors_t* v = NULL;
    hrx_status_t status = hrx_safetensors_open_memory(
        bytes, length, 0, hrx_allocator_system(), &v);
    if (!status || !strstr(hrx_status_message(status), cases[i].message)) {
      fail_msg("case %zu: %s", i, status ? hrx_status_message(status) : "OK");
    }
    assert_null(v);
    assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
    free(bytes);
  }
  /* The length prefix: too short, past the end, over the cap. */
  uint8_t tiny[4] = {0};
  hrx_safetensors_t* v = NULL;
  hrx_status_t status = hrx_safetensors_open_memory(
      tiny, sizeof(tiny), 0, hrx_allocator_system(), &v);
  assert_non_null(strstr(hrx_status_message(status), "shorter than"));
  hrx_status_free(status);
  size_t length = 0;
  uint8_t* bytes = image("{}", 0, &length);
  bytes[0] = 200; /* claims 200 header bytes */
  status = hrx_safetensors_open_memory(bytes, length, 0,
                                       hrx_allocator_system(), &v);
  assert_non_null(strstr(hrx_status_message(status), "runs past the end"));
  hrx_status_free(status);
  bytes[0] = 2;
  status = hrx_safetensors_open_memory(bytes, length, 1,
                                       hrx_allocator_system(), &v);
  assert_non_null(strstr(hrx_status_message(status), "exceeds the 1-byte cap"));
  hrx_status_free(status);
  /* The smallest valid file: no tensors. */
  assert_ok(hrx_safetensors_open_memory(bytes, length, 0,
                                        hrx_allocator_system(), &v));
  assert_int_equal(hrx_safetensors_count(v), 0);
  int fd = -1;
  uint64_t offset = 0;
  assert_status_code(hrx_safetensors_file_range(v, "x", &fd, &offset, &offset),
                     HRX_STATUS_NOT_FOUND);
  hrx_safetensors_destroy(v);
  free(bytes);
}

/* A FIFO or a device is refused at once in both modes: opening or reading
 * one would block for ever or never end. */
static void test_special_files_are_refused(void** state) {
  char* fifo = test_strdup_printf("%s/fifo.safetensors", (char*)*state);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  for (int mode = HRX_SAFETENSORS_MAP; mode <= HRX_SAFETENSORS_READ; ++mode) {
    hrx_safetensors_options_t options =
        HRX_STRUCT_INIT(hrx_safetensors_options_t);
    options.mode = mode;
    hrx_safetensors_t* v = NULL;
    hrx_status_t status =
        hrx_safetensors_open(fifo, &options, hrx_allocator_system(), &v);
    assert_non_null(strstr(hrx_status_message(status), "is a FIFO"));
    assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
    status = hrx_safetensors_open("/dev/zero", &options,
                                  hrx_allocator_system(), &v);
    assert_non_null(strstr(hrx_status_message(status), "character device"));
    assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
    assert_null(v);
  }
  free(fifo);
}

/* Tensor names, metadata keys and the JSON text near an error come from
 * the file: messages show them escaped, so none can clear the user's
 * terminal or forge a line. */
static void test_names_in_messages_are_escaped(void** state) {
  (void)state;
  static const struct {
    const char* header;
    const char* message;
  } cases[] = {
      {"{\"\\u001b[2J\\nx\":{\"dtype\":\"F33\",\"shape\":[],"
       "\"data_offsets\":[0,4]}}",
       "tensor '\\x1b[2J\\nx': unknown dtype"},
      {"{\"__metadata__\":{\"\\u001b[2J\\n\":1}}",
       "metadata \"\\x1b[2J\\n\" is not a string"},
      {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],"
       "\"\\u001b[2J\":1}}",
       "unknown field \"\\x1b[2J\""},
      {"{\"\x1b[2J\n\":1}", "header JSON"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    size_t length = 0;
    uint8_t* bytes = image(cases[i].header, 4, &length);
    hrx_safetensors_t* v = NULL;
    hrx_status_t status = hrx_safetensors_open_memory(
        bytes, length, 0, hrx_allocator_system(), &v);
    const char* message = status ? hrx_status_message(status) : "OK";
    if (!strstr(message, cases[i].message) || strchr(message, '\x1b') ||
        strchr(message, '\n')) {
      fail_msg("case %zu: %s", i, message);
    }
    hrx_status_free(status);
    free(bytes);
  }
}

/* Repeated tensor names are refused by a hash lookup per name (jansson's
 * JSON_REJECT_DUPLICATES), not by comparing every pair: a header with
 * 100,000 tensors opens at once. */
static void test_many_tensors(void** state) {
  (void)state;
  const size_t count = 100000;
  hrx_string_builder_t header;
  hrx_string_builder_init(hrx_allocator_system(), &header);
  assert_ok(hrx_string_builder_append_cstr(&header, "{"));
  for (size_t i = 0; i <= count; ++i) {
    /* The last one repeats the first tensor's name. */
    assert_ok(hrx_string_builder_appendf(
        &header,
        "%s\"t%zu\":{\"dtype\":\"U8\",\"shape\":[1],"
        "\"data_offsets\":[%zu,%zu]}",
        i ? "," : "", i == count ? 0 : i, i, i + 1));
  }
  assert_ok(hrx_string_builder_append_cstr(&header, "}"));
  size_t length = 0;
  uint8_t* bytes =
      image(hrx_string_builder_cstr(&header), count + 1, &length);
  hrx_safetensors_t* v = NULL;
  hrx_status_t status = hrx_safetensors_open_memory(
      bytes, length, 0, hrx_allocator_system(), &v);
  assert_non_null(strstr(hrx_status_message(status), "duplicate"));
  assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  free(bytes);
  /* Without the repeat: all of them, found by name. */
  strcpy(strstr(header.data, ",\"t0\":"), "}");
  bytes = image(hrx_string_builder_cstr(&header), count, &length);
  assert_ok(hrx_safetensors_open_memory(bytes, length, 0,
                                        hrx_allocator_system(), &v));
  assert_int_equal(hrx_safetensors_count(v), count);
  const hrx_safetensors_tensor_t* t = NULL;
  assert_ok(hrx_safetensors_find(v, "t99999", &t));
  assert_int_equal(t->length, 1);
  hrx_safetensors_destroy(v);
  free(bytes);
  hrx_string_builder_deinit(&header);
}

/* Every allocation failure while opening is reported and frees all. */
static hrx_status_t open_many(hrx_allocator_t allocator, void* context) {
  hrx_safetensors_t* v = NULL;
  HRX_RETURN_IF_ERROR(hrx_safetensors_open(context, NULL, allocator, &v));
  hrx_safetensors_destroy(v);
  return HRX_OK;
}

static void test_allocation_failures(void** state) {
  char* path = test_strdup_printf("%s/good.safetensors", (char*)*state);
  assert_true(test_exhaust_allocations(open_many, NULL, path) > 10);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_numpy_file_both_modes),
      cmocka_unit_test(test_options_struct_size),
      cmocka_unit_test(test_every_rule_has_a_failing_case),
      cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_special_files_are_refused),
      cmocka_unit_test(test_names_in_messages_are_escaped),
      cmocka_unit_test(test_many_tensors),
  };
  return cmocka_run_group_tests(tests, make_files, remove_files);
}
