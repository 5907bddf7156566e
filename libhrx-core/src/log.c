#include "hrx/core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

static const char* const hrx_log_level_names[] = {
    [HRX_LOG_DEBUG] = "debug", [HRX_LOG_INFO] = "info",
    [HRX_LOG_WARN] = "warn",   [HRX_LOG_ERROR] = "error",
    [HRX_LOG_OFF] = "off",
};

hrx_status_t hrx_log_level_parse(const char* text,
                                 hrx_log_level_t* out_level) {
  if (text) {
    for (int i = HRX_LOG_DEBUG; i <= HRX_LOG_OFF; ++i) {
      if (strcasecmp(text, hrx_log_level_names[i]) == 0) {
        *out_level = (hrx_log_level_t)i;
        return HRX_OK;
      }
    }
    if (strcasecmp(text, "warning") == 0) {
      *out_level = HRX_LOG_WARN;
      return HRX_OK;
    }
  }
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "unknown log level '%s' (expected debug, info, "
                         "warn, error or off)", text ? text : "(null)");
}

const char* hrx_log_level_string(hrx_log_level_t level) {
  if ((unsigned)level > HRX_LOG_OFF) return "unknown";
  return hrx_log_level_names[level];
}

static void hrx_log_stderr_sink(void* self, hrx_log_level_t level,
                                const char* line) {
  (void)self;
  char buffer[2048];
  int n = snprintf(buffer, sizeof(buffer), "hrx: %s: %s\n",
                   hrx_log_level_string(level), line);
  if (n < 0) return;
  size_t length = (size_t)n < sizeof(buffer) ? (size_t)n : sizeof(buffer) - 1;
  if (length == sizeof(buffer) - 1) buffer[length - 1] = '\n';
  /* One write per line keeps lines from several threads whole. */
  ssize_t ignored = write(STDERR_FILENO, buffer, length);
  (void)ignored;
}

hrx_logger_t hrx_logger_from_env(void) {
  hrx_logger_t logger = {
      .level = HRX_LOG_WARN, .sink = hrx_log_stderr_sink, .self = NULL};
  const char* value = getenv("HRX_LOG");
  if (value && value[0]) {
    hrx_status_t status = hrx_log_level_parse(value, &logger.level);
    if (status != HRX_OK) {
      hrx_log_status(&logger, HRX_LOG_WARN, "HRX_LOG ignored", status);
      hrx_status_free(status);
    }
  }
  return logger;
}

bool hrx_log_enabled(const hrx_logger_t* logger, hrx_log_level_t level) {
  return logger && logger->sink && level < HRX_LOG_OFF &&
         level >= logger->level;
}

void hrx_log_v(const hrx_logger_t* logger, hrx_log_level_t level,
               const char* format, va_list args) {
  if (!hrx_log_enabled(logger, level)) return;
  char line[1024];
  vsnprintf(line, sizeof(line), format, args);
  logger->sink(logger->self, level, line);
}

void hrx_log(const hrx_logger_t* logger, hrx_log_level_t level,
             const char* format, ...) {
  va_list args;
  va_start(args, format);
  hrx_log_v(logger, level, format, args);
  va_end(args);
}

void hrx_log_status(const hrx_logger_t* logger, hrx_log_level_t level,
                    const char* context, hrx_status_t status) {
  if (!hrx_log_enabled(logger, level)) return;
  char text[1024];
  hrx_status_format(status, text, sizeof(text));
  hrx_log(logger, level, "%s: %s", context, text);
}
