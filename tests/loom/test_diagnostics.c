/* One test per diagnostic path: each source must fail with the expected
 * stable code at the expected line and column. */
#include <stdlib.h>
#include <string.h>

#include "loom_test_util.h"

/* A kernel whose body starts on line 5; snippets go between HEAD and
 * TAIL. */
#define HEAD                                                               \
  "kernel.def @k(%n: index) {\n"                                           \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%x: buffer, %f: f32, %i: index) {\n"
#define TAIL "  kernel.return\n}\n"
#define BODY(text) HEAD text TAIL

typedef struct diag_case_t {
  const char* name;
  const char* source;
  hrx_loom_diag_code_t code;
  uint32_t line;
  uint32_t column;
} diag_case_t;

static const diag_case_t cases[] = {
    /* lexical */
    {"unexpected_character", "#\n", HRX_LOOM_DIAG_UNEXPECTED_CHARACTER, 1, 1},
    {"unterminated_string", "kernel.def export(\"abc @k\n",
     HRX_LOOM_DIAG_UNTERMINATED_STRING, 1, 19},
    {"bad_number", BODY("  %a = index.constant 12abc : index\n"),
     HRX_LOOM_DIAG_BAD_NUMBER, 5, 23},
    {"bad_exponent", BODY("  %a = scalar.constant 1.0e : f32\n"),
     HRX_LOOM_DIAG_BAD_NUMBER, 5, 24},
    {"empty_name", BODY("  % = index.constant 1 : index\n"),
     HRX_LOOM_DIAG_EMPTY_NAME, 5, 3},
    /* syntax */
    {"expected_token", BODY("  %a = index.add %i %i : index\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 5, 21},
    {"unknown_op", BODY("  %a = index.frob %i, %i : index\n"),
     HRX_LOOM_DIAG_UNKNOWN_OP, 5, 8},
    {"unknown_top_level", "banana @k\n", HRX_LOOM_DIAG_UNKNOWN_TOP_LEVEL, 1,
     1},
    {"unknown_type", BODY("  %a = index.constant 1 : f128\n"),
     HRX_LOOM_DIAG_UNKNOWN_TYPE, 5, 27},
    {"unknown_enum", BODY("  %a = kernel.workgroup.id<w> : index\n"),
     HRX_LOOM_DIAG_UNKNOWN_ENUM, 5, 28},
    {"unknown_cmp_predicate", BODY("  %a = index.cmp lt, %i, %i : index\n"),
     HRX_LOOM_DIAG_UNKNOWN_ENUM, 5, 18},
    {"result_count", BODY("  %a, %b = index.constant 1 : index\n"),
     HRX_LOOM_DIAG_RESULT_COUNT, 5, 3},
    {"bad_target_attribute", "amdgpu.target<gfx1151> @t {wave = 32}\n",
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 1, 28},
    {"unknown_predicate",
     BODY("  %a = index.assume %i [between(%i, 0, 1)] : index\n"),
     HRX_LOOM_DIAG_UNKNOWN_PREDICATE, 5, 25},
    {"literal_range",
     BODY("  %a = index.constant 99999999999999999999 : index\n"),
     HRX_LOOM_DIAG_LITERAL_RANGE, 5, 23},
    /* names and symbols */
    {"undefined_value", BODY("  %a = index.add %i, %nope : index\n"),
     HRX_LOOM_DIAG_UNDEFINED_VALUE, 5, 22},
    {"use_before_definition", BODY("  %a = index.add %a, %i : index\n"),
     HRX_LOOM_DIAG_UNDEFINED_VALUE, 5, 18},
    {"sibling_scope", BODY("  %c = index.cmp eq, %i, %i : index\n"
                           "  scf.if %c {\n"
                           "    %inner = index.add %i, %i : index\n"
                           "  }\n"
                           "  %b = index.add %inner, %i : index\n"),
     HRX_LOOM_DIAG_UNDEFINED_VALUE, 9, 18},
    {"redefined_value", BODY("  %a = index.constant 1 : index\n"
                             "  %a = index.constant 2 : index\n"),
     HRX_LOOM_DIAG_REDEFINED_VALUE, 6, 3},
    {"undefined_target", "kernel.def target(@nope) @k() {\n}\n",
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 1, 19},
    {"undefined_config", BODY("  %a = config.get @missing : index\n"),
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 5, 3},
    {"undefined_function",
     BODY("  %a = func.call @nope(%i) : (index) -> (index)\n"),
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 5, 3},
    {"redefined_symbol", BODY("") "kernel.def @k() {\n}\n",
     HRX_LOOM_DIAG_REDEFINED_SYMBOL, 7, 12},
    {"duplicate_export",
     "kernel.def export(\"e\") @a() {\n"
     "  %one = index.constant 1 : index\n"
     "  kernel.launch.config workgroups(%one, %one, %one) "
     "workgroup_size(%one, %one, %one) : index\n"
     "} launch() {\n  kernel.return\n}\n"
     "kernel.def export(\"e\") @b() {\n"
     "  %one = index.constant 1 : index\n"
     "  kernel.launch.config workgroups(%one, %one, %one) "
     "workgroup_size(%one, %one, %one) : index\n"
     "} launch() {\n  kernel.return\n}\n",
     HRX_LOOM_DIAG_DUPLICATE_EXPORT, 7, 19},
    /* types */
    {"type_mismatch", BODY("  %a = index.add %i, %f : index\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 5, 3},
    {"type_not_allowed", BODY("  %a = scalar.addf %i, %i : index\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 5, 3},
    {"vector_element_not_allowed",
     BODY("  %c = scalar.constant 1 : i32\n"
          "  %v = vector.splat %c : vector<4xi32>\n"
          "  %a = vector.addf %v, %v : vector<4xi32>\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 7, 3},
    {"vector_reduce_element",
     BODY("  %v = vector.splat %f : vector<4xf32>\n"
          "  %c = scalar.constant 1 : i32\n"
          "  %r = vector.reduce<addf> %v, %c : vector<4xf32>, i32\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 7, 3},
    {"workgroup_reduce_cluster",
     BODY("  %r = kernel.workgroup.reduce<addf> %f {cluster_size = 8} : f32\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 5, 3},
    {"workgroup_reduce_xchg",
     BODY("  %r = kernel.workgroup.reduce<xchg> %i : index\n"),
     HRX_LOOM_DIAG_UNKNOWN_ENUM, 5, 3},
    {"workgroup_reduce_kind",
     BODY("  %v = vector.splat %f : vector<4xf32>\n"
          "  %r = kernel.workgroup.reduce<maxsi> %v : vector<4xf32>\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 6, 3},
    {"workgroup_reduce_view",
     BODY("  %o = index.constant 0 : offset\n"
          "  %v = buffer.view %x[%o] : buffer -> view<4xf32>\n"
          "  %r = kernel.workgroup.reduce<addf> %v : view<4xf32>\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 7, 3},
    {"vector_constant_float_for_int",
     BODY("  %v = vector.constant 1.5 : vector<4xi32>\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 5, 3},
    {"vector_constant_range",
     BODY("  %v = vector.constant 300 : vector<4xi8>\n"),
     HRX_LOOM_DIAG_CONSTANT_RANGE, 5, 3},
    {"vector_iota_floats",
     BODY("  %v = vector.iota %f step %f : vector<4xf32>\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 5, 3},
    {"vector_iota_step_type",
     BODY("  %b = scalar.constant 1 : i32\n"
          "  %v = vector.iota %b step %i : vector<4xi32>\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 6, 3},
    {"vector_iota_needs_step",
     BODY("  %b = scalar.constant 1 : i32\n"
          "  %v = vector.iota %b, %b : vector<4xi32>\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 6, 22},
    {"vector_from_elements_count",
     BODY("  %v = vector.from_elements %f, %f, %f : vector<4xf32>\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 5, 3},
    {"vector_from_elements_type",
     BODY("  %v = vector.from_elements %f, %i : vector<2xf32>\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 5, 3},
    {"vector_cmpi_needs_mask_type",
     BODY("  %b = scalar.constant 1 : i32\n"
          "  %v = vector.splat %b : vector<4xi32>\n"
          "  %m = vector.cmpi eq, %v, %v : vector<4xi32>\n"
          "  kernel.return\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 8, 3},
    {"vector_cmpi_mask_lanes",
     BODY("  %b = scalar.constant 1 : i32\n"
          "  %v = vector.splat %b : vector<4xi32>\n"
          "  %m = vector.cmpi eq, %v, %v : vector<4xi32> -> vector<8xi1>\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 7, 3},
    {"vector_cmpf_on_integers",
     BODY("  %b = scalar.constant 1 : i32\n"
          "  %v = vector.splat %b : vector<4xi32>\n"
          "  %m = vector.cmpf olt, %v, %v : vector<4xi32> -> vector<4xi1>\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 7, 3},
    {"vector_select_scalar_condition",
     BODY("  %v = vector.splat %f : vector<4xf32>\n"
          "  %t = scalar.constant true : i1\n"
          "  %r = vector.select %t, %v, %v : vector<4xf32>\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 7, 3},
    {"vector_dotf_accumulator",
     BODY("  %v = vector.splat %f : vector<4xf32>\n"
          "  %c = scalar.constant 1 : i32\n"
          "  %r = vector.dotf %v, %v, %c : vector<4xf32>, vector<4xf32>, "
          "i32\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 7, 3},
    {"vector_dotf_sources_differ",
     BODY("  %v = vector.splat %f : vector<4xf32>\n"
          "  %r = vector.dotf %v, %v, %f : vector<4xf32>, vector<8xf32>, "
          "f32\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 6, 48},
    {"vector_dot4i_lanes",
     BODY("  %c = scalar.constant 1 : i8\n"
          "  %v = vector.splat %c : vector<8xi8>\n"
          "  %z = scalar.constant 0 : i32\n"
          "  %a = vector.splat %z : vector<4xi32>\n"
          "  %r = vector.dot4i<s8s8> %v, %v, %a : vector<8xi8>, vector<8xi8>, "
          "vector<4xi32>\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 9, 3},
    {"vector_dot4i_kind",
     BODY("  %c = scalar.constant 1 : i8\n"
          "  %v = vector.splat %c : vector<4xi8>\n"
          "  %z = scalar.constant 0 : i32\n"
          "  %a = vector.splat %z : vector<1xi32>\n"
          "  %r = vector.dot4i<s8s16> %v, %v, %a : vector<4xi8>, vector<4xi8>, "
          "vector<1xi32>\n"),
     HRX_LOOM_DIAG_UNKNOWN_ENUM, 9, 0},
    {"bitunpack_bit_count",
     BODY("  %c = scalar.constant 1 : i8\n"
          "  %v = vector.splat %c : vector<2xi8>\n"
          "  %r = vector.bitunpacku<4> %v : vector<2xi8> -> vector<8xi8>\n"),
     HRX_LOOM_DIAG_BAD_SHAPE, 7, 3},
    {"bitunpack_width_range",
     BODY("  %c = scalar.constant 1 : i8\n"
          "  %v = vector.splat %c : vector<2xi8>\n"
          "  %r = vector.bitunpacku<0> %v : vector<2xi8> -> vector<8xi8>\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 7, 26},
    {"bitunpack_needs_width",
     BODY("  %c = scalar.constant 1 : i8\n"
          "  %v = vector.splat %c : vector<2xi8>\n"
          "  %r = vector.bitunpacks %v : vector<2xi8> -> vector<4xi8>\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 7, 26},
    {"bitunpack_floats",
     BODY("  %v = vector.splat %f : vector<2xf32>\n"
          "  %r = vector.bitunpacku<8> %v : vector<2xf32> -> vector<8xi8>\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 6, 3},
    {"bitfield_outside_lane",
     BODY("  %c = scalar.constant 1 : i8\n"
          "  %v = vector.splat %c : vector<2xi8>\n"
          "  %r = vector.bitfield.extractu %v {offset = 6, width = 4} : "
          "vector<2xi8> -> vector<2xi32>\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 7, 3},
    {"bitfield_needs_width",
     BODY("  %c = scalar.constant 1 : i8\n"
          "  %v = vector.splat %c : vector<2xi8>\n"
          "  %r = vector.bitfield.extracts %v {offset = 2} : "
          "vector<2xi8> -> vector<2xi32>\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 7, 3},
    {"bitfield_lanes",
     BODY("  %c = scalar.constant 1 : i8\n"
          "  %v = vector.splat %c : vector<2xi8>\n"
          "  %r = vector.bitfield.extractu %v {offset = 0, width = 4} : "
          "vector<2xi8> -> vector<4xi32>\n"),
     HRX_LOOM_DIAG_BAD_SHAPE, 7, 3},
    {"bitfield_width_zero",
     BODY("  %c = scalar.constant 1 : i8\n"
          "  %v = vector.splat %c : vector<2xi8>\n"
          "  %r = vector.bitfield.extractu %v {offset = 0, width = 0} : "
          "vector<2xi8> -> vector<2xi32>\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 7, 57},
    {"vector_integer_op_on_floats",
     BODY("  %v = vector.splat %f : vector<4xf32>\n"
          "  %w = vector.xori %v, %v : vector<4xf32>\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 6, 3},
    {"vector_cast_count",
     BODY("  %v = vector.splat %f : vector<4xf32>\n"
          "  %w = vector.fptrunc %v : vector<4xf32> to vector<8xf16>\n"),
     HRX_LOOM_DIAG_BAD_CAST, 6, 3},
    {"vector_cast_elements",
     BODY("  %c = scalar.constant 1 : i32\n"
          "  %v = vector.splat %c : vector<4xi32>\n"
          "  %w = vector.extf %v : vector<4xi32> to vector<4xi64>\n"),
     HRX_LOOM_DIAG_BAD_CAST, 7, 3},
    {"vector_reduce_kind",
     BODY("  %v = vector.splat %f : vector<4xf32>\n"
          "  %r = vector.reduce<addi> %v, %f : vector<4xf32>, f32\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 6, 3},
    {"vector_shape", BODY("  %a = scalar.constant 1.0 : vector<0xf32>\n"),
     HRX_LOOM_DIAG_BAD_SHAPE, 5, 30},
    {"view_rank", BODY("  %o = index.constant 0 : offset\n"
                       "  %v = buffer.view %x[%o] : buffer -> view<4x4xf32>\n"
                       "  %l = view.load %v[%i] : view<4x4xf32> -> f32\n"),
     HRX_LOOM_DIAG_BAD_SHAPE, 7, 3},
    {"static_index_bounds",
     BODY("  %o = index.constant 0 : offset\n"
          "  %v = buffer.view %x[%o] : buffer -> view<4xf32>\n"
          "  %l = view.load %v[4] : view<4xf32> -> f32\n"),
     HRX_LOOM_DIAG_CONSTANT_RANGE, 7, 3},
    {"bad_cast", BODY("  %a = scalar.extf %f : f32 to f16\n"),
     HRX_LOOM_DIAG_BAD_CAST, 5, 3},
    /* structure */
    {"missing_terminator",
     "kernel.def @k() {\n"
     "  %one = index.constant 1 : index\n"
     "  kernel.launch.config workgroups(%one, %one, %one) "
     "workgroup_size(%one, %one, %one) : index\n"
     "} launch() {\n"
     "  %a = index.constant 1 : index\n"
     "}\n",
     HRX_LOOM_DIAG_MISSING_TERMINATOR, 6, 1},
    {"terminator_not_last", HEAD "  kernel.return\n"
                                 "  %a = index.constant 1 : index\n" TAIL,
     HRX_LOOM_DIAG_TERMINATOR_NOT_LAST, 5, 3},
    {"yield_arity", BODY("  %c = index.cmp eq, %i, %i : index\n"
                         "  %r = scf.if %c -> (f32) {\n"
                         "    scf.yield\n"
                         "  } else {\n"
                         "    scf.yield %f : f32\n"
                         "  }\n"),
     HRX_LOOM_DIAG_YIELD_ARITY, 7, 5},
    {"for_yield_type",
     BODY("  %z = index.constant 0 : index\n"
          "  %r = scf.for %j = [%z to %i step %i](%s = %f : f32) -> (f32) {\n"
          "    scf.yield %j : index\n"
          "  }\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 7, 5},
    {"if_results_need_else", BODY("  %c = index.cmp eq, %i, %i : index\n"
                                  "  %r = scf.if %c -> (f32) {\n"
                                  "    scf.yield %f : f32\n"
                                  "  }\n"),
     HRX_LOOM_DIAG_YIELD_ARITY, 6, 3},
    {"op_not_allowed_in_config",
     "kernel.def @k() {\n"
     "  %w = kernel.workgroup.id<x> : index\n"
     "  kernel.launch.config workgroups(%w, %w, %w) "
     "workgroup_size(%w, %w, %w) : index\n"
     "} launch() {\n  kernel.return\n}\n",
     HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE, 2, 3},
    {"wrong_terminator", HEAD "  scf.yield\n}\n",
     HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE, 5, 3},
    {"bad_fact_range",
     BODY("  %a = index.assume %i [range(%i, 5, 1)] : index\n"),
     HRX_LOOM_DIAG_BAD_FACT, 5, 25},
    {"bad_fact_subject",
     BODY("  %z = index.constant 0 : index\n"
          "  %a = index.assume %i [lt(%z, %i)] : index\n"),
     HRX_LOOM_DIAG_BAD_FACT, 6, 25},
    {"bad_fact_mul", BODY("  %a = index.assume %i [mul(%i, 0)] : index\n"),
     HRX_LOOM_DIAG_BAD_FACT, 5, 25},
    {"constant_range", BODY("  %a = scalar.constant 300 : i8\n"),
     HRX_LOOM_DIAG_CONSTANT_RANGE, 5, 3},
    {"negative_offset", BODY("  %a = index.constant -1 : offset\n"),
     HRX_LOOM_DIAG_CONSTANT_RANGE, 5, 3},
    {"bad_subgroup_size", "amdgpu.target<gfx1151> @t {subgroup_size = 48}\n",
     HRX_LOOM_DIAG_BAD_TARGET, 1, 44},
    {"bad_target_kind", "amdgpu.target<rdna9> @t\n", HRX_LOOM_DIAG_BAD_TARGET,
     1, 1},
    {"buffer_workload",
     "kernel.def @k(%b: buffer) {\n"
     "  %one = index.constant 1 : index\n"
     "  kernel.launch.config workgroups(%one, %one, %one) "
     "workgroup_size(%one, %one, %one) : index\n"
     "} launch() {\n  kernel.return\n}\n",
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 1, 15},
    {"alloca_space", BODY("  %s = index.constant 4 : offset\n"
                          "  %b = buffer.alloca<global> %s : buffer\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 6, 3},
    /* layouts, flags and the forms upstream rejects */
    {"unknown_view_layout",
     BODY("  %o = index.constant 0 : offset\n"
          "  %v = buffer.view %x[%o] : buffer -> view<4xf32, #sparse>\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 6, 51},
    {"layout_not_a_layout",
     BODY("  %o = index.constant 0 : offset\n"
          "  %v = buffer.view %x[%o] : buffer -> view<4xf32, %i>\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 6, 51},
    {"layout_stride_count",
     BODY("  %o = index.constant 0 : offset\n"
          "  %l = encoding.layout.strided [1] : encoding<layout>\n"
          "  %v = buffer.view %x[%o] : buffer -> view<4x4xf32, %l>\n"),
     HRX_LOOM_DIAG_BAD_SHAPE, 7, 3},
    {"layout_launch_argument",
     "kernel.def @k(%n: index) {\n"
     "  %one = index.constant 1 : index\n"
     "  kernel.launch.config workgroups(%one, %one, %one) "
     "workgroup_size(%one, %one, %one) : index\n"
     "} launch(%l: encoding<layout>) {\n  kernel.return\n}\n",
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 4, 10},
    {"unknown_flag", BODY("  %a = scalar.addf<nnan|fastest> %f, %f : f32\n"),
     HRX_LOOM_DIAG_UNKNOWN_ENUM, 5, 25},
    {"flags_on_index_op", BODY("  %a = index.add<nnan> %i, %i : index\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 5, 17},
    {"clamp_needs_mode", BODY("  %a = scalar.clampf %f, %f, %f : f32\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 5, 22},
    {"offset_mul",
     BODY("  %o = index.constant 4 : offset\n"
          "  %a = index.mul %o, %o : offset\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 6, 3},
    {"offset_div",
     BODY("  %o = index.constant 4 : offset\n"
          "  %a = index.div %o, %o : offset\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 6, 3},
    {"integer_literal_as_float", BODY("  %a = scalar.constant 1 : f32\n"),
     HRX_LOOM_DIAG_TYPE_MISMATCH, 5, 3},
    {"unknown_memory_space",
     BODY("  %b = buffer.assume.memory_space<unknown> %x : buffer\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 5, 3},
    {"shadow_in_same_scope", BODY("  %c = index.cmp eq, %i, %i : index\n"
                                  "  scf.if %c {\n"
                                  "    %a = index.add %i, %i : index\n"
                                  "    %a = index.add %i, %i : index\n"
                                  "  }\n"),
     HRX_LOOM_DIAG_REDEFINED_VALUE, 8, 5},
    /* sin, cos, pow */
    {"pow_one_operand", BODY("  %a = scalar.powf %f : f32\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 5, 3},
    {"sin_two_operands", BODY("  %a = scalar.sinf %f, %f : f32\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 5, 3},
    {"cos_on_integer", BODY("  %a = scalar.cosf %i : index\n"),
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 5, 3},
    {"pow_bad_flag", BODY("  %a = scalar.powf<nuw> %f, %f : f32\n"),
     HRX_LOOM_DIAG_UNKNOWN_ENUM, 5, 20},
    /* alignment promises and function forms */
    {"alignment_missing",
     BODY("  %a = buffer.assume.alignment %x : buffer\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 5, 3},
    {"alignment_not_power_of_two",
     BODY("  %a = buffer.assume.alignment %x {minimum_alignment = 12} : "
          "buffer\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 5, 56},
    {"alignment_unknown_key",
     BODY("  %a = buffer.assume.alignment %x {align = 16} : buffer\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 5, 36},
    {"noalias_takes_no_dict",
     BODY("  %a = buffer.assume.noalias %x {minimum_alignment = 16} : "
          "buffer\n"),
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 5, 33},
    {"func_abi_needs_kind", "func.decl abi(\"x\") @f()\n",
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 1, 15},
    {"func_decl_with_body",
     "func.decl @f() {\n  func.return\n}\n",
     HRX_LOOM_DIAG_UNKNOWN_TOP_LEVEL, 1, 16},
    /* workload constraints, unroll, multi-value assume, aliases, records */
    {"where_unknown_value",
     "kernel.decl @k(%n: index) launch(%n: index) where [lt(%n, %m)]\n",
     HRX_LOOM_DIAG_UNDEFINED_VALUE, 1, 59},
    {"where_needs_preds",
     "kernel.decl @k(%n: index) launch(%n: index) where (%n)\n",
     HRX_LOOM_DIAG_EXPECTED_TOKEN, 1, 51},
    {"unroll_zero",
     BODY("  scf.for %k = [%i to %i step %i] unroll(0) {\n  }\n"),
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 5, 42},
    {"assume_count_mismatch",
     BODY("  %a = index.assume %i, %i [range(%i, 0, 9)] : index, index\n"),
     HRX_LOOM_DIAG_RESULT_COUNT, 5, 3},
    {"assume_fact_not_operand",
     BODY("  %a = index.assume %i [lt(4, %i)] : index\n"),
     HRX_LOOM_DIAG_BAD_FACT, 5, 25},
    {"alias_twice", "#a = #dense\n#a = #dense\n",
     HRX_LOOM_DIAG_REDEFINED_SYMBOL, 2, 1},
    {"alias_needs_value", "#a =\n", HRX_LOOM_DIAG_EXPECTED_TOKEN, 2, 1},
    {"alias_not_a_layout",
     "#a = 42\nfunc.decl @f(%v: view<4xf32, #a>)\n",
     HRX_LOOM_DIAG_BAD_ATTRIBUTE, 2, 30},
    {"kernel_decl_twice",
     "kernel.decl @k() launch()\nkernel.decl @k() launch()\n",
     HRX_LOOM_DIAG_REDEFINED_SYMBOL, 2, 13},
    {"check_case_unknown_kernel",
     "check.case @c {\n  kernel.launch @nope[]() : []()\n  check.return\n}\n",
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 2, 3},
    {"check_iota_float_for_int",
     "check.case @c {\n  %t = check.generate.iota offset(0.5) step(1) : "
     "tensor<4xi32>\n  check.return\n}\n",
     HRX_LOOM_DIAG_TYPE_MISMATCH, 2, 3},
    {"check_close_on_integers",
     "check.case @c {\n  %t = check.generate.fill value(1) : tensor<4xi32>\n"
     "  check.expect.close actual(%t) expected(%t) atol(0.0) rtol(0.0) "
     "nan(same) : tensor<4xi32>\n  check.return\n}\n",
     HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 3, 3},
    {"check_close_bad_nan",
     "check.case @c {\n  %t = check.generate.fill value(1.0) : tensor<4xf32>\n"
     "  check.expect.close actual(%t) expected(%t) atol(0.0) rtol(0.0) "
     "nan(maybe) : tensor<4xf32>\n  check.return\n}\n",
     HRX_LOOM_DIAG_UNKNOWN_ENUM, 3, 70},
    {"check_launch_type_differs",
     "kernel.decl @k(%n: index) launch(%n: index)\n"
     "check.case @c {\n  %n = index.constant 4 : index\n"
     "  kernel.launch @k[%n](%n) : [index](i32)\n  check.return\n}\n",
     HRX_LOOM_DIAG_TYPE_MISMATCH, 4, 38},
    {"check_missing_return",
     "check.case @c {\n  %n = index.constant 4 : index\n}\n",
     HRX_LOOM_DIAG_MISSING_TERMINATOR, 3, 1},
    {"check_benchmark_unknown_case", "check.benchmark<@nope> @b\n",
     HRX_LOOM_DIAG_UNDEFINED_SYMBOL, 1, 1},
    {"check_op_outside_case",
     BODY("  %t = check.literal value(1) : i32\n"),
     HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE, 5, 3},
};

static void test_case(void** state) {
  const diag_case_t* c = *state;
  hrx_loom_diagnostics_t* diagnostics = loom_test_parse_fail(c->source);
  loom_test_expect_diag(diagnostics, c->code, c->line, c->column);
  /* Every error carries a position, a source line and a code. */
  for (size_t i = 0; i < hrx_loom_diagnostics_count(diagnostics); ++i) {
    const hrx_loom_diagnostic_t* d = hrx_loom_diagnostics_at(diagnostics, i);
    if (d->severity != HRX_LOOM_SEVERITY_ERROR) continue;
    assert_string_equal(d->file, "test.loom");
    assert_true(d->line >= 1);
    assert_true(d->length >= 1);
    assert_true(strlen(hrx_loom_diag_code_string(d->code)) == 5);
  }
  hrx_loom_diagnostics_destroy(diagnostics);
}

static void test_unused_launch_argument_is_a_warning(void** state) {
  (void)state;
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &diagnostics));
  const char* source = BODY("");
  hrx_loom_module_t* module = NULL;
  assert_ok(hrx_loom_module_parse(source, strlen(source), NULL, diagnostics,
                                  hrx_allocator_system(), &module));
  assert_int_equal(hrx_loom_diagnostics_error_count(diagnostics), 0);
  assert_int_equal(hrx_loom_diagnostics_count(diagnostics), 3);
  const hrx_loom_diagnostic_t* d = hrx_loom_diagnostics_at(diagnostics, 0);
  assert_int_equal(d->severity, HRX_LOOM_SEVERITY_WARNING);
  assert_int_equal(d->code, HRX_LOOM_DIAG_UNUSED_LAUNCH_ARGUMENT);
  assert_string_equal(hrx_loom_diagnostic_param(d, "symbol"), "x");
  assert_int_equal(d->line, 4);
  assert_int_equal(d->column, 10);
  hrx_loom_module_destroy(module);
  hrx_loom_diagnostics_destroy(diagnostics);
}

static void test_named_params(void** state) {
  (void)state;
  hrx_loom_diagnostics_t* diagnostics =
      loom_test_parse_fail(BODY("  %a = index.add %i, %f : index\n"));
  const hrx_loom_diagnostic_t* d = hrx_loom_diagnostics_at(diagnostics, 0);
  assert_string_equal(hrx_loom_diagnostic_param(d, "expected"), "index");
  assert_string_equal(hrx_loom_diagnostic_param(d, "actual"), "f32");
  assert_null(hrx_loom_diagnostic_param(d, "nope"));
  assert_string_equal(d->source_line, "  %a = index.add %i, %f : index");
  hrx_loom_diagnostics_destroy(diagnostics);
}

static void test_format_has_caret(void** state) {
  (void)state;
  hrx_loom_diagnostics_t* diagnostics =
      loom_test_parse_fail(BODY("  %a = index.add %i, %nope : index\n"));
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_loom_diagnostics_format(diagnostics, &b));
  assert_string_equal(hrx_string_builder_cstr(&b),
                      "test.loom:5:22: error[L0301]: use of undefined value "
                      "%nope\n"
                      "    %a = index.add %i, %nope : index\n"
                      "                       ^~~~~\n");
  hrx_string_builder_deinit(&b);
  hrx_loom_diagnostics_destroy(diagnostics);
}

static void test_many_errors_are_capped(void** state) {
  (void)state;
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_string_builder_append_cstr(&b, HEAD));
  for (int i = 0; i < 50; ++i) {
    assert_ok(hrx_string_builder_append_cstr(&b, "  %q = index.frob\n"));
  }
  assert_ok(hrx_string_builder_append_cstr(&b, TAIL));
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(5, hrx_allocator_system(),
                                        &diagnostics));
  hrx_loom_module_t* module = NULL;
  assert_status_code(
      hrx_loom_module_parse(hrx_string_builder_cstr(&b), b.length, NULL,
                            diagnostics, hrx_allocator_system(), &module),
      HRX_STATUS_INVALID_ARGUMENT);
  /* 5 shown, one note, the rest counted. */
  assert_int_equal(hrx_loom_diagnostics_count(diagnostics), 6);
  const hrx_loom_diagnostic_t* last = hrx_loom_diagnostics_at(diagnostics, 5);
  assert_int_equal(last->code, HRX_LOOM_DIAG_TOO_MANY_ERRORS);
  assert_int_equal(last->severity, HRX_LOOM_SEVERITY_NOTE);
  assert_true(hrx_loom_diagnostics_error_count(diagnostics) > 5);
  hrx_loom_diagnostics_clear(diagnostics);
  assert_int_equal(hrx_loom_diagnostics_count(diagnostics), 0);
  hrx_loom_diagnostics_destroy(diagnostics);
  hrx_string_builder_deinit(&b);
}

/* Warnings are capped like errors: a source with thousands of them keeps
 * the first HRX_LOOM_MAX_WARNINGS and one note, and compiles. */
static void test_many_warnings_are_capped(void** state) {
  (void)state;
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  for (int k = 0; k < 1000; ++k) {
    assert_ok(hrx_string_builder_appendf(
        &b,
        "kernel.def @k%d(%%n: index) {\n"
        "  %%one = index.constant 1 : index\n"
        "  kernel.launch.config workgroups(%%one, %%one, %%one) "
        "workgroup_size(%%one, %%one, %%one) : index\n"
        "} launch(%%x: buffer, %%f: f32, %%i: index) {\n" TAIL, k));
  }
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &diagnostics));
  hrx_loom_module_t* module = NULL;
  assert_ok(hrx_loom_module_parse(hrx_string_builder_cstr(&b), b.length, NULL,
                                  diagnostics, hrx_allocator_system(),
                                  &module));
  assert_int_equal(hrx_loom_diagnostics_count(diagnostics),
                   HRX_LOOM_MAX_WARNINGS + 1);
  const hrx_loom_diagnostic_t* last =
      hrx_loom_diagnostics_at(diagnostics, HRX_LOOM_MAX_WARNINGS);
  assert_int_equal(last->code, HRX_LOOM_DIAG_TOO_MANY_WARNINGS);
  assert_string_equal(hrx_loom_diag_code_string(last->code), "L0902");
  assert_int_equal(hrx_loom_diagnostics_error_count(diagnostics), 0);
  hrx_loom_module_destroy(module);
  hrx_loom_diagnostics_destroy(diagnostics);
  hrx_string_builder_deinit(&b);
}

static void test_recovery_reports_later_errors(void** state) {
  (void)state;
  hrx_loom_diagnostics_t* diagnostics =
      loom_test_parse_fail(BODY("  %a = index.add %i %i : index\n"
                                "  %b = index.add %i, %i : index\n"
                                "  %c = index.frob %i : index\n"));
  loom_test_expect_diag(diagnostics, HRX_LOOM_DIAG_EXPECTED_TOKEN, 5, 0);
  loom_test_expect_diag(diagnostics, HRX_LOOM_DIAG_UNKNOWN_OP, 7, 8);
  hrx_loom_diagnostics_destroy(diagnostics);
}

static void test_null_and_empty_input(void** state) {
  (void)state;
  hrx_loom_module_t* module = NULL;
  assert_status_code(hrx_loom_module_parse(NULL, 4, NULL, NULL,
                                           hrx_allocator_system(), &module),
                     HRX_STATUS_INVALID_ARGUMENT);
  /* An empty module is valid and has no kernels. */
  assert_ok(hrx_loom_module_parse("", 0, NULL, NULL, hrx_allocator_system(),
                                  &module));
  assert_int_equal(hrx_loom_module_kernel_count(module), 0);
  hrx_loom_module_destroy(module);
  /* Embedded NUL bytes are reported, not read past. */
  const char text[] = "kernel.def\0@k";
  assert_status_code(
      hrx_loom_module_parse(text, sizeof(text) - 1, NULL, NULL,
                            hrx_allocator_system(), &module),
      HRX_STATUS_INVALID_ARGUMENT);
}

typedef struct parse_ctx_t {
  const char* text;
  hrx_loom_module_t* module;
} parse_ctx_t;

static hrx_status_t parse_with(hrx_allocator_t allocator, void* context) {
  parse_ctx_t* ctx = context;
  hrx_loom_diagnostics_t* diagnostics = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_loom_diagnostics_create(0, allocator, &diagnostics));
  hrx_status_t status =
      hrx_loom_module_parse(ctx->text, strlen(ctx->text), NULL, diagnostics,
                            allocator, &ctx->module);
  hrx_loom_diagnostics_destroy(diagnostics);
  return status;
}

static void destroy_parsed(hrx_allocator_t allocator, void* context) {
  (void)allocator;
  hrx_loom_module_destroy(((parse_ctx_t*)context)->module);
}

static void test_allocation_failures(void** state) {
  (void)state;
  char* source = loom_test_read_kernel("transpose.loom", NULL);
  parse_ctx_t ctx = {.text = source};
  assert_true(test_exhaust_allocations(parse_with, destroy_parsed, &ctx) > 10);
  free(source);
}


/*===------------------------------------------------------------------===*/
/* Hostile input: limits, literals, escaping, divergence                   */
/*===------------------------------------------------------------------===*/

/* A kernel whose body is |body| (built by the caller). */
static char* kernel_around(const char* body) {
  return test_strdup_printf("%s%s%s", HEAD, body, TAIL);
}

/* Appends |count| copies of |text|. */
static void append_n(hrx_string_builder_t* b, const char* text, int count) {
  for (int i = 0; i < count; ++i) {
    assert_ok(hrx_string_builder_append_cstr(b, text));
  }
}

/* Parses |text| expecting failure with |code| (at |line| unless 0). */
static void expect_failure(const char* text, hrx_loom_diag_code_t code,
                           uint32_t line) {
  hrx_loom_diagnostics_t* diagnostics = loom_test_parse_fail(text);
  if (line) {
    loom_test_expect_diag(diagnostics, code, line, 0);
  } else {
    bool found = false;
    for (size_t i = 0; i < hrx_loom_diagnostics_count(diagnostics); ++i) {
      found |= hrx_loom_diagnostics_at(diagnostics, i)->code == code;
    }
    assert_true(found);
  }
  hrx_loom_diagnostics_destroy(diagnostics);
}

/* Regions nested ~10,000 deep, of every region-holding op: one nesting
 * diagnostic at the first region past the limit, never a stack overflow. */
static void test_deep_regions(void** state) {
  (void)state;
  for (int k = 0; k < 3; ++k) {
    hrx_string_builder_t b;
    hrx_string_builder_init(hrx_allocator_system(), &b);
    append_n(&b, "  %c = index.cmp eq, %i, %i : index\n", 1);
    for (int level = 0; level < 10000; ++level) {
      if (k == 0) append_n(&b, "  scf.if %c {\n", 1);
      if (k == 1) {
        /* Distinct loop variables: shadowing is an error of its own. */
        assert_ok(hrx_string_builder_appendf(
            &b, "  scf.for %%j%d = [%%i to %%i step %%i] {\n", level));
      }
      if (k == 2) {
        append_n(&b, "  scf.while () {\n  scf.condition %c : i1\n"
                     "  } do () {\n", 1);
      }
    }
    append_n(&b, "  }\n", 10000);
    char* text = kernel_around(hrx_string_builder_cstr(&b));
    hrx_loom_diagnostics_t* diagnostics = loom_test_parse_fail(text);
    assert_int_equal(hrx_loom_diagnostics_error_count(diagnostics), 1);
    const hrx_loom_diagnostic_t* d = hrx_loom_diagnostics_at(diagnostics, 0);
    assert_int_equal(d->code, HRX_LOOM_DIAG_NESTING_TOO_DEEP);
    assert_string_equal(hrx_loom_diagnostic_param(d, "limit"), "256");
    assert_non_null(strstr(d->message, "nesting deeper than 256 levels"));
    /* The kernel body is level 1; the 256th opener opens level 257. */
    uint32_t lines_per_opener = k == 2 ? 3 : 1;
    assert_int_equal(d->line, 6 + 255 * lines_per_opener);
    assert_true(d->column > 1);
    hrx_loom_diagnostics_destroy(diagnostics);
    free(text);
    hrx_string_builder_deinit(&b);
  }
}

/* Types and attributes do not nest in Loom, so deep nesting of them is a
 * syntax error: reported, iteratively skipped, never recursed into. */
static void test_deep_types_and_attributes(void** state) {
  (void)state;
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  append_n(&b, "  %a = scalar.constant 1 : ", 1);
  append_n(&b, "vector<4x", 10000);
  append_n(&b, "f32", 1);
  append_n(&b, ">", 10000);
  append_n(&b, "\n", 1);
  char* text = kernel_around(hrx_string_builder_cstr(&b));
  expect_failure(text, HRX_LOOM_DIAG_UNKNOWN_TYPE, 5);
  free(text);
  hrx_string_builder_truncate(&b, 0);
  append_n(&b, "  kernel.barrier<workgroup> ", 1);
  append_n(&b, "{scope = ", 10000);
  append_n(&b, "workgroup", 1);
  append_n(&b, "}", 10000);
  append_n(&b, "\n", 1);
  text = kernel_around(hrx_string_builder_cstr(&b));
  expect_failure(text, HRX_LOOM_DIAG_EXPECTED_TOKEN, 5);
  free(text);
  hrx_string_builder_deinit(&b);
}

/* Calls are inlined, so a callee's nesting adds to its call site's; a
 * chain of 10,000 calls is measured without recursion. */
static void test_deep_calls(void** state) {
  (void)state;
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  for (int f = 0; f < 10000; ++f) {
    assert_ok(hrx_string_builder_appendf(&b, "func.def @f%d() {\n", f));
    if (f + 1 < 10000) {
      assert_ok(hrx_string_builder_appendf(
          &b, "  func.call @f%d() : () -> ()\n", f + 1));
    }
    append_n(&b, "  func.return\n}\n", 1);
  }
  expect_failure(hrx_string_builder_cstr(&b), HRX_LOOM_DIAG_NESTING_TOO_DEEP,
                 0);
  /* Two bodies of 200 levels each fit alone, not one inside the other. */
  hrx_string_builder_truncate(&b, 0);
  append_n(&b, "func.def @deep(%c: i1) {\n", 1);
  append_n(&b, "  scf.if %c {\n", 199);
  append_n(&b, "  }\n", 199);
  append_n(&b, "  func.return\n}\n", 1);
  append_n(&b, HEAD "  %c = index.cmp eq, %i, %i : index\n", 1);
  append_n(&b, "  scf.if %c {\n", 199);
  append_n(&b, "  func.call @deep(%c) : (i1) -> ()\n", 1);
  append_n(&b, "  }\n", 199);
  append_n(&b, TAIL, 1);
  expect_failure(hrx_string_builder_cstr(&b), HRX_LOOM_DIAG_NESTING_TOO_DEEP,
                 606);
  hrx_string_builder_deinit(&b);
}

static void test_recursion_is_reported(void** state) {
  (void)state;
  expect_failure("func.def @a() {\n  func.call @b() : () -> ()\n"
                 "  func.return\n}\n"
                 "func.def @b() {\n  func.call @a() : () -> ()\n"
                 "  func.return\n}\n",
                 HRX_LOOM_DIAG_RECURSIVE_CALL, 0);
  expect_failure("func.def @a() {\n  func.call @a() : () -> ()\n"
                 "  func.return\n}\n",
                 HRX_LOOM_DIAG_RECURSIVE_CALL, 2);
}

#define SMALL_KERNEL                                                       \
  "() {\n  %one = index.constant 1 : index\n"                              \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n} launch() {\n"               \
  "  kernel.return\n}\n"

/* The host code object's limits (1,024 kernels, 256-byte names) are
 * checked at the source, not after lowering. */
static void test_module_limits(void** state) {
  (void)state;
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  for (int k = 0; k < 1025; ++k) {
    assert_ok(hrx_string_builder_appendf(&b, "kernel.def @k%d%s", k,
                                         SMALL_KERNEL));
  }
  hrx_loom_diagnostics_t* diagnostics =
      loom_test_parse_fail(hrx_string_builder_cstr(&b));
  loom_test_expect_diag(diagnostics, HRX_LOOM_DIAG_MODULE_LIMIT, 1024 * 6 + 1,
                        1);
  assert_non_null(strstr(hrx_loom_diagnostics_at(diagnostics, 0)->message,
                         "1024"));
  hrx_loom_diagnostics_destroy(diagnostics);

  char name[300];
  memset(name, 'n', sizeof(name));
  name[256] = '\0';
  char* text = test_strdup_printf("kernel.def export(\"%s\") @k%s", name,
                                  SMALL_KERNEL);
  hrx_loom_module_destroy(loom_test_parse_ok(text));
  free(text);
  name[256] = 'n';
  name[257] = '\0';
  text = test_strdup_printf("kernel.def export(\"%s\") @k%s", name,
                            SMALL_KERNEL);
  expect_failure(text, HRX_LOOM_DIAG_MODULE_LIMIT, 1);
  free(text);
  text = test_strdup_printf("kernel.def @%s%s", name, SMALL_KERNEL);
  expect_failure(text, HRX_LOOM_DIAG_MODULE_LIMIT, 1);
  free(text);
  /* A kernel's symbol is its code-object name when it exports none. */
  expect_failure("kernel.def @k" SMALL_KERNEL
                 "kernel.def export(\"k\") @other" SMALL_KERNEL,
                 HRX_LOOM_DIAG_DUPLICATE_EXPORT, 7);
  hrx_string_builder_deinit(&b);
}

static void test_string_literals(void** state) {
  (void)state;
  static const char* const bad[] = {"k\0evil", "k\x1b[2Jx", "k\x7f",
                                    "k\xff", "k\xc2\x85", "k\xe2\x82"};
  static const size_t bad_length[] = {6, 7, 2, 2, 3, 3};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    hrx_string_builder_t b;
    hrx_string_builder_init(hrx_allocator_system(), &b);
    append_n(&b, "kernel.def export(\"", 1);
    assert_ok(hrx_string_builder_append(&b, bad[i], bad_length[i]));
    append_n(&b, "\") @k" SMALL_KERNEL, 1);
    hrx_loom_diagnostics_t* diagnostics = NULL;
    assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                          &diagnostics));
    hrx_loom_module_t* module = NULL;
    assert_status_code(
        hrx_loom_module_parse(b.data, b.length, NULL, diagnostics,
                              hrx_allocator_system(), &module),
        HRX_STATUS_INVALID_ARGUMENT);
    loom_test_expect_diag(diagnostics, HRX_LOOM_DIAG_BAD_STRING, 1, 0);
    hrx_loom_diagnostics_destroy(diagnostics);
    hrx_string_builder_deinit(&b);
  }
  hrx_loom_module_t* module = loom_test_parse_ok(
      "kernel.def export(\"caf\xc3\xa9\") @k" SMALL_KERNEL);
  size_t kernel = 1;
  assert_ok(hrx_loom_module_find_export(module, "caf\xc3\xa9", &kernel));
  assert_int_equal(kernel, 0);
  hrx_loom_module_destroy(module);
}

static void test_literal_ranges(void** state) {
  (void)state;
  static const struct {
    const char* constant;
    hrx_loom_diag_code_t code;
  } ranges[] = {
      {"scalar.constant 1e999 : f32", HRX_LOOM_DIAG_LITERAL_RANGE},
      {"scalar.constant -1e999 : f64", HRX_LOOM_DIAG_LITERAL_RANGE},
      {"scalar.constant 1e39 : f32", HRX_LOOM_DIAG_CONSTANT_RANGE},
      {"scalar.constant 3.5e38 : bf16", HRX_LOOM_DIAG_CONSTANT_RANGE},
      {"scalar.constant 65520.0 : f16", HRX_LOOM_DIAG_CONSTANT_RANGE},
      {"scalar.constant 100000.0 : f16", HRX_LOOM_DIAG_CONSTANT_RANGE},
      {"scalar.constant 1 : f32", HRX_LOOM_DIAG_TYPE_MISMATCH},
      {"scalar.constant 2 : i1", HRX_LOOM_DIAG_CONSTANT_RANGE},
      {"scalar.constant -129 : i8", HRX_LOOM_DIAG_CONSTANT_RANGE},
      {"scalar.constant 65536 : i16", HRX_LOOM_DIAG_CONSTANT_RANGE},
      {"scalar.constant 4294967296 : i32", HRX_LOOM_DIAG_CONSTANT_RANGE},
      {"scalar.constant 18446744073709551616 : i64",
       HRX_LOOM_DIAG_LITERAL_RANGE},
      {"scalar.constant -9223372036854775809 : i64",
       HRX_LOOM_DIAG_LITERAL_RANGE},
  };
  for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); ++i) {
    char* text = test_strdup_printf("%s  %%a = %s\n%s", HEAD,
                                    ranges[i].constant, TAIL);
    expect_failure(text, ranges[i].code, 5);
    free(text);
  }
  /* The largest finite values of each width, and long spellings that a
   * fixed-size copy would have cut short. */
  static const char* const fine[] = {
      "scalar.constant 65504.0 : f16", "scalar.constant 3.38e38 : bf16",
      "scalar.constant 3.4028234e38 : f32", "scalar.constant 1e308 : f64",
      "scalar.constant 255 : i8", "scalar.constant -1 : i1"};
  for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); ++i) {
    char* text = test_strdup_printf("%s  %%a = %s\n%s", HEAD, fine[i], TAIL);
    hrx_loom_module_destroy(loom_test_parse_ok(text));
    free(text);
  }
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  append_n(&b, "  %a = scalar.constant ", 1);
  append_n(&b, "0", 200);
  append_n(&b, "300 : i8\n", 1);
  char* text = kernel_around(hrx_string_builder_cstr(&b));
  expect_failure(text, HRX_LOOM_DIAG_CONSTANT_RANGE, 5);
  free(text);
  hrx_string_builder_truncate(&b, 0);
  append_n(&b, "  %a = scalar.constant 1.", 1);
  append_n(&b, "0", 200);
  append_n(&b, "e39 : f32\n", 1);
  text = kernel_around(hrx_string_builder_cstr(&b));
  expect_failure(text, HRX_LOOM_DIAG_CONSTANT_RANGE, 5);
  free(text);
  hrx_string_builder_deinit(&b);
}

/* True when |text| holds no control byte but newlines (and tabs). */
static bool printable(const char* text) {
  for (const unsigned char* c = (const unsigned char*)text; *c; ++c) {
    if ((*c < 0x20 && *c != '\n' && *c != '\t') || *c == 0x7f) return false;
  }
  return true;
}

/* Names and text from the source and from callers are escaped in every
 * message, status and formatted listing. */
static void test_untrusted_text_is_escaped(void** state) {
  (void)state;
  /* A control byte in a comment on the failing line, and in the file. */
  const char* source = BODY("  %a = index.frob %i // \x1b]0;owned\x07\n");
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &diagnostics));
  hrx_loom_parse_options_t options = HRX_STRUCT_INIT(hrx_loom_parse_options_t);
  options.source_name = "evil\x1b[2J.loom";
  hrx_loom_module_t* module = NULL;
  hrx_status_t status =
      hrx_loom_module_parse(source, strlen(source), &options, diagnostics,
                            hrx_allocator_system(), &module);
  char text[1024];
  hrx_status_format(status, text, sizeof(text));
  assert_true(printable(text));
  assert_non_null(strstr(text, "evil\\x1b[2J.loom"));
  hrx_status_free(status);
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_loom_diagnostics_format(diagnostics, &b));
  assert_true(printable(hrx_string_builder_cstr(&b)));
  if (!strstr(hrx_string_builder_cstr(&b),
              "\n    %a = index.frob %i // \\x1b]0;owned\\x07\n"
              "         ^~~~~~~~~~\n")) {
    fail_msg("%s", hrx_string_builder_cstr(&b));
  }
  hrx_string_builder_deinit(&b);
  hrx_loom_diagnostics_destroy(diagnostics);

  /* A config name from the caller, quoted back. */
  module = loom_test_parse_ok(BODY(""));
  hrx_loom_config_t* config = NULL;
  assert_ok(hrx_loom_config_create(hrx_allocator_system(), &config));
  assert_ok(hrx_loom_config_set(config, "x\x1b[31m\xff", "1"));
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &diagnostics));
  hrx_loom_specialization_t* spec = NULL;
  assert_status_code(
      hrx_loom_module_specialize(module, config, diagnostics,
                                 hrx_allocator_system(), &spec),
      HRX_STATUS_INVALID_ARGUMENT);
  const hrx_loom_diagnostic_t* d = hrx_loom_diagnostics_at(diagnostics, 0);
  assert_int_equal(d->code, HRX_LOOM_DIAG_CONFIG_UNKNOWN);
  assert_true(printable(d->message));
  assert_non_null(strstr(d->message, "x\\x1b[31m\\xff"));
  hrx_loom_diagnostics_destroy(diagnostics);
  hrx_loom_config_destroy(config);
  hrx_loom_module_destroy(module);
}

#define BARRIER "    kernel.barrier<workgroup> scope(workgroup) ordering(acq_rel)\n"

/* Barriers that not every work-item of their scope reaches are rejected;
 * barriers under uniform control are not. */
static void test_divergent_barriers(void** state) {
  (void)state;
  static const char* const divergent[] = {
      /* an if on the work-item id */
      "  %t = kernel.workitem.id<x> : index\n"
      "  %c = index.cmp eq, %t, %i : index\n"
      "  scf.if %c {\n" BARRIER "  }\n",
      /* a loop whose trip count depends on the lane */
      "  %t = kernel.subgroup.lane.id : index\n"
      "  %z = index.constant 0 : index\n"
      "  %o = index.constant 1 : index\n"
      "  scf.for %j = [%z to %t step %o] {\n" BARRIER "  }\n",
      /* a while loop whose exit is carried from a loaded per-lane value */
      "  %t = kernel.workitem.id<x> : index\n"
      "  %off = index.constant 0 : offset\n"
      "  %v = buffer.view %x[%off] : buffer -> view<[%i]xi32>\n"
      "  %l = view.load %v[%t] : view<[%i]xi32> -> i32\n"
      "  %z = scalar.constant 0 : i32\n"
      "  %r = scf.while (%a = %z : i32) -> (i32) {\n"
      "    %c = scalar.cmpi slt, %a, %l : i32\n"
      "    scf.condition %c, %a : i1, i32\n"
      "  } do (%b: i32) {\n" BARRIER "    scf.yield %b : i32\n  }\n",
      /* a subgroup-uniform condition is not workgroup-uniform */
      "  %s = kernel.subgroup.id : index\n"
      "  %c = index.cmp eq, %s, %i : index\n"
      "  scf.if %c {\n" BARRIER "  }\n",
  };
  for (size_t i = 0; i < sizeof(divergent) / sizeof(divergent[0]); ++i) {
    char* text = kernel_around(divergent[i]);
    expect_failure(text, HRX_LOOM_DIAG_DIVERGENT_BARRIER, 0);
    free(text);
  }
  /* Through a call: the barrier is in @sync, the divergence at the call. */
  expect_failure("func.def @sync() {\n" BARRIER "  func.return\n}\n" HEAD
                 "  %t = kernel.workitem.id<x> : index\n"
                 "  %c = index.cmp eq, %t, %i : index\n"
                 "  scf.if %c {\n"
                 "    func.call @sync() : () -> ()\n"
                 "  }\n" TAIL,
                 HRX_LOOM_DIAG_DIVERGENT_BARRIER, 12);
  /* A callee's result varies as much as what it returns. */
  expect_failure("func.def @lane() -> (index) {\n"
                 "  %t = kernel.workitem.id<x> : index\n"
                 "  func.return %t : index\n}\n" HEAD
                 "  %t = func.call @lane() : () -> (index)\n"
                 "  %c = index.cmp eq, %t, %i : index\n"
                 "  scf.if %c {\n" BARRIER "  }\n" TAIL,
                 HRX_LOOM_DIAG_DIVERGENT_BARRIER, 12);
  /* A workgroup reduction is a workgroup barrier too, and its result is
   * the same in every work-item whatever its operand varies by. */
  expect_failure(HEAD "  %t = kernel.workitem.id<x> : index\n"
                 "  %c = index.cmp eq, %t, %i : index\n"
                 "  scf.if %c {\n"
                 "    %r = kernel.workgroup.reduce<addi> %t : index\n"
                 "  }\n" TAIL,
                 HRX_LOOM_DIAG_DIVERGENT_BARRIER, 8);
  static const char* const uniform[] = {
      "  %t = kernel.workitem.id<x> : index\n"
      "  %r = kernel.workgroup.reduce<maxsi> %t : index\n"
      "  %c = index.cmp eq, %r, %i : index\n"
      "  scf.if %c {\n" BARRIER "  }\n",
      /* workgroup ids, arguments and constants are uniform */
      "  %w = kernel.workgroup.id<x> : index\n"
      "  %c = index.cmp eq, %w, %i : index\n"
      "  scf.if %c {\n" BARRIER "  }\n"
      "  %z = index.constant 0 : index\n"
      "  %o = index.constant 1 : index\n"
      "  scf.for %j = [%z to %i step %o] {\n" BARRIER "  }\n",
      /* a subgroup barrier only needs a subgroup-uniform condition */
      "  %s = kernel.subgroup.id : index\n"
      "  %c = index.cmp eq, %s, %i : index\n"
      "  scf.if %c {\n"
      "    kernel.barrier<subgroup> scope(subgroup) ordering(acq_rel)\n"
      "  }\n",
      /* per-lane work around a barrier that every lane reaches */
      "  %t = kernel.workitem.id<x> : index\n"
      "  %c = index.cmp eq, %t, %i : index\n"
      "  scf.if %c {\n  }\n" BARRIER,
      /* parameters count as uniform: only a caller's argument shows that
       * this one is not, which the race sanitizer checks at run time */
      "  %t = kernel.workitem.id<x> : index\n"
      "  %c = index.cmp eq, %t, %i : index\n"
      "  func.call @sync_if(%c) : (i1) -> ()\n",
  };
  for (size_t i = 0; i < sizeof(uniform) / sizeof(uniform[0]); ++i) {
    char* text = test_strdup_printf(
        "func.def @sync_if(%%c: i1) {\n  scf.if %%c {\n%s  }\n"
        "  func.return\n}\n%s%s%s",
        BARRIER, HEAD, uniform[i], TAIL);
    hrx_loom_module_destroy(loom_test_parse_ok(text));
    free(text);
  }
}

/* Duplicate checks and lookups use hash indexes: 100,000 functions,
 * configs and distinct shaped types parse in well under a second here;
 * the old pairwise scans took minutes. */
static void test_many_symbols_and_types(void** state) {
  (void)state;
  enum { COUNT = 100000 };
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  for (int i = 0; i < COUNT; ++i) {
    assert_ok(hrx_string_builder_appendf(
        &b, "config.decl @c%d : index\nfunc.def @f%d() {\n  func.return\n}\n",
        i, i));
  }
  append_n(&b, "func.def @types(", 1);
  for (int i = 0; i < COUNT; ++i) {
    assert_ok(hrx_string_builder_appendf(
        &b, "%s%%n%d: index, %%v%d: view<[%%n%d]xf32>", i ? ", " : "", i, i,
        i));
  }
  append_n(&b, ") {\n  func.return\n}\n", 1);
  /* The last definition collides with the first. */
  append_n(&b, "func.def @f0() {\n  func.return\n}\n", 1);
  expect_failure(hrx_string_builder_cstr(&b), HRX_LOOM_DIAG_REDEFINED_SYMBOL,
                 (uint32_t)COUNT * 4 + 4);
  hrx_string_builder_deinit(&b);
}

int main(void) {
  const struct CMUnitTest extra[] = {
      cmocka_unit_test(test_unused_launch_argument_is_a_warning),
      cmocka_unit_test(test_named_params),
      cmocka_unit_test(test_format_has_caret),
      cmocka_unit_test(test_many_errors_are_capped),
      cmocka_unit_test(test_many_warnings_are_capped),
      cmocka_unit_test(test_recovery_reports_later_errors),
      cmocka_unit_test(test_null_and_empty_input),
      cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_deep_regions),
      cmocka_unit_test(test_deep_types_and_attributes),
      cmocka_unit_test(test_deep_calls),
      cmocka_unit_test(test_recursion_is_reported),
      cmocka_unit_test(test_module_limits),
      cmocka_unit_test(test_string_literals),
      cmocka_unit_test(test_literal_ranges),
      cmocka_unit_test(test_untrusted_text_is_escaped),
      cmocka_unit_test(test_divergent_barriers),
      cmocka_unit_test(test_many_symbols_and_types),
  };
  enum {
    N = sizeof(cases) / sizeof(cases[0]),
    EXTRA = sizeof(extra) / sizeof(extra[0]),
  };
  struct CMUnitTest tests[N + EXTRA];
  size_t count = 0;
  for (size_t i = 0; i < N; ++i) {
    tests[count++] = (struct CMUnitTest){.name = cases[i].name,
                                         .test_func = test_case,
                                         .initial_state = (void*)&cases[i]};
  }
  for (size_t i = 0; i < EXTRA; ++i) {
    tests[count++] = extra[i];
  }
  return _cmocka_run_group_tests("diagnostics", tests, count, NULL, NULL);
}
