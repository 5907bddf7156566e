/* ONNX models built by python3-onnx (make_onnx.py) at test time, and the
 * decoder's refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/artifacts.h"
#include "producer.h"
#include "test_support.h"

static int make_models(void** state) {
  *state = artifacts_produce("make_onnx.py", "");
  return *state ? 0 : -1;
}

static int remove_models(void** state) {
  test_temp_dir_remove(*state);
  return 0;
}

static hrx_onnx_model_t* open_model(const char* dir, const char* name) {
  char* path = test_strdup_printf("%s/%s", dir, name);
  hrx_onnx_model_t* m = NULL;
  assert_ok(hrx_onnx_open(path, hrx_allocator_system(), &m));
  free(path);
  return m;
}

static void test_model_index(void** state) {
  hrx_onnx_model_t* m = open_model(*state, "model.onnx");
  const hrx_onnx_model_info_t* info = hrx_onnx_info(m);
  assert_int_equal(info->struct_size, sizeof(*info));
  assert_true(info->ir_version >= 7);
  assert_string_equal(info->producer_name, "hrx-test");
  assert_string_equal(info->producer_version, "1.0");
  assert_string_equal(info->graph_name, "main");
  assert_int_equal(info->opset_count, 2);
  assert_string_equal(info->opsets[0].domain, "");
  assert_int_equal(info->opsets[0].version, 13);
  assert_string_equal(info->opsets[1].domain, "test");
  assert_int_equal(info->node_count, 4);
  const hrx_onnx_node_t* conv = &info->nodes[0];
  assert_string_equal(conv->op_type, "Conv");
  assert_int_equal(conv->input_count, 3);
  assert_string_equal(conv->inputs[1], "W");
  assert_string_equal(info->nodes[3].domain, "test");

  /* Graph inputs and outputs with symbolic and fixed dimensions. */
  assert_int_equal(info->input_count, 1);
  const hrx_onnx_value_info_t* x = &info->inputs[0];
  assert_string_equal(x->name, "X");
  assert_int_equal(x->dtype, HRX_ONNX_FLOAT);
  assert_int_equal(x->rank, 4);
  assert_string_equal(x->dims[0].param, "batch");
  assert_null(x->dims[1].param);
  assert_int_equal(x->dims[3].value, 8);
  assert_int_equal(info->output_count, 1);

  /* Initializers: raw bytes (numpy) and typed values (make_tensor). */
  const hrx_onnx_tensor_t* w = NULL;
  assert_ok(hrx_onnx_find_initializer(m, "W", &w));
  assert_int_equal(w->dtype, HRX_ONNX_FLOAT);
  assert_int_equal(w->rank, 4);
  assert_int_equal(w->elements, 108);
  assert_int_equal(w->raw_length, 108 * 4);
  float last;
  memcpy(&last, w->raw + 107 * 4, 4);
  assert_true(last == 107.0f);
  const hrx_onnx_tensor_t* b = NULL;
  assert_ok(hrx_onnx_find_initializer(m, "B", &b));
  assert_null(b->raw);
  assert_int_equal(b->elements, 4);
  const hrx_onnx_tensor_t* missing = NULL;
  assert_status_code(hrx_onnx_find_initializer(m, "nope", &missing),
                     HRX_STATUS_NOT_FOUND);
  /* Decoding: typed float_data and raw bytes alike. */
  float bias[4];
  assert_ok(hrx_onnx_tensor_read(b, bias, sizeof(bias)));
  assert_true(bias[0] == 0.5f && bias[3] == 3.5f);
  assert_status_code(hrx_onnx_tensor_read(b, bias, 8), HRX_STATUS_OUT_OF_RANGE);
  float weights[108];
  assert_ok(hrx_onnx_tensor_read(w, weights, sizeof(weights)));
  assert_true(weights[107] == 107.0f);
  const hrx_onnx_tensor_t* shape = NULL;
  assert_ok(hrx_onnx_find_initializer(m, "S", &shape));
  int64_t dims[2];
  assert_ok(hrx_onnx_tensor_read(shape, dims, sizeof(dims)));
  assert_int_equal(dims[0], -1);
  assert_int_equal(dims[1], 256);

  const hrx_onnx_node_t* producer = NULL;
  assert_ok(hrx_onnx_find_producer(m, "Y", &producer));
  assert_string_equal(producer->name, "attrs");
  assert_status_code(hrx_onnx_find_producer(m, "X", &producer),
                     HRX_STATUS_NOT_FOUND);
  hrx_onnx_destroy(m);
}

static void test_attributes_of_every_type(void** state) {
  hrx_onnx_model_t* m = open_model(*state, "model.onnx");
  const hrx_onnx_model_info_t* info = hrx_onnx_info(m);
  const hrx_onnx_node_t* node = &info->nodes[3];
  const hrx_onnx_attribute_t* a = NULL;
  assert_ok(hrx_onnx_attribute(node, "f", HRX_ONNX_ATTR_FLOAT, &a));
  assert_true(a->f == 1.5);
  assert_ok(hrx_onnx_attribute(node, "i", HRX_ONNX_ATTR_INT, &a));
  assert_int_equal(a->i, 7);
  assert_ok(hrx_onnx_attribute(node, "s", HRX_ONNX_ATTR_STRING, &a));
  assert_string_equal(a->s, "hi");
  assert_ok(hrx_onnx_attribute(node, "t", HRX_ONNX_ATTR_TENSOR, &a));
  assert_int_equal(a->t->dtype, HRX_ONNX_INT32);
  assert_int_equal(a->t->elements, 2);
  int32_t small[2];
  assert_ok(hrx_onnx_tensor_read(a->t, small, sizeof(small)));
  assert_int_equal(small[0], 3);
  assert_int_equal(small[1], 4);
  assert_ok(hrx_onnx_attribute(node, "g", HRX_ONNX_ATTR_GRAPH, &a));
  assert_ok(hrx_onnx_attribute(node, "floats", HRX_ONNX_ATTR_FLOATS, &a));
  assert_int_equal(a->count, 2);
  assert_true(a->floats[1] == 2.0f);
  assert_ok(hrx_onnx_attribute(node, "ints", HRX_ONNX_ATTR_INTS, &a));
  assert_int_equal(a->count, 3);
  assert_int_equal(a->ints[2], 3);
  assert_ok(hrx_onnx_attribute(node, "strings", HRX_ONNX_ATTR_STRINGS, &a));
  assert_int_equal(a->count, 2);
  assert_ok(hrx_onnx_attribute(node, "tensors", HRX_ONNX_ATTR_TENSORS, &a));
  assert_int_equal(a->count, 1);
  assert_ok(hrx_onnx_attribute(node, "graphs", HRX_ONNX_ATTR_GRAPHS, &a));
  /* Asking for the wrong type names node and attribute. */
  hrx_status_t status =
      hrx_onnx_attribute(node, "i", HRX_ONNX_ATTR_FLOAT, &a);
  assert_non_null(strstr(hrx_status_message(status),
                          "attribute 'i' of node 'attrs' (Attrs) is INT, "
                          "not FLOAT"));
  assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  status = hrx_onnx_attribute(node, "zz", HRX_ONNX_ATTR_INT, &a);
  assert_non_null(strstr(hrx_status_message(status), "no attribute 'zz'"));
  assert_status_code(status, HRX_STATUS_NOT_FOUND);
  /* Conv's kernel_shape, as ONNX writes it (unpacked ints). */
  assert_ok(hrx_onnx_attribute(&info->nodes[0], "kernel_shape",
                               HRX_ONNX_ATTR_INTS, &a));
  assert_int_equal(a->count, 2);
  assert_int_equal(a->ints[0], 3);
  hrx_onnx_destroy(m);
}

static void test_external_data(void** state) {
  hrx_onnx_model_t* m = open_model(*state, "external.onnx");
  const hrx_onnx_tensor_t* e = NULL;
  assert_ok(hrx_onnx_find_initializer(m, "E", &e));
  assert_null(e->raw);
  assert_non_null(strstr(e->external_path, "/weights.bin"));
  assert_int_equal(e->external_length, 1024);
  float values[256];
  assert_ok(hrx_onnx_tensor_read(e, values, sizeof(values)));
  assert_true(values[255] == 255.0f);
  /* A shortened external file is reported, not read past. */
  assert_int_equal(truncate(e->external_path, 512), 0);
  hrx_status_t status = hrx_onnx_tensor_read(e, values, sizeof(values));
  assert_non_null(strstr(hrx_status_message(status), "ends before tensor"));
  assert_status_code(status, HRX_STATUS_DATA_LOSS);
  hrx_onnx_destroy(m);
}

static void expect_refusal(const char* dir, const char* name,
                           const char* message);

/* A FIFO or a device where a model or its external data should be is
 * refused at once: reading one would block for ever or never end. */
static void test_special_files_are_refused(void** state) {
  const char* dir = *state;
  char* fifo = test_strdup_printf("%s/fifo.onnx", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  hrx_onnx_model_t* m = NULL;
  hrx_status_t status = hrx_onnx_open(fifo, hrx_allocator_system(), &m);
  assert_non_null(strstr(hrx_status_message(status), "FIFO"));
  assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  status = hrx_onnx_open("/dev/zero", hrx_allocator_system(), &m);
  assert_non_null(strstr(hrx_status_message(status), "character device"));
  assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);

  /* external.onnx beside a FIFO named like its weights. */
  char* sub = test_strdup_printf("%s/fifo_data", dir);
  assert_ok(hrx_dir_create_all(sub, 0755));
  char* from = test_strdup_printf("%s/external.onnx", dir);
  char* to = test_strdup_printf("%s/external.onnx", sub);
  void* data = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), from, 1 << 20, &data,
                              &length));
  test_write_file(to, data, length);
  char* weights = test_strdup_printf("%s/weights.bin", sub);
  assert_int_equal(mkfifo(weights, 0600), 0);
  m = open_model(sub, "external.onnx");
  const hrx_onnx_tensor_t* e = NULL;
  assert_ok(hrx_onnx_find_initializer(m, "E", &e));
  float values[256];
  status = hrx_onnx_tensor_read(e, values, sizeof(values));
  assert_non_null(strstr(hrx_status_message(status), "FIFO"));
  assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  hrx_onnx_destroy(m);
  free(data);
  free(weights);
  free(to);
  free(from);
  free(sub);
  free(fifo);
}

/* external_data is checked like every other number and path: each of
 * make_onnx.py's BAD_EXTERNAL models is refused when opened. Before, "."
 * was a location, a length of 2^64-1 meant "no length" and an offset past
 * 2^64 saturated. */
static void test_external_data_fields_are_checked(void** state) {
  static const struct {
    const char* file;
    const char* message;
  } cases[] = {
      {"ext_dot.onnx", "external location '.' does not name a file"},
      {"ext_dotdot.onnx", "external location '..' does not"},
      {"ext_empty.onnx", "external location '' does not"},
      {"ext_absolute.onnx", "external location '/etc/passwd' does not"},
      {"ext_empty_part.onnx", "'a//weights.bin' does not"},
      {"ext_trailing_slash.onnx", "'weights.bin/' does not"},
      {"ext_inner_dot.onnx", "'./weights.bin' does not"},
      {"ext_nul.onnx", "external data 'location' is cut by a NUL byte"},
      {"ext_control.onnx", "'w\\x1b[2J.bin' does not"},
      {"ext_offset_overflow.onnx",
       "external data offset '18446744073709551616' is too large"},
      {"ext_offset_max.onnx",
       "external data offset 18446744073709551615 is outside"},
      {"ext_length_max.onnx",
       "external data length 18446744073709551615 is outside"},
      {"ext_end_overflow.onnx", "end past the largest file offset"},
      {"ext_negative.onnx", "offset '-1' is not a non-negative"},
      {"ext_junk.onnx", "length '1024x' is not a non-negative"},
      {"ext_twice.onnx", "external data 'location' is given twice"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    expect_refusal(*state, cases[i].file, cases[i].message);
  }
}

/* A growable protobuf encoding, for models too big to write inline. */
typedef struct pb_t {
  uint8_t* data;
  size_t length, capacity;
} pb_t;

static void pb_append(pb_t* b, const void* data, size_t length) {
  if (b->length + length > b->capacity) {
    b->capacity = (b->length + length) * 2;
    b->data = realloc(b->data, b->capacity);
    assert_non_null(b->data);
  }
  memcpy(b->data + b->length, data, length);
  b->length += length;
}

static void pb_varint(pb_t* b, uint64_t value) {
  uint8_t bytes[10];
  size_t n = 0;
  do {
    bytes[n++] = (uint8_t)(value & 0x7f) | (value > 0x7f ? 0x80 : 0);
    value >>= 7;
  } while (value);
  pb_append(b, bytes, n);
}

static void pb_field(pb_t* b, uint32_t number, const void* data,
                     size_t length) {
  pb_varint(b, (uint64_t)number << 3 | 2);
  pb_varint(b, length);
  pb_append(b, data, length);
}

/* ModelProto { graph { node { name, op_type "Big", attributes } } } with
 * |count| INT attributes named a0, a1, ..., and |extra| (may be NULL) once
 * more at the end. */
static pb_t big_node_model(const char* node_name, size_t count,
                           const char* extra) {
  pb_t node = {0};
  pb_field(&node, 3, node_name, strlen(node_name));
  pb_field(&node, 4, "Big", 3);
  for (size_t a = 0; a < count + (extra ? 1 : 0); ++a) {
    char numbered[32];
    snprintf(numbered, sizeof(numbered), "a%zu", a);
    const char* name = a < count ? numbered : extra;
    pb_t attribute = {0};
    pb_field(&attribute, 1, name, strlen(name));
    const uint8_t type_int[] = {0xa0, 0x01, 0x02}; /* type: INT */
    pb_append(&attribute, type_int, sizeof(type_int));
    pb_field(&node, 5, attribute.data, attribute.length);
    free(attribute.data);
  }
  pb_t graph = {0};
  pb_field(&graph, 1, node.data, node.length);
  pb_t model = {0};
  pb_field(&model, 7, graph.data, graph.length);
  free(node.data);
  free(graph.data);
  return model;
}

/* Repeated attribute names are found by sorting: 200,000 attributes on one
 * node took minutes when every pair was compared. */
static void test_many_attributes(void** state) {
  (void)state;
  const size_t count = 200000;
  pb_t model = big_node_model("big", count, NULL);
  hrx_onnx_model_t* m = NULL;
  assert_ok(hrx_onnx_parse(model.data, model.length, hrx_allocator_system(),
                           &m));
  const hrx_onnx_node_t* node = &hrx_onnx_info(m)->nodes[0];
  assert_int_equal(node->attribute_count, count);
  assert_string_equal(node->attributes[count - 1].name, "a199999");
  hrx_onnx_destroy(m);
  free(model.data);

  model = big_node_model("big", count, "a123456");
  hrx_status_t status = hrx_onnx_parse(model.data, model.length,
                                       hrx_allocator_system(), &m);
  assert_non_null(
      strstr(hrx_status_message(status), "has attribute 'a123456' twice"));
  assert_status_code(status, HRX_STATUS_DATA_LOSS);
  assert_null(m);
  free(model.data);
}

/* Names from the file reach messages escaped: a terminal shown this
 * message is not cleared, and no line is forged. */
static void test_names_in_messages_are_escaped(void** state) {
  (void)state;
  pb_t model = big_node_model("\x1b[2J\nforged", 2, "a1");
  hrx_onnx_model_t* m = NULL;
  hrx_status_t status = hrx_onnx_parse(model.data, model.length,
                                       hrx_allocator_system(), &m);
  const char* message = hrx_status_message(status);
  assert_non_null(strstr(message, "node '\\x1b[2J\\nforged' (Big)"));
  assert_null(strchr(message, '\x1b'));
  assert_null(strchr(message, '\n'));
  assert_status_code(status, HRX_STATUS_DATA_LOSS);
  free(model.data);
}

static void expect_refusal(const char* dir, const char* name,
                           const char* message) {
  char* path = test_strdup_printf("%s/%s", dir, name);
  hrx_onnx_model_t* m = NULL;
  hrx_status_t status = hrx_onnx_open(path, hrx_allocator_system(), &m);
  if (!status || !strstr(hrx_status_message(status), message)) {
    fail_msg("%s: %s", name, status ? hrx_status_message(status) : "OK");
  }
  assert_null(m);
  hrx_status_free(status);
  free(path);
}

static void test_refusals(void** state) {
  const char* dir = *state;
  expect_refusal(dir, "traversal.onnx",
                 "does not name a file inside the model's directory");
  expect_refusal(dir, "truncated.onnx", "run past the end");
  expect_refusal(dir, "mismatch.onnx",
                 "raw_data holds 4 bytes, its dims need 8");
  struct {
    const uint8_t bytes[24];
    size_t length;
    const char* message;
  } cases[] = {
      {{0}, 0, "no graph"},
      {{0x08}, 1, "truncated varint"},
      {{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f},
       11, "varint over"},
      {{0x0b}, 1, "wire type 3"},
      {{0x00, 0x01}, 2, "invalid field number 0"},
      {{0x3a, 0x05, 0x0a}, 3, "run past the end"},
      {{0x0d, 0x01, 0x02}, 3, "truncated fixed32"},
      /* graph { node { } }: a node without op_type */
      {{0x3a, 0x02, 0x0a, 0x00}, 4, "node 0: node '' has no op_type"},
      /* graph { node { op_type "A", attribute x (INT) twice } } */
      {{0x3a, 0x15, 0x0a, 0x13, 0x22, 0x01, 'A', 0x2a, 0x06, 0x0a, 0x01, 'x',
        0xa0, 0x01, 0x02, 0x2a, 0x06, 0x0a, 0x01, 'x', 0xa0, 0x01, 0x02},
       23, "has attribute 'x' twice"},
      /* graph { initializer { dims: -1 ... } } */
      {{0x3a, 0x0f, 0x2a, 0x0d, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0x01, 0x10, 0x01},
       17, "negative or overflowing"},
      /* graph { sparse_initializer { values { dims: 1, FLOAT, 0.0 } } } */
      {{0x3a, 0x0d, 0x7a, 0x0b, 0x0a, 0x09, 0x08, 0x01, 0x10, 0x01, 0x25, 0,
        0, 0, 0},
       15, "sparse tensor '(unnamed)' has no indices"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    hrx_onnx_model_t* m = NULL;
    hrx_status_t status = hrx_onnx_parse(cases[i].bytes, cases[i].length,
                                         hrx_allocator_system(), &m);
    if (!status || !strstr(hrx_status_message(status), cases[i].message)) {
      fail_msg("case %zu: %s", i, status ? hrx_status_message(status) : "OK");
    }
    assert_status_code(status, HRX_STATUS_DATA_LOSS);
  }
  /* Images in memory cannot resolve external data. */
  char* path = test_strdup_printf("%s/external.onnx", dir);
  void* data = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 20, &data,
                              &length));
  hrx_onnx_model_t* m = NULL;
  assert_status_code(hrx_onnx_parse(data, length, hrx_allocator_system(), &m),
                     HRX_STATUS_FAILED_PRECONDITION);
  free(data);
  free(path);
}

/* Sparse initializers decode to their dense form; bad indices are named. */
static void test_sparse_initializers(void** state) {
  hrx_onnx_model_t* m = open_model(*state, "sparse.onnx");
  const hrx_onnx_model_info_t* info = hrx_onnx_info(m);
  assert_int_equal(info->initializer_count, 0);
  assert_int_equal(info->sparse_initializer_count, 2);
  const hrx_onnx_sparse_tensor_t* linear = NULL;
  assert_ok(hrx_onnx_find_sparse_initializer(m, "SL", &linear));
  assert_int_equal(linear->dtype, HRX_ONNX_FLOAT);
  assert_int_equal(linear->rank, 2);
  assert_int_equal(linear->elements, 12);
  assert_int_equal(linear->nonzeros, 3);
  float dense[12];
  memset(dense, 0xff, sizeof(dense));
  assert_ok(hrx_onnx_sparse_tensor_read(linear, hrx_allocator_system(), dense,
                                        sizeof(dense)));
  const float want[12] = {0, 1.5f, 0, 0, 0, 0, -2, 0, 0, 0, 0, 7};
  assert_memory_equal(dense, want, sizeof(want));
  assert_status_code(hrx_onnx_sparse_tensor_read(linear,
                                                 hrx_allocator_system(),
                                                 dense, sizeof(dense) - 4),
                     HRX_STATUS_OUT_OF_RANGE);
  const hrx_onnx_sparse_tensor_t* tuples = NULL;
  assert_ok(hrx_onnx_find_sparse_initializer(m, "ST", &tuples));
  assert_int_equal(tuples->indices.rank, 2);
  int32_t ints[12];
  assert_ok(hrx_onnx_sparse_tensor_read(tuples, hrx_allocator_system(), ints,
                                        sizeof(ints)));
  const int32_t want_ints[12] = {0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9};
  assert_memory_equal(ints, want_ints, sizeof(want_ints));
  /* Dense and sparse initializers are looked up apart. */
  const hrx_onnx_tensor_t* dense_view = NULL;
  assert_status_code(hrx_onnx_find_initializer(m, "SL", &dense_view),
                     HRX_STATUS_NOT_FOUND);
  assert_status_code(hrx_onnx_find_sparse_initializer(m, "nope", &linear),
                     HRX_STATUS_NOT_FOUND);
  hrx_onnx_destroy(m);

  static const struct {
    const char* file;
    const char* message;
  } bad[] = {{"sparse_order.onnx", "must ascend"},
             {"sparse_outside.onnx", "outside its shape"}};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    m = open_model(*state, bad[i].file);
    const hrx_onnx_sparse_tensor_t* t = NULL;
    assert_ok(hrx_onnx_find_sparse_initializer(m, "S", &t));
    hrx_status_t status = hrx_onnx_sparse_tensor_read(
        t, hrx_allocator_system(), dense, sizeof(dense));
    if (!status || !strstr(hrx_status_message(status), bad[i].message)) {
      fail_msg("%s: %s", bad[i].file,
               status ? hrx_status_message(status) : "OK");
    }
    assert_status_code(status, HRX_STATUS_DATA_LOSS);
    hrx_onnx_destroy(m);
  }
  expect_refusal(*state, "sparse_int32.onnx", "indices must be INT64");
}

/* Typed values one per field (unpacked), as older writers store them. */
static void test_unpacked_typed_values(void** state) {
  (void)state;
  /* graph { initializer { dims: 1, data_type: INT64, int64_data: 5,
   * name: "v" } } */
  const uint8_t bytes[] = {0x3a, 0x0b, 0x2a, 0x09, 0x08, 0x01, 0x10,
                           0x07, 0x38, 0x05, 0x42, 0x01, 'v'};
  hrx_onnx_model_t* m = NULL;
  assert_ok(hrx_onnx_parse(bytes, sizeof(bytes), hrx_allocator_system(), &m));
  const hrx_onnx_tensor_t* v = NULL;
  assert_ok(hrx_onnx_find_initializer(m, "v", &v));
  int64_t value = 0;
  assert_ok(hrx_onnx_tensor_read(v, &value, sizeof(value)));
  assert_int_equal(value, 5);
  hrx_onnx_destroy(m);
}

static hrx_status_t open_model_with(hrx_allocator_t allocator,
                                    void* context) {
  hrx_onnx_model_t* m = NULL;
  HRX_RETURN_IF_ERROR(hrx_onnx_open(context, allocator, &m));
  hrx_onnx_destroy(m);
  return HRX_OK;
}

static void test_allocation_failures(void** state) {
  char* path = test_strdup_printf("%s/model.onnx", (char*)*state);
  assert_true(test_exhaust_allocations(open_model_with, NULL, path) >= 3);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_model_index),
      cmocka_unit_test(test_attributes_of_every_type),
      cmocka_unit_test(test_external_data),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_sparse_initializers),
      cmocka_unit_test(test_unpacked_typed_values),
      cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_special_files_are_refused),
      cmocka_unit_test(test_external_data_fields_are_checked),
      cmocka_unit_test(test_many_attributes),
      cmocka_unit_test(test_names_in_messages_are_escaped),
  };
  return cmocka_run_group_tests(tests, make_models, remove_models);
}
