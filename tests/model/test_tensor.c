/* Tensor descriptors: extents of contiguous and strided layouts, and the
 * checks on malformed ones. */
#include "test_support.h"
#include "hrx/model.h"

static hrx_model_tensor_desc_t desc2(hrx_model_dtype_t dtype, uint64_t rows,
                                     uint64_t cols, uint64_t row_stride,
                                     uint64_t col_stride) {
  return (hrx_model_tensor_desc_t){
      dtype, 2, {rows, cols}, {row_stride, col_stride}};
}

static void test_extents(void** state) {
  (void)state;
  uint64_t bytes = 0;
  hrx_model_tensor_desc_t d = desc2(HRX_MODEL_DTYPE_F32, 3, 5, 0, 0);
  assert_ok(hrx_model_tensor_desc_extent(&d, &bytes));
  assert_int_equal(bytes, 60);
  /* Rows of 5 in a pitch of 8: the last row ends at element 2*8+4. */
  d = desc2(HRX_MODEL_DTYPE_BF16, 3, 5, 8, 1);
  assert_ok(hrx_model_tensor_desc_extent(&d, &bytes));
  assert_int_equal(bytes, 21 * 2);
  /* A transposed view. */
  d = desc2(HRX_MODEL_DTYPE_U8, 4, 2, 1, 4);
  assert_ok(hrx_model_tensor_desc_extent(&d, &bytes));
  assert_int_equal(bytes, 8);
  hrx_model_tensor_desc_t e = d;
  assert_true(hrx_model_tensor_desc_equal(&d, &e));
  e.strides[1] = 5;
  assert_false(hrx_model_tensor_desc_equal(&d, &e));
  assert_int_equal(hrx_model_dtype_size(HRX_MODEL_DTYPE_F16), 2);
  assert_int_equal(hrx_model_dtype_size(HRX_MODEL_DTYPE_COUNT), 0);
}

static void test_malformed(void** state) {
  (void)state;
  uint64_t bytes = 1;
  hrx_model_tensor_desc_t d = desc2(HRX_MODEL_DTYPE_F32, 3, 0, 0, 0);
  assert_status(hrx_model_tensor_desc_extent(&d, &bytes),
                HRX_STATUS_INVALID_ARGUMENT, "dimension 1 is empty");
  assert_int_equal(bytes, 0);
  d = desc2(HRX_MODEL_DTYPE_F32, 3, 4, 4, 0);
  assert_status(hrx_model_tensor_desc_extent(&d, &bytes),
                HRX_STATUS_INVALID_ARGUMENT, "all zero");
  d = desc2((hrx_model_dtype_t)99, 3, 4, 0, 0);
  assert_status(hrx_model_tensor_desc_extent(&d, &bytes),
                HRX_STATUS_INVALID_ARGUMENT, "dtype 99");
  d = desc2(HRX_MODEL_DTYPE_F32, 3, 4, 0, 0);
  d.rank = 0;
  assert_status(hrx_model_tensor_desc_extent(&d, &bytes),
                HRX_STATUS_INVALID_ARGUMENT, "rank 0");
  d.rank = 5;
  assert_status_code(hrx_model_tensor_desc_extent(&d, &bytes),
                     HRX_STATUS_INVALID_ARGUMENT);
  d = desc2(HRX_MODEL_DTYPE_F32, UINT64_MAX / 2, 4, 0, 0);
  assert_status(hrx_model_tensor_desc_extent(&d, &bytes),
                HRX_STATUS_INVALID_ARGUMENT, "overflows");
  d = desc2(HRX_MODEL_DTYPE_F32, 3, 4, UINT64_MAX / 2, 1);
  assert_status(hrx_model_tensor_desc_extent(&d, &bytes),
                HRX_STATUS_INVALID_ARGUMENT, "overflows");
  assert_status_code(hrx_model_tensor_desc_extent(NULL, &bytes),
                     HRX_STATUS_INVALID_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_extents),
      cmocka_unit_test(test_malformed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
