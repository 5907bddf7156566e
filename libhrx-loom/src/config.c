/* Config values and their resolution against a module's declarations. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "hrx/core/half.h"
#include "op_table.h"

typedef struct loom_config_entry_t {
  char* name;
  char* value;
} loom_config_entry_t;

struct hrx_loom_config_s {
  hrx_allocator_t allocator;
  loom_config_entry_t* entries;
  size_t count;
  size_t capacity;
  loom_index_t index; /* entries by name */
};

static bool loom_config_entry_matches(const void* context, uint32_t value,
                                      const void* key) {
  const hrx_loom_config_t* config = context;
  return strcmp(config->entries[value].name, key) == 0;
}

static uint32_t loom_config_name_hash(const char* name) {
  return loom_hash_bytes(name, strlen(name), LOOM_HASH_SEED);
}

/* The entry named |name|, or LOOM_NONE. */
static uint32_t loom_config_lookup(const hrx_loom_config_t* config,
                                   const char* name) {
  if (!config) return LOOM_NONE;
  return loom_index_find(&config->index, loom_config_name_hash(name),
                         loom_config_entry_matches, config, name);
}

hrx_status_t hrx_loom_config_create(hrx_allocator_t allocator,
                                    hrx_loom_config_t** out_config) {
  *out_config = NULL;
  hrx_loom_config_t* config = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*config), (void**)&config));
  config->allocator = allocator;
  *out_config = config;
  return HRX_OK;
}

void hrx_loom_config_destroy(hrx_loom_config_t* config) {
  if (!config) return;
  for (size_t i = 0; i < config->count; ++i) {
    hrx_allocator_free(config->allocator, config->entries[i].name);
    hrx_allocator_free(config->allocator, config->entries[i].value);
  }
  hrx_allocator_free(config->allocator, config->entries);
  loom_index_free(&config->index, config->allocator);
  hrx_allocator_free(config->allocator, config);
}

size_t hrx_loom_config_count(const hrx_loom_config_t* config) {
  return config ? config->count : 0;
}

hrx_status_t hrx_loom_config_set(hrx_loom_config_t* config, const char* name,
                                 const char* value) {
  if (!name || !name[0]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "config name is empty");
  }
  if (name[0] == '@') ++name;
  if (!value || !value[0]) {
    char escaped[HRX_ESCAPED_NAME_CAPACITY];
    return hrx_make_status(
        HRX_STATUS_INVALID_ARGUMENT, "config @%s has an empty value",
        hrx_escape_text(name, strlen(name), escaped, sizeof(escaped)));
  }
  if (config->count >= LOOM_NONE - 1) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "too many config values");
  }
  char* copy = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_strdup(config->allocator, value, &copy));
  uint32_t existing = loom_config_lookup(config, name);
  if (existing != LOOM_NONE) {
    hrx_allocator_free(config->allocator, config->entries[existing].value);
    config->entries[existing].value = copy;
    return HRX_OK;
  }
  char* name_copy = NULL;
  hrx_status_t status =
      hrx_allocator_strdup(config->allocator, name, &name_copy);
  if (status == HRX_OK) {
    status = hrx_allocator_grow_array(
        config->allocator, sizeof(loom_config_entry_t), config->count + 1,
        &config->capacity, (void**)&config->entries);
  }
  if (status == HRX_OK) {
    status = loom_index_insert(&config->index, config->allocator,
                               loom_config_name_hash(name),
                               (uint32_t)config->count);
  }
  if (status != HRX_OK) {
    hrx_allocator_free(config->allocator, copy);
    hrx_allocator_free(config->allocator, name_copy);
    return status;
  }
  config->entries[config->count++] =
      (loom_config_entry_t){.name = name_copy, .value = copy};
  return HRX_OK;
}

hrx_status_t hrx_loom_config_set_assignment(hrx_loom_config_t* config,
                                            const char* assignment) {
  const char* equal = assignment ? strchr(assignment, '=') : NULL;
  if (!equal || equal == assignment) {
    char escaped[HRX_ESCAPED_NAME_CAPACITY];
    return hrx_make_status(
        HRX_STATUS_INVALID_ARGUMENT, "config '%s' is not NAME=VALUE",
        assignment ? hrx_escape_text(assignment, strlen(assignment), escaped,
                                     sizeof(escaped))
                   : "");
  }
  size_t length = (size_t)(equal - assignment);
  char* name = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_uninitialized(
      config->allocator, length + 1, (void**)&name));
  memcpy(name, assignment, length);
  name[length] = '\0';
  hrx_status_t status = hrx_loom_config_set(config, name, equal + 1);
  hrx_allocator_free(config->allocator, name);
  return status;
}

/*===------------------------------------------------------------------===*/
/* Resolution                                                              */
/*===------------------------------------------------------------------===*/

uint64_t loom_float_bits(double value, loom_type_kind_t kind) {
  if (kind == LOOM_TYPE_F64) {
    uint64_t bits;
    memcpy(&bits, &value, 8);
    return bits;
  }
  float f = (float)value;
  uint32_t bits;
  memcpy(&bits, &f, 4);
  if (kind == LOOM_TYPE_F32) return bits;
  if (kind == LOOM_TYPE_BF16) return hrx_f32_bits_to_bf16(bits);
  return hrx_f32_bits_to_f16(bits);
}

bool loom_float_fits(double value, loom_type_kind_t kind) {
  if (!isfinite(value)) return false;
  if (kind == LOOM_TYPE_F64) return true;
  /* Infinity's exponent is all ones at every width. */
  uint64_t bits = loom_float_bits(value, kind);
  switch (kind) {
    case LOOM_TYPE_F32: return (bits & 0x7f800000u) != 0x7f800000u;
    case LOOM_TYPE_BF16: return (bits & 0x7f80u) != 0x7f80u;
    default: return (bits & 0x7c00u) != 0x7c00u;
  }
}

static bool loom_parse_int_text(const char* text, int64_t* out) {
  errno = 0;
  char* end = NULL;
  bool negative = text[0] == '-';
  int64_t value = negative ? strtoll(text, &end, 0)
                           : (int64_t)strtoull(text, &end, 0);
  if (errno == ERANGE || end == text || *end != '\0') return false;
  if (!negative && text[0] == '+') return false;
  *out = value;
  return true;
}

static bool loom_int_fits(int64_t value, loom_type_kind_t kind) {
  uint32_t bits = loom_type_bit_width(kind);
  if (kind == LOOM_TYPE_OFFSET) return value >= 0;
  if (bits >= 64) return true;
  if (bits == 1) return value == 0 || value == 1;
  int64_t min = -((int64_t)1 << (bits - 1));
  int64_t max = (int64_t)(((uint64_t)1 << bits) - 1);
  return value >= min && value <= max;
}

static void loom_spec_error(const loom_module_t* m,
                            hrx_loom_diagnostics_t* diagnostics,
                            loom_span_t span, hrx_loom_diag_code_t code,
                            const char* name, const char* value,
                            const char* format, ...) HRX_PRINTF(7, 8);

static void loom_spec_error(const loom_module_t* m,
                            hrx_loom_diagnostics_t* diagnostics,
                            loom_span_t span, hrx_loom_diag_code_t code,
                            const char* name, const char* value,
                            const char* format, ...) {
  hrx_loom_diag_param_t params[] = {{"symbol", name}, {"value", value}};
  va_list args;
  va_start(args, format);
  loom_diag_emitv(diagnostics, &m->source, span, HRX_LOOM_SEVERITY_ERROR,
                  code, params, value ? 2 : 1, format, args);
  va_end(args);
}

/* Parses |text| for |decl|; false after emitting a diagnostic. */
static bool loom_resolve_text(const loom_module_t* m,
                              hrx_loom_diagnostics_t* diagnostics,
                              const loom_config_decl_t* decl,
                              const char* text, loom_config_value_t* out) {
  const char* name = loom_module_string(m, decl->symbol);
  loom_type_kind_t kind = loom_type_kind(m, decl->type);
  out->kind = kind;
  if (kind == LOOM_TYPE_I1) {
    if (!strcmp(text, "true") || !strcmp(text, "1")) {
      out->bits = 1;
      return true;
    }
    if (!strcmp(text, "false") || !strcmp(text, "0")) {
      out->bits = 0;
      return true;
    }
    loom_spec_error(m, diagnostics, decl->span, HRX_LOOM_DIAG_CONFIG_MISTYPED,
                    name, text, "config @%s is i1; '%s' is not true, false, "
                    "1 or 0", name, text);
    return false;
  }
  if (loom_type_is_float(kind)) {
    errno = 0;
    char* end = NULL;
    double value = strtod(text, &end);
    if (end == text || *end != '\0') {
      loom_spec_error(m, diagnostics, decl->span,
                      HRX_LOOM_DIAG_CONFIG_MISTYPED, name, text,
                      "config @%s is %s; '%s' is not a number", name,
                      loom_type_kind_name(kind), text);
      return false;
    }
    if (!loom_float_fits(value, kind)) {
      loom_spec_error(m, diagnostics, decl->span,
                      HRX_LOOM_DIAG_CONFIG_OUT_OF_RANGE, name, text,
                      "config @%s: %s is not a finite %s", name, text,
                      loom_type_kind_name(kind));
      return false;
    }
    out->real = value;
    out->bits = loom_float_bits(value, kind);
    return true;
  }
  int64_t value = 0;
  if (!loom_parse_int_text(text, &value)) {
    loom_spec_error(m, diagnostics, decl->span, HRX_LOOM_DIAG_CONFIG_MISTYPED,
                    name, text, "config @%s is %s; '%s' is not an integer",
                    name, loom_type_kind_name(kind), text);
    return false;
  }
  if (!loom_int_fits(value, kind)) {
    loom_spec_error(m, diagnostics, decl->span,
                    HRX_LOOM_DIAG_CONFIG_OUT_OF_RANGE, name, text,
                    "config @%s: %s does not fit in %s", name, text,
                    loom_type_kind_name(kind));
    return false;
  }
  out->bits = (uint64_t)value;
  return true;
}

/* Checks the declaration's facts with the bound value substituted. */
static bool loom_check_decl_facts(const loom_module_t* m,
                                  hrx_loom_diagnostics_t* diagnostics,
                                  const loom_config_decl_t* decl,
                                  const loom_config_value_t* value,
                                  const char* text) {
  if (loom_type_is_float(value->kind)) return true;
  int64_t v = (int64_t)value->bits;
  for (uint32_t i = 0; i < decl->pred_count; ++i) {
    const loom_pred_t* pred = &LOOM_PRED(m, decl->preds_start + i);
    int64_t a = pred->args[1].constant, b = pred->args[2].constant;
    /* Facts may only compare against literals here: there is no other
     * value in scope. */
    bool literal = pred->args[1].is_static &&
                   (pred->arg_count < 3 || pred->args[2].is_static);
    if (!literal) continue;
    bool ok = true;
    switch (pred->kind) {
      case LOOM_PRED_RANGE: ok = v >= a && v <= b; break;
      case LOOM_PRED_LT: ok = v < a; break;
      case LOOM_PRED_LE: ok = v <= a; break;
      case LOOM_PRED_EQ: ok = v == a; break;
      case LOOM_PRED_NE: ok = v != a; break;
      case LOOM_PRED_MUL: ok = a > 0 && v % a == 0; break;
      default: break;
    }
    if (!ok) {
      const char* name = loom_module_string(m, decl->symbol);
      loom_spec_error(m, diagnostics, pred->span,
                      HRX_LOOM_DIAG_CONFIG_OUT_OF_RANGE, name, text,
                      "config @%s = %s violates its declared fact", name,
                      text);
      return false;
    }
  }
  return true;
}

static void loom_mark_reads(const loom_module_t* m, bool* read) {
  uint32_t get = loom_opcode("config.get");
  for (uint32_t o = 0; o < m->ops.count; ++o) {
    const loom_op_t* op = &LOOM_OP(m, o);
    if (op->opcode != get) continue;
    uint32_t decl = loom_module_find_config(m, loom_module_string(m, op->symbol));
    if (decl != LOOM_NONE) read[decl] = true;
  }
}

static int loom_compare_names(const void* a, const void* b) {
  const loom_config_value_t* x = a;
  const loom_config_value_t* y = b;
  return strcmp(x->name, y->name);
}

static hrx_status_t loom_format_value(hrx_string_builder_t* out,
                                      const loom_config_value_t* v) {
  if (v->kind == LOOM_TYPE_I1) {
    return hrx_string_builder_append_cstr(out, v->bits ? "true" : "false");
  }
  if (loom_type_is_float(v->kind)) {
    /* The declared-width bits are canonical: print them in hex so equal
     * values at that width always compare equal. */
    return hrx_string_builder_appendf(out, "0x%" PRIx64, v->bits);
  }
  if (v->kind == LOOM_TYPE_OFFSET) {
    return hrx_string_builder_appendf(out, "%" PRIu64, v->bits);
  }
  return hrx_string_builder_appendf(out, "%" PRId64, (int64_t)v->bits);
}

hrx_status_t hrx_loom_module_specialize(
    const hrx_loom_module_t* module, const hrx_loom_config_t* config,
    hrx_loom_diagnostics_t* diagnostics, hrx_allocator_t allocator,
    hrx_loom_specialization_t** out_specialization) {
  *out_specialization = NULL;
  const loom_module_t* m = module;
  hrx_loom_diagnostics_t* own = NULL;
  size_t errors_before = 0;
  HRX_RETURN_IF_ERROR(
      loom_diag_begin(&diagnostics, allocator, &own, &errors_before));
  uint32_t decls = m->configs.count;
  hrx_loom_specialization_t* spec = NULL;
  bool* read = NULL;
  hrx_status_t status =
      hrx_allocator_malloc(allocator, sizeof(*spec), (void**)&spec);
  if (status == HRX_OK) {
    spec->allocator = allocator;
    status = hrx_allocator_malloc_array(allocator, decls ? decls : 1,
                                        sizeof(loom_config_value_t),
                                        (void**)&spec->values);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc(allocator, decls ? decls : 1,
                                  (void**)&read);
  }
  if (status != HRX_OK) {
    hrx_allocator_free(allocator, read);
    hrx_loom_specialization_destroy(spec);
    hrx_loom_diagnostics_destroy(own);
    return status;
  }
  loom_mark_reads(m, read);

  /* Options naming no declaration. */
  for (size_t i = 0; config && i < config->count; ++i) {
    if (loom_module_find_config(m, config->entries[i].name) == LOOM_NONE) {
      loom_spec_error(m, diagnostics, LOOM_NO_SPAN,
                      HRX_LOOM_DIAG_CONFIG_UNKNOWN, config->entries[i].name,
                      config->entries[i].value,
                      "config @%s is not declared by this module",
                      config->entries[i].name);
    }
  }
  for (uint32_t d = 0; d < decls; ++d) {
    const loom_config_decl_t* decl = &LOOM_CONFIG(m, d);
    const char* name = loom_module_string(m, decl->symbol);
    uint32_t entry = loom_config_lookup(config, name);
    const char* text = entry != LOOM_NONE ? config->entries[entry].value
                                          : NULL;
    loom_config_value_t value = {.name = name};
    char default_text[64];
    if (!text && decl->has_default) {
      const loom_literal_t* l = &decl->default_value;
      if (l->kind == LOOM_LITERAL_FLOAT) {
        text = loom_module_string(m, l->text);
      } else if (l->kind == LOOM_LITERAL_BOOL) {
        text = l->i ? "true" : "false";
      } else {
        snprintf(default_text, sizeof(default_text), "%" PRId64, l->i);
        text = default_text;
      }
    }
    if (!text) {
      if (read[d]) {
        loom_spec_error(m, diagnostics, decl->span,
                        HRX_LOOM_DIAG_CONFIG_MISSING, name, NULL,
                        "config @%s has no value (pass --config=%s=VALUE)",
                        name, name);
      }
      continue;
    }
    if (!loom_resolve_text(m, diagnostics, decl, text, &value) ||
        !loom_check_decl_facts(m, diagnostics, decl, &value, text)) {
      continue;
    }
    value.decl = d;
    spec->values[spec->count++] = value;
  }
  hrx_allocator_free(allocator, read);
  status = loom_diag_result(diagnostics, errors_before, "specialisation");
  if (status == HRX_OK && spec->count) {
    qsort(spec->values, spec->count, sizeof(loom_config_value_t),
          loom_compare_names);
    hrx_string_builder_t text;
    hrx_string_builder_init(allocator, &text);
    status = hrx_string_builder_reserve(&text, 0);
    for (size_t i = 0; i < spec->count && status == HRX_OK; ++i) {
      status = hrx_string_builder_appendf(&text, "%s%s=", i ? ";" : "",
                                          spec->values[i].name);
      if (status == HRX_OK) status = loom_format_value(&text, &spec->values[i]);
    }
    if (status == HRX_OK) {
      status = hrx_string_builder_take(&text, &spec->canonical, NULL);
    }
    hrx_string_builder_deinit(&text);
  }
  hrx_loom_diagnostics_destroy(own);
  if (status != HRX_OK) {
    hrx_loom_specialization_destroy(spec);
    return status;
  }
  *out_specialization = spec;
  return HRX_OK;
}

void hrx_loom_specialization_destroy(hrx_loom_specialization_t* spec) {
  if (!spec) return;
  hrx_allocator_free(spec->allocator, spec->values);
  hrx_allocator_free(spec->allocator, spec->canonical);
  hrx_allocator_free(spec->allocator, spec);
}

const char* hrx_loom_specialization_canonical(
    const hrx_loom_specialization_t* spec) {
  return spec->canonical ? spec->canonical : "";
}

/* Values are sorted by name, so lookups from every config.get of a big
 * module stay logarithmic. */
const loom_config_value_t* loom_specialization_find(
    const hrx_loom_specialization_t* spec, const char* name) {
  if (!spec || !spec->count) return NULL;
  loom_config_value_t key = {.name = name};
  return bsearch(&key, spec->values, spec->count, sizeof(*spec->values),
                 loom_compare_names);
}

hrx_status_t hrx_loom_specialization_bits(
    const hrx_loom_specialization_t* spec, const char* name,
    uint64_t* out_bits) {
  if (name && name[0] == '@') ++name;
  const loom_config_value_t* value = loom_specialization_find(spec, name);
  if (!value) {
    char escaped[HRX_ESCAPED_NAME_CAPACITY];
    return hrx_make_status(
        HRX_STATUS_NOT_FOUND, "config @%s has no resolved value",
        hrx_escape_text(name, strlen(name), escaped, sizeof(escaped)));
  }
  *out_bits = value->bits;
  return HRX_OK;
}
