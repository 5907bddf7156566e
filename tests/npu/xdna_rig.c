#include "xdna_rig.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void xdna_rig_init(xdna_rig_t* rig) {
  rig->root = npu_fixture_strix_halo();
  rig->root_fd = npu_fixture_open(rig->root);
  xdna_fake_init(&rig->fake);
  rig->sys = xdna_fake_sys(&rig->fake);
}

void xdna_rig_deinit(xdna_rig_t* rig) {
  assert_int_equal(rig->fake.open_nodes, 0);
  assert_int_equal(rig->fake.mappings, 0);
  assert_int_equal(rig->fake.leaked_at_close, 0);
  assert_int_equal(rig->counted.live, 0);
  xdna_fake_deinit(&rig->fake);
  close(rig->root_fd);
  test_temp_dir_remove(rig->root);
}

hrx_npu_image_t* xdna_rig_default_image(void) {
  npu_image_t d;
  npu_image_default(&d);
  size_t size = 0;
  uint8_t* bytes = npu_image_build(&d, &size);
  hrx_npu_image_t* image = NULL;
  assert_ok(hrx_npu_image_parse(bytes, size, hrx_allocator_system(), &image));
  free(bytes);
  return image;
}

hrx_status_t xdna_rig_open(xdna_rig_t* rig, hrx_budget_t* budget,
                           hrx_npu_device_t** out_device) {
  return hrx_npu_device_open_with(&rig->sys, rig->root_fd,
                                  test_allocator(&rig->counted), NULL, budget,
                                  out_device);
}

bool xdna_rig_sweep_check(const xdna_fake_t* fake, size_t n,
                          hrx_status_t status, size_t* failures) {
  if (fake->failed && !fake->failed_release && status == HRX_OK) {
    fail_msg("call %zu (%s) failed unnoticed", n, fake->failed_call);
  }
  if (status != HRX_OK) {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    if (!strstr(text, "errno 5")) {
      fail_msg("call %zu (%s): %s", n, fake->failed_call, text);
    }
    hrx_status_free(status);
    ++*failures;
  }
  return fake->failed;
}
