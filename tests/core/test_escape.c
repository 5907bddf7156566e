/* Untrusted text shown in messages: controls and invalid UTF-8 escaped. */
#include <string.h>

#include "test_support.h"

static void test_escape_controls_and_invalid_utf8(void** state) {
  (void)state;
  char out[HRX_ESCAPED_NAME_CAPACITY];
  assert_string_equal(hrx_escape_text("plain.name", 10, out, sizeof(out)),
                      "plain.name");
  assert_string_equal(
      hrx_escape_text("a\x1b[2Jb\n\t\\\x7f", 10, out, sizeof(out)),
      "a\\x1b[2Jb\\n\\t\\\\\\x7f");
  /* A NUL inside the counted text is shown, not a terminator. */
  assert_string_equal(hrx_escape_text("k\0evil", 6, out, sizeof(out)),
                      "k\\x00evil");
  /* Valid UTF-8 passes; C1 controls, overlong forms, surrogates and stray
   * bytes do not. */
  assert_string_equal(hrx_escape_text("\xc3\xa9\xe2\x82\xac", 5, out,
                                      sizeof(out)),
                      "\xc3\xa9\xe2\x82\xac");
  assert_string_equal(hrx_escape_text("\xc2\x9b" "1m", 4, out, sizeof(out)),
                      "\\xc2\\x9b1m");
  assert_string_equal(hrx_escape_text("\xc0\xaf", 2, out, sizeof(out)),
                      "\\xc0\\xaf");
  assert_string_equal(hrx_escape_text("\xed\xa0\x80", 3, out, sizeof(out)),
                      "\\xed\\xa0\\x80");
  assert_string_equal(hrx_escape_text("\xff", 1, out, sizeof(out)), "\\xff");
  assert_string_equal(hrx_escape_text("\xe2\x82", 2, out, sizeof(out)),
                      "\\xe2\\x82");
}

static void test_escape_truncates_whole_pieces(void** state) {
  (void)state;
  char out[8];
  assert_string_equal(hrx_escape_text("abcdefgh", 8, out, sizeof(out)),
                      "abcd...");
  assert_string_equal(hrx_escape_text("abcdefg", 7, out, sizeof(out)),
                      "abcdefg");
  assert_string_equal(hrx_escape_text("a\x01\x02", 3, out, sizeof(out)),
                      "a...");
  char tiny[3];
  assert_string_equal(hrx_escape_text("abcdef", 6, tiny, sizeof(tiny)), "..");
  char one[1];
  assert_string_equal(hrx_escape_text("abc", 3, one, sizeof(one)), "");
}

static void test_builder_appends_escaped(void** state) {
  (void)state;
  hrx_string_builder_t builder;
  hrx_string_builder_init(hrx_allocator_system(), &builder);
  assert_ok(hrx_string_builder_append_cstr(&builder, "name="));
  assert_ok(hrx_string_builder_append_escaped(&builder, "x\ry\xfe", 4));
  assert_string_equal(hrx_string_builder_cstr(&builder), "name=x\\ry\\xfe");
  hrx_string_builder_deinit(&builder);
}

static void test_utf8_valid(void** state) {
  (void)state;
  assert_true(hrx_utf8_valid("", 0));
  assert_true(hrx_utf8_valid("abc\xf0\x9f\x98\x80", 7));
  assert_false(hrx_utf8_valid("\xf4\x90\x80\x80", 4));
  assert_false(hrx_utf8_valid("\xe0\x80\x80", 3));
  assert_false(hrx_utf8_valid("\x80", 1));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_escape_controls_and_invalid_utf8),
      cmocka_unit_test(test_escape_truncates_whole_pieces),
      cmocka_unit_test(test_builder_appends_escaped),
      cmocka_unit_test(test_utf8_valid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
