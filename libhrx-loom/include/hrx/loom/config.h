/* Config specialisation: binding values to config.decl'd symbols.
 *
 * Values arrive as text, the way a command line or manifest carries them
 * (`hrx.linear.k=4096`); each is parsed by its declaration's type (integers
 * for index/offset/iN, floats for fN, true/false/1/0 for i1), range-checked
 * against the type and the declaration's facts, and normalised. Missing,
 * unknown, mistyped and out-of-range values are diagnostics.
 *
 * The canonical config is the sorted, normalised "name=value" list of every
 * declared config with a value, joined by ';': equal configs always give
 * equal text, whatever order or spelling they were given in, so it can be
 * part of a cache key.
 */
#ifndef HRX_LOOM_CONFIG_H_
#define HRX_LOOM_CONFIG_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/loom/diagnostics.h"
#include "hrx/loom/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compiler options' config values: name -> text. Not thread-safe. */
typedef struct hrx_loom_config_s hrx_loom_config_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_loom_config_create(
    hrx_allocator_t allocator, hrx_loom_config_t** out_config);
HRX_API void hrx_loom_config_destroy(hrx_loom_config_t* config);

/* Sets |name| (without '@') to |value|, replacing an earlier value.
 * INVALID_ARGUMENT for an empty name or value. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_config_set(
    hrx_loom_config_t* config, const char* name, const char* value);

/* Parses "NAME=VALUE" (as given to `--config=`). */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_config_set_assignment(
    hrx_loom_config_t* config, const char* assignment);

HRX_API size_t hrx_loom_config_count(const hrx_loom_config_t* config);

/* A module's configs resolved against a config. Immutable; thread-safe to
 * read; it borrows names from its module and must not outlive it. */
typedef struct hrx_loom_specialization_s hrx_loom_specialization_t;

/* Resolves every declaration of |module| against |config| (NULL = no
 * values). Values are required only for declarations some config.get
 * reads; an unused declaration without a value is left unresolved. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_module_specialize(
    const hrx_loom_module_t* module, const hrx_loom_config_t* config,
    hrx_loom_diagnostics_t* diagnostics, hrx_allocator_t allocator,
    hrx_loom_specialization_t** out_specialization);
HRX_API void hrx_loom_specialization_destroy(
    hrx_loom_specialization_t* specialization);

/* The canonical "a=1;b=2.5;c=true" text ("" when there are no values). */
HRX_API const char* hrx_loom_specialization_canonical(
    const hrx_loom_specialization_t* specialization);

/* The resolved value of |name| as raw 64-bit bits (integers two's
 * complement, floats their IEEE bits at the declared width, i1 0/1).
 * NOT_FOUND when undeclared or unresolved. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_specialization_bits(
    const hrx_loom_specialization_t* specialization, const char* name,
    uint64_t* out_bits);

#ifdef __cplusplus
}
#endif

#endif /* HRX_LOOM_CONFIG_H_ */
