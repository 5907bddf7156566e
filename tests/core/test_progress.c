/* The text progress bar: redrawn only when the percentage moves, nothing
 * for unknown sizes, a newline at the end, no overflow near 2^64. */
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static char* draw(uint64_t total, const uint64_t* steps, size_t count) {
  char* text = NULL;
  size_t length = 0;
  FILE* stream = open_memstream(&text, &length);
  hrx_progress_bar_t bar;
  hrx_progress_bar_init(&bar, stream, "get");
  for (size_t i = 0; i < count; ++i) {
    hrx_progress_bar_update(&bar, steps[i], total);
  }
  fclose(stream);
  return text;
}

static size_t count_of(const char* text, char c) {
  size_t n = 0;
  for (; *text; ++text) n += *text == c;
  return n;
}

static void test_redraws_on_percent_change(void** state) {
  (void)state;
  const uint64_t steps[] = {0, 1, 2, 500, 501, 1000, 1000};
  char* text = draw(1000, steps, 7);
  /* 0%, 50% and 100%: three draws, one newline. */
  assert_int_equal(count_of(text, '\r'), 3);
  assert_int_equal(count_of(text, '\n'), 1);
  assert_non_null(strstr(text, "\rget [############             ]  50%"));
  assert_non_null(strstr(text, "[#########################] 100%\n"));
  free(text);
}

static void test_unknown_and_huge_sizes(void** state) {
  (void)state;
  const uint64_t none[] = {5, 10};
  char* text = draw(0, none, 2);
  assert_string_equal(text, "");
  free(text);
  const uint64_t huge[] = {UINT64_MAX / 2, UINT64_MAX};
  text = draw(UINT64_MAX, huge, 2);
  assert_non_null(strstr(text, " 50%"));
  assert_non_null(strstr(text, "100%\n"));
  free(text);
  const uint64_t beyond[] = {2000};
  text = draw(1000, beyond, 1);
  assert_non_null(strstr(text, "100%\n"));
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_redraws_on_percent_change),
      cmocka_unit_test(test_unknown_and_huge_sizes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
