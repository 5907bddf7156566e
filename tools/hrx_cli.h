/* Shared declarations of the `hrx` command-line tool. */
#ifndef HRX_TOOLS_HRX_CLI_H_
#define HRX_TOOLS_HRX_CLI_H_

#include <stdio.h>

#include <stdbool.h>

#include "hrx/core.h"
#include "hrx/loom.h"

/* Exit codes: 0 success, 1 the operation failed, 2 usage error. */
enum {
  HRX_EXIT_OK = 0,
  HRX_EXIT_FAILURE = 1,
  HRX_EXIT_USAGE = 2,
};

typedef struct hrx_cli_command_t {
  const char* name;
  const char* summary;
  /* Full usage text printed by `hrx help NAME` and `hrx NAME --help`. */
  const char* usage;
  /* argv[0] is the command name. */
  int (*run)(int argc, char** argv);
} hrx_cli_command_t;

/* Prints "hrx: <command>: <message>" for a usage error and returns
 * HRX_EXIT_USAGE. */
int hrx_cli_usage_error(const char* command, const char* format, ...)
    HRX_PRINTF(2, 3);

/* A usage error whose reason is |status|'s message (a bad number from
 * hrx_parse_u64, say); frees |status| and returns HRX_EXIT_USAGE. */
int hrx_cli_usage_status(const char* command, hrx_status_t status);

/* Prints "hrx: <command>: <status>" and returns HRX_EXIT_FAILURE; frees
 * |status|. */
int hrx_cli_fail(const char* command, hrx_status_t status);

/* If |arg| is "NAME=VALUE" for option |name| (e.g. "--export"), sets
 * |*out_value| to VALUE and returns true. */
bool hrx_cli_option(const char* arg, const char* name, const char** out_value);

/* The limits of a download, shared by hrx prepare and hrx fetch:
 * --timeout=S (all tries), --stall-window=S, --min-rate=B, --max-size=B.
 * 0 means not given (the library's default). */
typedef struct hrx_cli_transfer_limits_t {
  uint64_t timeout_s;
  uint64_t stall_window_s;
  uint64_t min_rate;
  uint64_t max_size;
} hrx_cli_transfer_limits_t;

/* Their lines of usage text. */
#define HRX_CLI_TRANSFER_USAGE                                               \
  "  --timeout=S       give up after S seconds, all tries included\n"        \
  "  --stall-window=S  fail a try that moves under --min-rate over S s "     \
  "(30)\n"                                                                   \
  "  --min-rate=B      bytes/s a try must keep up (1024)\n"                  \
  "  --max-size=B      cap for a file whose size is not known beforehand\n"

/* Takes |arg| when it is one of the transfer limits: 1 when taken, 0 when
 * it is none of them, HRX_EXIT_USAGE (after saying why) for a bad value. */
int hrx_cli_transfer_limit(const char* command, const char* arg,
                           hrx_cli_transfer_limits_t* limits);

/* Prints compiler diagnostics C-compiler style to stderr. */
void hrx_cli_print_diagnostics(const hrx_loom_diagnostics_t* diagnostics);

int hrx_cmd_check(int argc, char** argv);
int hrx_cmd_compile(int argc, char** argv);
int hrx_cmd_doctor(int argc, char** argv);
int hrx_cmd_fetch(int argc, char** argv);
int hrx_cmd_gc(int argc, char** argv);
int hrx_cmd_inspect(int argc, char** argv);
int hrx_cmd_pack(int argc, char** argv);
int hrx_cmd_prepare(int argc, char** argv);
int hrx_cmd_run(int argc, char** argv);

#endif /* HRX_TOOLS_HRX_CLI_H_ */
