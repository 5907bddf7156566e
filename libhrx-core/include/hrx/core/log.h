/* Leveled logging to a caller-chosen sink.
 *
 * A logger is a small value (level + sink) that objects copy at creation;
 * there is no process-wide logger. hrx_logger_from_env() builds the default
 * one: level from HRX_LOG (debug, info, warn, error or off; default warn),
 * lines to stderr as "hrx: LEVEL: message". Logging with one logger from
 * several threads is safe when its sink is (the stderr sink writes each line
 * with a single call).
 */
#ifndef HRX_CORE_LOG_H_
#define HRX_CORE_LOG_H_

#include <stdarg.h>
#include <stdbool.h>

#include "hrx/core/api.h"
#include "hrx/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hrx_log_level_e {
  HRX_LOG_DEBUG = 0,
  HRX_LOG_INFO = 1,
  HRX_LOG_WARN = 2,
  HRX_LOG_ERROR = 3,
  HRX_LOG_OFF = 4,
} hrx_log_level_t;

/* Receives one complete line (no trailing newline). */
typedef void (*hrx_log_sink_fn_t)(void* self, hrx_log_level_t level,
                                  const char* line);

typedef struct hrx_logger_t {
  hrx_log_level_t level;
  hrx_log_sink_fn_t sink;
  void* self;
} hrx_logger_t;

/* "debug", "info", "warn" (or "warning"), "error", "off"; case-insensitive.
 * Anything else is INVALID_ARGUMENT. */
HRX_API HRX_MUST_USE hrx_status_t hrx_log_level_parse(
    const char* text, hrx_log_level_t* out_level);
HRX_API const char* hrx_log_level_string(hrx_log_level_t level);

/* The stderr logger at the HRX_LOG level. An unparsable HRX_LOG keeps the
 * default level and logs one warning saying so. */
HRX_API hrx_logger_t hrx_logger_from_env(void);

HRX_API bool hrx_log_enabled(const hrx_logger_t* logger,
                             hrx_log_level_t level);
HRX_API void hrx_log(const hrx_logger_t* logger, hrx_log_level_t level,
                     const char* format, ...) HRX_PRINTF(3, 4);
HRX_API void hrx_log_v(const hrx_logger_t* logger, hrx_log_level_t level,
                       const char* format, va_list args) HRX_PRINTF(3, 0);

/* Logs a status as "context: CODE: message; ..." at |level|. */
HRX_API void hrx_log_status(const hrx_logger_t* logger, hrx_log_level_t level,
                            const char* context, hrx_status_t status);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_LOG_H_ */
