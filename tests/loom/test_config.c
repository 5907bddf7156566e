/* Config specialisation: values, defaults, canonical text, every error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loom_test_util.h"

static const char* const module_text =
    "config.decl @k : %k: index where [range(%k, 128, 4096), mul(%k, 128)]\n"
    "config.decl @n : index\n"
    "config.decl @rows : index\n"
    "config.def @rows = 8 : index\n"
    "config.decl @scale : f32\n"
    "config.decl @flag : i1\n"
    "config.decl @small : i8\n"
    "config.decl @unused : index\n"
    "kernel.def @k(%w: index) {\n"
    "  %one = index.constant 1 : index\n"
    "  %n = config.get @n : index\n"
    "  %k = config.get @k : index\n"
    "  %r = config.get @rows : index\n"
    "  kernel.launch.config workgroups(%n, %one, %one) "
    "workgroup_size(%r, %one, %one) : index\n"
    "} launch() {\n"
    "  %s = config.get @scale : f32\n"
    "  %f = config.get @flag : i1\n"
    "  %b = config.get @small : i8\n"
    "  kernel.return\n"
    "}\n";

typedef struct fixture_t {
  hrx_loom_module_t* module;
  hrx_loom_config_t* config;
  hrx_loom_diagnostics_t* diagnostics;
} fixture_t;

static int setup(void** state) {
  fixture_t* f = calloc(1, sizeof(*f));
  f->module = loom_test_parse_ok(module_text);
  assert_ok(hrx_loom_config_create(hrx_allocator_system(), &f->config));
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &f->diagnostics));
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  hrx_loom_diagnostics_destroy(f->diagnostics);
  hrx_loom_config_destroy(f->config);
  hrx_loom_module_destroy(f->module);
  free(f);
  return 0;
}

static void set_all(fixture_t* f) {
  assert_ok(hrx_loom_config_set(f->config, "k", "256"));
  assert_ok(hrx_loom_config_set(f->config, "@n", "1000"));
  assert_ok(hrx_loom_config_set_assignment(f->config, "scale=1.5"));
  assert_ok(hrx_loom_config_set(f->config, "flag", "true"));
  assert_ok(hrx_loom_config_set(f->config, "small", "-3"));
}

static char* canonical_of(fixture_t* f) {
  hrx_loom_specialization_t* spec = NULL;
  assert_ok(hrx_loom_module_specialize(f->module, f->config, f->diagnostics,
                                       hrx_allocator_system(), &spec));
  char* text = strdup(hrx_loom_specialization_canonical(spec));
  hrx_loom_specialization_destroy(spec);
  return text;
}

static void test_resolves_and_canonicalises(void** state) {
  fixture_t* f = *state;
  set_all(f);
  hrx_loom_specialization_t* spec = NULL;
  assert_ok(hrx_loom_module_specialize(f->module, f->config, f->diagnostics,
                                       hrx_allocator_system(), &spec));
  assert_string_equal(hrx_loom_specialization_canonical(spec),
                      "flag=true;k=256;n=1000;rows=8;scale=0x3fc00000;"
                      "small=-3");
  uint64_t bits = 0;
  assert_ok(hrx_loom_specialization_bits(spec, "rows", &bits));
  assert_int_equal(bits, 8);
  assert_ok(hrx_loom_specialization_bits(spec, "@small", &bits));
  assert_int_equal((int64_t)bits, -3);
  assert_status_code(hrx_loom_specialization_bits(spec, "unused", &bits),
                     HRX_STATUS_NOT_FOUND);
  hrx_loom_specialization_destroy(spec);
}

static void test_order_and_spelling_do_not_matter(void** state) {
  fixture_t* f = *state;
  set_all(f);
  char* first = canonical_of(f);
  hrx_loom_config_destroy(f->config);
  assert_ok(hrx_loom_config_create(hrx_allocator_system(), &f->config));
  assert_ok(hrx_loom_config_set(f->config, "small", "-3"));
  assert_ok(hrx_loom_config_set(f->config, "flag", "1"));
  assert_ok(hrx_loom_config_set(f->config, "scale", "1.50"));
  assert_ok(hrx_loom_config_set(f->config, "n", "0x3e8"));
  assert_ok(hrx_loom_config_set(f->config, "k", "999"));
  assert_ok(hrx_loom_config_set(f->config, "k", "256")); /* last one wins */
  assert_ok(hrx_loom_config_set(f->config, "rows", "8"));
  char* second = canonical_of(f);
  assert_string_equal(first, second);
  assert_int_equal(hrx_loom_config_count(f->config), 6);
  free(first);
  free(second);
}

static void test_each_value_changes_text(void** state) {
  fixture_t* f = *state;
  set_all(f);
  char* base = canonical_of(f);
  assert_ok(hrx_loom_config_set(f->config, "rows", "16"));
  char* changed = canonical_of(f);
  assert_string_not_equal(base, changed);
  free(base);
  free(changed);
}

static void expect_failure(fixture_t* f, hrx_loom_diag_code_t code,
                           const char* symbol) {
  hrx_loom_specialization_t* spec = NULL;
  assert_status_code(
      hrx_loom_module_specialize(f->module, f->config, f->diagnostics,
                                 hrx_allocator_system(), &spec),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_null(spec);
  for (size_t i = 0; i < hrx_loom_diagnostics_count(f->diagnostics); ++i) {
    const hrx_loom_diagnostic_t* d =
        hrx_loom_diagnostics_at(f->diagnostics, i);
    const char* s = hrx_loom_diagnostic_param(d, "symbol");
    if (d->code == code && s && strcmp(s, symbol) == 0) return;
  }
  fail_msg("no %s for @%s", hrx_loom_diag_code_string(code), symbol);
}

static void test_missing(void** state) {
  fixture_t* f = *state;
  set_all(f);
  hrx_loom_config_destroy(f->config);
  assert_ok(hrx_loom_config_create(hrx_allocator_system(), &f->config));
  assert_ok(hrx_loom_config_set(f->config, "k", "256"));
  expect_failure(f, HRX_LOOM_DIAG_CONFIG_MISSING, "n");
}

static void test_unknown(void** state) {
  fixture_t* f = *state;
  set_all(f);
  assert_ok(hrx_loom_config_set(f->config, "nope", "1"));
  expect_failure(f, HRX_LOOM_DIAG_CONFIG_UNKNOWN, "nope");
}

static void test_mistyped(void** state) {
  fixture_t* f = *state;
  const struct {
    const char* name;
    const char* value;
  } cases[] = {{"n", "12x"}, {"n", "1.5"}, {"flag", "yes"},
               {"scale", "fast"}, {"small", ""}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    hrx_loom_diagnostics_clear(f->diagnostics);
    set_all(f);
    if (!cases[i].value[0]) {
      assert_status_code(
          hrx_loom_config_set(f->config, cases[i].name, cases[i].value),
          HRX_STATUS_INVALID_ARGUMENT);
      continue;
    }
    assert_ok(hrx_loom_config_set(f->config, cases[i].name, cases[i].value));
    expect_failure(f, HRX_LOOM_DIAG_CONFIG_MISTYPED, cases[i].name);
  }
}

static void test_out_of_range(void** state) {
  fixture_t* f = *state;
  const struct {
    const char* name;
    const char* value;
  } cases[] = {{"k", "64"},      {"k", "8192"},   {"k", "130"},
               {"small", "300"}, {"n", "99999999999999999999"},
               {"scale", "1e40"}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    hrx_loom_diagnostics_clear(f->diagnostics);
    set_all(f);
    assert_ok(hrx_loom_config_set(f->config, cases[i].name, cases[i].value));
    hrx_loom_specialization_t* spec = NULL;
    hrx_status_t status = hrx_loom_module_specialize(
        f->module, f->config, f->diagnostics, hrx_allocator_system(), &spec);
    assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
    const hrx_loom_diagnostic_t* d = hrx_loom_diagnostics_at(f->diagnostics, 0);
    /* Values beyond 64 bits cannot even be read as integers. */
    assert_true(d->code == HRX_LOOM_DIAG_CONFIG_OUT_OF_RANGE ||
                (i == 4 && d->code == HRX_LOOM_DIAG_CONFIG_MISTYPED));
  }
}

/* Float values must stay finite at their declared width, not only as
 * f32: 70000 is past f16's largest finite value, 1e39 past bf16's. */
static void test_float_width_range(void** state) {
  (void)state;
  hrx_loom_module_t* module = loom_test_parse_ok(
      "config.decl @h : f16\nconfig.decl @b : bf16\n"
      "kernel.def @k() {\n  %one = index.constant 1 : index\n"
      "  kernel.launch.config workgroups(%one, %one, %one) "
      "workgroup_size(%one, %one, %one) : index\n} launch() {\n"
      "  %h = config.get @h : f16\n  %b = config.get @b : bf16\n"
      "  kernel.return\n}\n");
  const struct {
    const char* h;
    const char* b;
    bool ok;
  } cases[] = {{"65504", "3.38e38", true}, {"70000", "1", false},
               {"1", "1e39", false},       {"-65520", "1", false}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    hrx_loom_config_t* config = NULL;
    assert_ok(hrx_loom_config_create(hrx_allocator_system(), &config));
    assert_ok(hrx_loom_config_set(config, "h", cases[i].h));
    assert_ok(hrx_loom_config_set(config, "b", cases[i].b));
    hrx_loom_diagnostics_t* diagnostics = NULL;
    assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                          &diagnostics));
    hrx_loom_specialization_t* spec = NULL;
    hrx_status_t status = hrx_loom_module_specialize(
        module, config, diagnostics, hrx_allocator_system(), &spec);
    if (cases[i].ok) {
      assert_ok(status);
    } else {
      assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
      assert_int_equal(hrx_loom_diagnostics_at(diagnostics, 0)->code,
                       HRX_LOOM_DIAG_CONFIG_OUT_OF_RANGE);
    }
    hrx_loom_specialization_destroy(spec);
    hrx_loom_diagnostics_destroy(diagnostics);
    hrx_loom_config_destroy(config);
  }
  hrx_loom_module_destroy(module);
}

/* Setting and resolving values is indexed: 100,000 names (with a
 * replacement of each) would take minutes with pairwise scans. */
static void test_many_values(void** state) {
  fixture_t* f = *state;
  enum { COUNT = 100000 };
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < COUNT; ++i) {
      char name[32];
      snprintf(name, sizeof(name), "extra%d", i);
      assert_ok(hrx_loom_config_set(f->config, name, round ? "2" : "1"));
    }
  }
  assert_int_equal(hrx_loom_config_count(f->config), COUNT);
  set_all(f);
  hrx_loom_specialization_t* spec = NULL;
  assert_status_code(
      hrx_loom_module_specialize(f->module, f->config, f->diagnostics,
                                 hrx_allocator_system(), &spec),
      HRX_STATUS_INVALID_ARGUMENT);
  /* Every extra name is unknown to the module; the list caps what it
   * keeps and counts the rest. */
  assert_int_equal(hrx_loom_diagnostics_error_count(f->diagnostics), COUNT);
  assert_int_equal(hrx_loom_diagnostics_at(f->diagnostics, 0)->code,
                   HRX_LOOM_DIAG_CONFIG_UNKNOWN);
}

static void test_assignment_syntax(void** state) {
  fixture_t* f = *state;
  assert_status_code(hrx_loom_config_set_assignment(f->config, "noequals"),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_loom_config_set_assignment(f->config, "=5"),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_loom_config_set_assignment(f->config, "a="),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_loom_config_set(f->config, "", "1"),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_int_equal(hrx_loom_config_count(f->config), 0);
}

static void test_no_config_module(void** state) {
  (void)state;
  char* source = loom_test_read_kernel("saxpy.loom", NULL);
  hrx_loom_module_t* module = loom_test_parse_ok(source);
  hrx_loom_specialization_t* spec = NULL;
  assert_ok(hrx_loom_module_specialize(module, NULL, NULL,
                                       hrx_allocator_system(), &spec));
  assert_string_equal(hrx_loom_specialization_canonical(spec), "");
  hrx_loom_specialization_destroy(spec);
  hrx_loom_module_destroy(module);
  free(source);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_resolves_and_canonicalises, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_order_and_spelling_do_not_matter,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_each_value_changes_text, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_unknown, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mistyped, setup, teardown),
      cmocka_unit_test_setup_teardown(test_out_of_range, setup, teardown),
      cmocka_unit_test_setup_teardown(test_assignment_syntax, setup,
                                      teardown),
      cmocka_unit_test(test_no_config_module),
      cmocka_unit_test(test_float_width_range),
      cmocka_unit_test_setup_teardown(test_many_values, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
