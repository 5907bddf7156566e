/* Compile-time callables: template.decl / template.def / template.apply /
 * template.call / template.return and func.template / func.apply.
 *
 * A family (template.decl) owns a signature; implementations (template.def
 * for a family, func.template for a contract key) are ordinary function
 * bodies with a priority and applicability constraints. Once a module is
 * parsed, every application is resolved here to the one implementation
 * that applies at its site, and its op's |symbol| names that body. From
 * then on an application is a call like any other: the verifier checks it
 * (recursion included) and the backends inline it, so no backend knows
 * templates exist.
 *
 * Applicability: an implementation (and its family's declaration) with
 * target(@t) applies only inside kernels and functions for @t; one with
 * requires [#target.subgroup.size<N>] only where that target's subgroup
 * size is N. Any other requirement is one HRX cannot prove, so the
 * implementation never applies (a lower-priority fallback may). Of the
 * applicable implementations the highest priority wins (absent ranks as
 * 0); a tie is an error rather than a silent pick.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser_internal.h"

typedef struct loom_resolver_t {
  loom_module_t* module;
  hrx_loom_diagnostics_t* diagnostics;
  uint32_t* site;  /* per region: target of its kernel or func, or NONE */
  uint32_t* owner; /* per region: the func whose body holds it, or NONE */
} loom_resolver_t;

static void loom_rerror(loom_resolver_t* r, loom_span_t span,
                        hrx_loom_diag_code_t code, const char* symbol,
                        const char* format, ...) HRX_PRINTF(5, 6);
static void loom_rerror(loom_resolver_t* r, loom_span_t span,
                        hrx_loom_diag_code_t code, const char* symbol,
                        const char* format, ...) {
  hrx_loom_diag_param_t params[] = {{"symbol", symbol}};
  va_list args;
  va_start(args, format);
  loom_diag_emitv(r->diagnostics, &r->module->source, span,
                  HRX_LOOM_SEVERITY_ERROR, code, params, symbol ? 1 : 0,
                  format, args);
  va_end(args);
}

static const char* loom_rstr(const loom_resolver_t* r, uint32_t id) {
  return loom_module_string(r->module, id);
}

/* Fills |site| and |owner|: top-level regions from their kernel or func,
 * nested ones from their parent (created before them). */
static hrx_status_t loom_resolver_sites(loom_resolver_t* r) {
  loom_module_t* m = r->module;
  uint32_t count = m->regions.count ? m->regions.count : 1;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      m->allocator, 2 * (size_t)count, sizeof(uint32_t), (void**)&r->site));
  r->owner = r->site + count;
  for (uint32_t i = 0; i < m->regions.count; ++i) {
    r->site[i] = LOOM_NONE;
    r->owner[i] = LOOM_NONE;
  }
  for (uint32_t k = 0; k < m->kernels.count; ++k) {
    const loom_kernel_t* kernel = &LOOM_KERNEL(m, k);
    r->site[kernel->config_region] = kernel->target;
    r->site[kernel->body_region] = kernel->target;
  }
  for (uint32_t f = 0; f < m->funcs.count; ++f) {
    const loom_func_t* func = &LOOM_FUNC(m, f);
    r->site[func->body_region] = func->target;
    r->owner[func->body_region] = f;
  }
  for (uint32_t i = 0; i < m->regions.count; ++i) {
    uint32_t parent = LOOM_REGION(m, i).parent_region;
    if (parent != LOOM_NONE) {
      r->site[i] = r->site[parent];
      r->owner[i] = r->owner[parent];
    }
  }
  return HRX_OK;
}

/* True when every entry of |requires| ("[#target.subgroup.size<64>, ...]")
 * holds for target |site|. */
static bool loom_requires_hold(const loom_resolver_t* r, uint32_t requires,
                               uint32_t site) {
  if (requires == LOOM_NONE) return true;
  static const char prefix[] = "#target.subgroup.size<";
  const char* text = loom_rstr(r, requires) + 1; /* past '[' */
  for (;;) {
    while (*text == ' ' || *text == '\t' || *text == '\n' || *text == ',') {
      ++text;
    }
    if (*text == ']') return true;
    if (strncmp(text, prefix, sizeof(prefix) - 1) != 0 || site == LOOM_NONE) {
      return false;
    }
    char* end = NULL;
    long long size = strtoll(text + sizeof(prefix) - 1, &end, 10);
    if (*end != '>' || LOOM_TARGET(r->module, site).subgroup_size != size) {
      return false;
    }
    text = end + 1;
  }
}

static bool loom_applies(const loom_resolver_t* r, const loom_func_t* func,
                         uint32_t site) {
  return (func->target == LOOM_NONE || func->target == site) &&
         loom_requires_hold(r, func->requires, site);
}

/* An implementation's signature against its family's. */
static void loom_check_implementation(loom_resolver_t* r,
                                      const loom_func_t* impl,
                                      const loom_func_t* family) {
  loom_module_t* m = r->module;
  const char* name = loom_rstr(r, impl->symbol);
  const char* fam = loom_rstr(r, family->symbol);
  const loom_region_t* ia = &LOOM_REGION(m, impl->body_region);
  const loom_region_t* fa = &LOOM_REGION(m, family->body_region);
  if (ia->arg_count != fa->arg_count ||
      impl->result_count != family->result_count) {
    loom_rerror(r, impl->span, HRX_LOOM_DIAG_TYPE_MISMATCH, name,
                "@%s takes %u parameters and returns %u values; its "
                "family @%s takes %u and returns %u", name, ia->arg_count,
                impl->result_count, fam, fa->arg_count, family->result_count);
    return;
  }
  for (uint32_t i = 0; i < ia->arg_count; ++i) {
    loom_type_id_t it = LOOM_VALUE(m, ia->args_start + i).type;
    loom_type_id_t ft = LOOM_VALUE(m, fa->args_start + i).type;
    if (loom_type_kind(m, it) != loom_type_kind(m, ft) ||
        (it < LOOM_TYPE_VECTOR ? it != ft
                               : LOOM_TYPE(m, it).element !=
                                     LOOM_TYPE(m, ft).element)) {
      loom_rerror(r, impl->span, HRX_LOOM_DIAG_TYPE_MISMATCH, name,
                  "parameter %u of @%s differs in type from its family "
                  "@%s's", i, name, fam);
    }
  }
  for (uint32_t i = 0; i < impl->result_count; ++i) {
    if (LOOM_AT(m->type_lists, loom_type_id_t, impl->results_start + i) !=
        LOOM_AT(m->type_lists, loom_type_id_t, family->results_start + i)) {
      loom_rerror(r, impl->span, HRX_LOOM_DIAG_TYPE_MISMATCH, name,
                  "result %u of @%s differs in type from its family @%s's",
                  i, name, fam);
    }
  }
}

static void loom_check_funcs(loom_resolver_t* r) {
  loom_module_t* m = r->module;
  for (uint32_t f = 0; f < m->funcs.count; ++f) {
    const loom_func_t* func = &LOOM_FUNC(m, f);
    if (!(func->flags & LOOM_FUNC_TEMPLATE_DEF)) continue;
    const char* fam = loom_rstr(r, func->family);
    uint32_t family = loom_module_find_func(m, fam);
    if (family == LOOM_NONE ||
        !(LOOM_FUNC(m, family).flags & LOOM_FUNC_TEMPLATE_DECL)) {
      loom_rerror(r, func->span, HRX_LOOM_DIAG_UNDEFINED_SYMBOL, fam,
                  "template.def implements @%s, which is no template.decl",
                  fam);
      continue;
    }
    loom_check_implementation(r, func, &LOOM_FUNC(m, family));
  }
}

/* template.return ends template.def bodies and nothing else. */
static void loom_check_return(loom_resolver_t* r, const loom_op_t* op) {
  uint32_t owner = r->owner[op->region];
  if (owner == LOOM_NONE) return; /* the verifier places it */
  bool in_def = LOOM_FUNC(r->module, owner).flags & LOOM_FUNC_TEMPLATE_DEF;
  bool is_template = strcmp(loom_op_defs[op->opcode].name,
                            "template.return") == 0;
  if (in_def != is_template) {
    loom_rerror(r, op->span, HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE, NULL,
                in_def ? "a template.def body ends with template.return"
                       : "template.return ends only template.def bodies");
  }
}

/* An application's operand and result types against its family's. */
static bool loom_check_applied(loom_resolver_t* r, const loom_op_t* op,
                               const loom_func_t* family) {
  loom_module_t* m = r->module;
  const char* fam = loom_rstr(r, family->symbol);
  const loom_region_t* args = &LOOM_REGION(m, family->body_region);
  if (op->operand_count != args->arg_count ||
      op->result_count != family->result_count) {
    loom_rerror(r, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, fam,
                "@%s takes %u operands and returns %u values; applied to "
                "%u with %u results", fam, args->arg_count,
                family->result_count, op->operand_count, op->result_count);
    return false;
  }
  for (uint32_t i = 0; i < op->operand_count; ++i) {
    loom_type_id_t t = LOOM_VALUE(m, LOOM_OPERAND(m, op, i)).type;
    loom_type_id_t want = LOOM_VALUE(m, args->args_start + i).type;
    if (loom_type_kind(m, t) != loom_type_kind(m, want) ||
        (t < LOOM_TYPE_VECTOR && t != want)) {
      loom_rerror(r, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, fam,
                  "operand %u of the application of @%s differs in type "
                  "from the family's parameter", i, fam);
      return false;
    }
  }
  for (uint32_t i = 0; i < op->result_count; ++i) {
    if (LOOM_VALUE(m, op->results_start + i).type !=
        LOOM_AT(m->type_lists, loom_type_id_t, family->results_start + i)) {
      loom_rerror(r, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, fam,
                  "result %u of the application of @%s differs in type "
                  "from the family's", i, fam);
      return false;
    }
  }
  return true;
}

/* Chooses the implementation of a template.apply (|family| its
 * declaration) or func.apply (|family| NULL) and stores it in op->symbol. */
static void loom_choose(loom_resolver_t* r, loom_op_t* op,
                        const loom_func_t* family) {
  loom_module_t* m = r->module;
  uint32_t kind = family ? LOOM_FUNC_TEMPLATE_DEF : LOOM_FUNC_PROVIDER;
  const char* name = loom_rstr(r, op->ref);
  uint32_t site = r->site[op->region];
  uint32_t best = LOOM_NONE, tied = LOOM_NONE, candidates = 0;
  bool family_applies = !family || loom_applies(r, family, site);
  for (uint32_t f = 0; f < m->funcs.count; ++f) {
    const loom_func_t* func = &LOOM_FUNC(m, f);
    /* Strings are stored per occurrence, so names compare by text. */
    if (!(func->flags & kind) ||
        strcmp(loom_rstr(r, func->family), name) != 0) {
      continue;
    }
    ++candidates;
    if (!family_applies || !loom_applies(r, func, site)) continue;
    int64_t priority = func->priority;
    if (best == LOOM_NONE || priority > LOOM_FUNC(m, best).priority) {
      best = f;
      tied = LOOM_NONE;
    } else if (priority == LOOM_FUNC(m, best).priority) {
      tied = f;
    }
  }
  const char* at = site == LOOM_NONE
                       ? "an untargeted site"
                       : loom_rstr(r, LOOM_TARGET(m, site).symbol);
  if (!candidates) {
    loom_rerror(r, op->span, HRX_LOOM_DIAG_UNDEFINED_SYMBOL, name,
                family ? "template family @%s has no template.def"
                       : "no func.template implements <%s>", name);
  } else if (best == LOOM_NONE) {
    loom_rerror(r, op->span, HRX_LOOM_DIAG_BAD_TARGET, name,
                "none of the %u implementations of %s%s applies at %s%s",
                candidates, family ? "@" : "", name,
                site == LOOM_NONE ? "" : "@", at);
  } else if (tied != LOOM_NONE) {
    loom_rerror(r, op->span, HRX_LOOM_DIAG_BAD_TARGET, name,
                "@%s and @%s both implement %s%s at priority %" PRId64
                "; give one a higher priority(N)",
                loom_rstr(r, LOOM_FUNC(m, best).symbol),
                loom_rstr(r, LOOM_FUNC(m, tied).symbol), family ? "@" : "",
                name, LOOM_FUNC(m, best).priority);
  } else {
    op->symbol = LOOM_FUNC(m, best).symbol;
  }
}

static void loom_resolve_call(loom_resolver_t* r, loom_op_t* op) {
  loom_module_t* m = r->module;
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  if (def->call_kind == LOOM_CALL_FAMILY) {
    const char* name = loom_rstr(r, op->ref);
    uint32_t family = loom_module_find_func(m, name);
    if (family == LOOM_NONE ||
        !(LOOM_FUNC(m, family).flags & LOOM_FUNC_TEMPLATE_DECL)) {
      loom_rerror(r, op->span, HRX_LOOM_DIAG_UNDEFINED_SYMBOL, name,
                  "unknown template family @%s", name);
      return;
    }
    if (loom_check_applied(r, op, &LOOM_FUNC(m, family))) {
      loom_choose(r, op, &LOOM_FUNC(m, family));
    }
    return;
  }
  if (def->call_kind == LOOM_CALL_CONTRACT) {
    loom_choose(r, op, NULL);
    return;
  }
  const char* name = loom_rstr(r, op->symbol);
  uint32_t callee = loom_module_find_func(m, name);
  uint32_t flags = callee == LOOM_NONE ? 0 : LOOM_FUNC(m, callee).flags;
  if (def->call_kind == LOOM_CALL_TEMPLATE) {
    if (!(flags & LOOM_FUNC_TEMPLATE_DEF)) {
      loom_rerror(r, op->span, HRX_LOOM_DIAG_UNDEFINED_SYMBOL, name,
                  "template.call names @%s, which is no template.def",
                  name);
    }
  } else if (flags & LOOM_FUNC_TEMPLATE_DECL) {
    loom_rerror(r, op->span, HRX_LOOM_DIAG_UNDEFINED_SYMBOL, name,
                "@%s is a template family: apply it with template.apply",
                name);
  } else if (flags & LOOM_FUNC_TEMPLATE_DEF) {
    loom_rerror(r, op->span, HRX_LOOM_DIAG_UNDEFINED_SYMBOL, name,
                "@%s is a template implementation: call it with "
                "template.call", name);
  }
}

hrx_status_t loom_templates_resolve(loom_module_t* module,
                                    hrx_loom_diagnostics_t* diagnostics) {
  loom_resolver_t r = {.module = module, .diagnostics = diagnostics};
  HRX_RETURN_IF_ERROR(loom_resolver_sites(&r));
  loom_check_funcs(&r);
  for (uint32_t o = 0; o < module->ops.count; ++o) {
    loom_op_t* op = &LOOM_OP(module, o);
    const loom_op_def_t* def = &loom_op_defs[op->opcode];
    if (def->terminator == LOOM_TERM_FUNC_RETURN) loom_check_return(&r, op);
    if (def->shape == LOOM_SHAPE_CALL) loom_resolve_call(&r, op);
  }
  hrx_allocator_free(module->allocator, r.site);
  return HRX_OK;
}
