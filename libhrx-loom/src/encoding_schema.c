/* Storage schemas as the backends can honour them.
 *
 * A schema is kept as its spec text (encoding.define #family<params>); it
 * matters only where a fragment is declared "using {schema = %s}". HRX's
 * fragments hold one element per lane in the vector's own element type,
 * so the schemas it accepts are those that say the same thing:
 *   #encoding.operand<element_format = F, ...> or the alias #encoding.F
 * with F the vector's element type, and of the other parameters only
 * payload_elements (= the vector's lane count), payload_packing
 * (= dense_lanes) and payload_registers (= the 32-bit registers the
 * vector fills). Scaled, quantised, sparse or codebook schemas need a
 * decoding step the backends do not generate, and are refused by name.
 */
#include "encoding_schema.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_table.h"

/* One "key = value" of a spec's <...>, pointing into the spec text. */
typedef struct loom_schema_param_t {
  const char* key;
  size_t key_length;
  const char* value;
  size_t value_length;
} loom_schema_param_t;

static const char* loom_skip_space(const char* text) {
  while (*text == ' ' || *text == '\t' || *text == '\n' || *text == '\r') {
    ++text;
  }
  return text;
}

/* Reads one "key = value" from |*text| (at a key), advancing past it and
 * its comma; false at the closing '>' or on text it cannot split. */
static bool loom_next_param(const char** text, loom_schema_param_t* out) {
  const char* at = loom_skip_space(*text);
  if (*at == '>' || *at == '\0') return false;
  out->key = at;
  while (*at && *at != '=' && *at != ' ' && *at != ',' && *at != '>') ++at;
  out->key_length = (size_t)(at - out->key);
  at = loom_skip_space(at);
  if (*at != '=') return false;
  out->value = at = loom_skip_space(at + 1);
  /* Values may nest (<...>, [...]); a comma ends one only at depth 0. */
  int depth = 0;
  while (*at && (depth > 0 || (*at != ',' && *at != '>'))) {
    if (*at == '<' || *at == '[') ++depth;
    if (*at == '>' || *at == ']') --depth;
    ++at;
  }
  const char* end = at;
  while (end > out->value && (end[-1] == ' ' || end[-1] == '\t')) --end;
  out->value_length = (size_t)(end - out->value);
  *text = *at == ',' ? at + 1 : at;
  return true;
}

static bool loom_param_is(const loom_schema_param_t* param, const char* key) {
  return param->key_length == strlen(key) &&
         memcmp(param->key, key, param->key_length) == 0;
}

static bool loom_value_is(const loom_schema_param_t* param, const char* text) {
  return param->value_length == strlen(text) &&
         memcmp(param->value, text, param->value_length) == 0;
}

static bool loom_value_is_int(const loom_schema_param_t* param,
                              int64_t expected) {
  char text[32];
  if (param->value_length == 0 || param->value_length >= sizeof(text)) {
    return false;
  }
  memcpy(text, param->value, param->value_length);
  text[param->value_length] = '\0';
  char* end = NULL;
  long long value = strtoll(text, &end, 10);
  return *end == '\0' && value == expected;
}

bool loom_schema_stores_as_typed(const loom_module_t* module, uint32_t schema,
                                 loom_type_id_t vector, char* why,
                                 size_t why_size) {
  const loom_value_t* value = &LOOM_VALUE(module, schema);
  if (LOOM_TYPE(module, value->type).kind != LOOM_TYPE_SCHEMA) {
    snprintf(why, why_size, "not an encoding<schema>");
    return false;
  }
  const loom_op_t* def =
      value->def_op == LOOM_NONE ? NULL : &LOOM_OP(module, value->def_op);
  if (!def || def->enum_value != LOOM_ENCODING_SCHEMA ||
      strcmp(loom_op_defs[def->opcode].name, "encoding.define") != 0) {
    snprintf(why, why_size,
             "the schema must come from an encoding.define in the same body");
    return false;
  }
  const loom_type_t* t = &LOOM_TYPE(module, vector);
  const char* element = loom_type_kind_name(t->element);
  int64_t lanes = LOOM_DIM(module, t->dims_start).size;
  int64_t registers = (lanes * loom_type_bit_width(t->element) + 31) / 32;
  const char* spec = loom_module_string(module, def->symbol);
  static const char operand[] = "#encoding.operand";
  static const char alias[] = "#encoding.";
  size_t family = strcspn(spec, "<");
  bool is_operand = family == sizeof(operand) - 1 &&
                    memcmp(spec, operand, family) == 0;
  /* #encoding.f16 is #encoding.operand<element_format = f16>. */
  bool element_known = family == sizeof(alias) - 1 + strlen(element) &&
                       memcmp(spec, alias, sizeof(alias) - 1) == 0 &&
                       memcmp(spec + sizeof(alias) - 1, element,
                              strlen(element)) == 0;
  if (!is_operand && !element_known) {
    snprintf(why, why_size,
             "%.*s does not store %s lanes as they are; HRX fragments take "
             "#encoding.operand<element_format = %s> or #encoding.%s",
             (int)(family > 60 ? 60 : family), spec, element, element,
             element);
    return false;
  }
  const char* text = spec[family] == '<' ? spec + family + 1 : spec + family;
  loom_schema_param_t param;
  while (loom_next_param(&text, &param)) {
    bool ok;
    if (loom_param_is(&param, "element_format")) {
      ok = loom_value_is(&param, element);
      element_known = element_known || ok;
    } else if (loom_param_is(&param, "payload_elements")) {
      ok = loom_value_is_int(&param, lanes);
    } else if (loom_param_is(&param, "payload_registers")) {
      ok = loom_value_is_int(&param, registers);
    } else if (loom_param_is(&param, "payload_packing")) {
      ok = loom_value_is(&param, "dense_lanes");
    } else {
      ok = false;
    }
    if (!ok) {
      snprintf(why, why_size,
               "%.*s = %.*s needs a decoding of a vector<%" PRId64
               "x%s> fragment that HRX does not generate",
               (int)(param.key_length > 40 ? 40 : param.key_length),
               param.key,
               (int)(param.value_length > 40 ? 40 : param.value_length),
               param.value, lanes, element);
      return false;
    }
  }
  if (*loom_skip_space(text) != (spec[family] == '<' ? '>' : '\0')) {
    snprintf(why, why_size, "unreadable parameters in %.60s", spec);
    return false;
  }
  if (!element_known) {
    snprintf(why, why_size, "%s names no element_format", operand);
    return false;
  }
  return true;
}
