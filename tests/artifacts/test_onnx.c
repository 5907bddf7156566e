/* ONNX models built by python3-onnx (make_onnx.py) at test time, and the
 * decoder's refusals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  hrx_onnx_close(m);
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
  hrx_onnx_close(m);
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
  hrx_onnx_close(m);
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
  expect_refusal(dir, "traversal.onnx", "leaves the model's directory");
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
  hrx_onnx_close(m);

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
    hrx_onnx_close(m);
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
  hrx_onnx_close(m);
}

static hrx_status_t open_model_with(hrx_allocator_t allocator,
                                    void* context) {
  hrx_onnx_model_t* m = NULL;
  HRX_RETURN_IF_ERROR(hrx_onnx_open(context, allocator, &m));
  hrx_onnx_close(m);
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
  };
  return cmocka_run_group_tests(tests, make_models, remove_models);
}
