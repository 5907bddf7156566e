/* Resolved config values, shared with the launch-program builder. */
#ifndef HRX_LOOM_CONFIG_INTERNAL_H_
#define HRX_LOOM_CONFIG_INTERNAL_H_

#include "hrx/loom/config.h"
#include "ir.h"

typedef struct loom_config_value_t {
  const char* name;     /* borrowed from the module */
  uint32_t decl;
  loom_type_kind_t kind;
  uint64_t bits;        /* see hrx_loom_specialization_bits */
  double real;          /* floats, as parsed */
} loom_config_value_t;

struct hrx_loom_specialization_s {
  hrx_allocator_t allocator;
  loom_config_value_t* values; /* sorted by name */
  size_t count;
  char* canonical;
};

/* The bits of |value| at float width |kind| (nearest-even). */
uint64_t loom_float_bits(double value, loom_type_kind_t kind);

/* True when finite |value| stays finite rounded to float type |kind|. */
bool loom_float_fits(double value, loom_type_kind_t kind);

const loom_config_value_t* loom_specialization_find(
    const hrx_loom_specialization_t* specialization, const char* name);

#endif /* HRX_LOOM_CONFIG_INTERNAL_H_ */
