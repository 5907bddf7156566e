#include "hrx/core/progress.h"

void hrx_progress_bar_init(hrx_progress_bar_t* bar, FILE* stream,
                           const char* label) {
  bar->stream = stream;
  bar->label = label;
  bar->last_percent = -1;
}

void hrx_progress_bar_update(hrx_progress_bar_t* bar, uint64_t done,
                             uint64_t total) {
  if (total == 0) return;
  if (done > total) done = total;
  /* done * 100 could overflow for sizes near 2^64; divide first there. */
  int percent = total > UINT64_MAX / 100 ? (int)(done / (total / 100))
                                         : (int)(done * 100 / total);
  if (percent > 100) percent = 100;
  if (percent == bar->last_percent) return;
  bar->last_percent = percent;
  int filled = percent / 4;
  fprintf(bar->stream, "\r%s [%.*s%*s] %3d%%", bar->label, filled,
          "#########################", 25 - filled, "", percent);
  if (percent == 100) fputc('\n', bar->stream);
  fflush(bar->stream);
}
