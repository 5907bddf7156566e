/* Profile targets: what the constructor accepts, strips and refuses. */
#include <string.h>

#include "hrx/core/target.h"
#include "test_support.h"

static void test_target_accepts_host_and_bare_architectures(void** state) {
  (void)state;
  hrx_target_t target;
  assert_ok(hrx_target_parse("host", &target));
  assert_int_equal(target.kind, HRX_TARGET_HOST);
  assert_string_equal(target.name, "host");
  assert_ok(hrx_target_parse("gfx1151", &target));
  assert_int_equal(target.kind, HRX_TARGET_AMDGPU);
  assert_string_equal(target.name, "gfx1151");
  assert_ok(hrx_target_parse("gfx90a", &target));
  assert_string_equal(target.name, "gfx90a");
}

static void test_target_strips_feature_suffixes(void** state) {
  (void)state;
  hrx_target_t target;
  assert_ok(hrx_target_parse("gfx1151:xnack-", &target));
  assert_string_equal(target.name, "gfx1151");
  assert_ok(hrx_target_parse("gfx1151:sramecc+:xnack-", &target));
  assert_string_equal(target.name, "gfx1151");
}

static void test_target_refuses_generic_source_targets(void** state) {
  (void)state;
  hrx_target_t target;
  assert_status(hrx_target_parse("gfx11-generic", &target),
                HRX_STATUS_INVALID_ARGUMENT, "source target, not a profile");
  assert_status(hrx_target_parse("gfx11-generic:xnack-", &target),
                HRX_STATUS_INVALID_ARGUMENT, "'gfx11-generic:xnack-'");
  assert_true(hrx_target_is_generic("gfx10-3-generic"));
  assert_false(hrx_target_is_generic("gfx1151"));
  assert_false(hrx_target_is_generic("-generic"));
  assert_false(hrx_target_is_generic(NULL));
}

static void test_target_refuses_malformed_names(void** state) {
  (void)state;
  const char* bad[] = {"", "gfx", "GFX1151", "gfx1151 ", " host", "host:x",
                       "cpu", "gfx11_51", "gfx1151/", "gfx123456789012345",
                       "hostx", "ho"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    hrx_target_t target;
    memset(&target, 0x5a, sizeof(target));
    hrx_status_t status = hrx_target_parse(bad[i], &target);
    assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
    assert_int_equal(target.name[0], 0); /* zeroed on failure */
  }
  hrx_target_t target;
  assert_status(hrx_target_parse(NULL, &target), HRX_STATUS_INVALID_ARGUMENT,
                "no target given");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_target_accepts_host_and_bare_architectures),
      cmocka_unit_test(test_target_strips_feature_suffixes),
      cmocka_unit_test(test_target_refuses_generic_source_targets),
      cmocka_unit_test(test_target_refuses_malformed_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
