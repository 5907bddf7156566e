#include "ir.h"

#include "hrx/loom/module.h"

#include <string.h>

hrx_status_t loom_array_grow(loom_array_t* array, hrx_allocator_t allocator,
                             size_t element_size, uint32_t count,
                             uint32_t* out_index) {
  if (count > UINT32_MAX - 1 - array->count) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "module exceeds 2^32 entries");
  }
  if (out_index) *out_index = array->count;
  if (count == 0) return HRX_OK;
  uint32_t needed = array->count + count;
  if (needed > array->capacity) {
    uint64_t capacity = array->capacity ? array->capacity : 16;
    while (capacity < needed) capacity *= 2;
    if (capacity > UINT32_MAX) capacity = UINT32_MAX;
    void* data = array->data;
    HRX_RETURN_IF_ERROR(hrx_allocator_realloc(
        allocator, (size_t)capacity * element_size, &data));
    array->data = data;
    array->capacity = (uint32_t)capacity;
  }
  memset((char*)array->data + (size_t)array->count * element_size, 0,
         (size_t)count * element_size);
  array->count = needed;
  return HRX_OK;
}

void loom_array_free(loom_array_t* array, hrx_allocator_t allocator) {
  hrx_allocator_free(allocator, array->data);
  *array = (loom_array_t){0};
}

bool loom_type_is_integer(loom_type_kind_t kind) {
  return kind >= LOOM_TYPE_I1 && kind <= LOOM_TYPE_I64;
}

bool loom_type_is_float(loom_type_kind_t kind) {
  return kind >= LOOM_TYPE_F16 && kind <= LOOM_TYPE_F64;
}

bool loom_type_is_address(loom_type_kind_t kind) {
  return kind == LOOM_TYPE_INDEX || kind == LOOM_TYPE_OFFSET;
}

uint32_t loom_type_bit_width(loom_type_kind_t kind) {
  switch (kind) {
    case LOOM_TYPE_I1: return 1;
    case LOOM_TYPE_I8: return 8;
    case LOOM_TYPE_I16:
    case LOOM_TYPE_F16:
    case LOOM_TYPE_BF16: return 16;
    case LOOM_TYPE_I32:
    case LOOM_TYPE_F32: return 32;
    case LOOM_TYPE_I64:
    case LOOM_TYPE_F64:
    case LOOM_TYPE_INDEX:
    case LOOM_TYPE_OFFSET: return 64;
    default: return 0;
  }
}

static const char* const loom_type_names[LOOM_TYPE_KIND_COUNT] = {
    [LOOM_TYPE_INVALID] = "<invalid>", [LOOM_TYPE_INDEX] = "index",
    [LOOM_TYPE_OFFSET] = "offset",     [LOOM_TYPE_I1] = "i1",
    [LOOM_TYPE_I8] = "i8",             [LOOM_TYPE_I16] = "i16",
    [LOOM_TYPE_I32] = "i32",           [LOOM_TYPE_I64] = "i64",
    [LOOM_TYPE_F16] = "f16",           [LOOM_TYPE_BF16] = "bf16",
    [LOOM_TYPE_F32] = "f32",           [LOOM_TYPE_F64] = "f64",
    [LOOM_TYPE_BUFFER] = "buffer",     [LOOM_TYPE_VECTOR] = "vector",
    [LOOM_TYPE_VIEW] = "view",
};

const char* loom_type_kind_name(loom_type_kind_t kind) {
  return (unsigned)kind < LOOM_TYPE_KIND_COUNT ? loom_type_names[kind]
                                               : "<invalid>";
}

hrx_status_t loom_module_intern(loom_module_t* module, const char* text,
                                size_t length, uint32_t* out_id) {
  uint32_t at = 0;
  HRX_RETURN_IF_ERROR(loom_array_grow(&module->strings, module->allocator, 1,
                                      (uint32_t)length + 1, &at));
  char* data = (char*)module->strings.data;
  memcpy(data + at, text, length);
  data[at + length] = '\0';
  *out_id = at;
  return HRX_OK;
}

const char* loom_module_string(const loom_module_t* module, uint32_t id) {
  if (id == LOOM_NONE) return "";
  return (const char*)module->strings.data + id;
}

hrx_status_t loom_module_type(loom_module_t* module, loom_type_kind_t kind,
                              loom_type_kind_t element,
                              const loom_dim_t* dims, uint32_t rank,
                              loom_type_id_t* out_type) {
  if (kind != LOOM_TYPE_VECTOR && kind != LOOM_TYPE_VIEW) {
    *out_type = kind;
    return HRX_OK;
  }
  /* Shaped types are few per module; a linear search keeps this simple. */
  for (uint32_t t = LOOM_TYPE_VECTOR; t < module->types.count; ++t) {
    const loom_type_t* type = &LOOM_TYPE(module, t);
    if (type->kind != kind || type->element != element || type->rank != rank) {
      continue;
    }
    bool same = true;
    for (uint32_t d = 0; d < rank && same; ++d) {
      const loom_dim_t* a = &LOOM_DIM(module, type->dims_start + d);
      same = a->size == dims[d].size &&
             (a->size >= 0 || a->value == dims[d].value);
    }
    if (same) {
      *out_type = t;
      return HRX_OK;
    }
  }
  uint32_t dims_start = 0;
  HRX_RETURN_IF_ERROR(loom_array_grow(&module->dims, module->allocator,
                                      sizeof(loom_dim_t), rank, &dims_start));
  for (uint32_t d = 0; d < rank; ++d) {
    LOOM_DIM(module, dims_start + d) = dims[d];
  }
  uint32_t id = 0;
  HRX_RETURN_IF_ERROR(loom_array_grow(&module->types, module->allocator,
                                      sizeof(loom_type_t), 1, &id));
  LOOM_TYPE(module, id) = (loom_type_t){
      .kind = kind, .element = element, .rank = rank,
      .dims_start = dims_start};
  *out_type = id;
  return HRX_OK;
}

hrx_status_t loom_type_print(const loom_module_t* module, loom_type_id_t id,
                             hrx_string_builder_t* out) {
  const loom_type_t* type = &LOOM_TYPE(module, id);
  if (type->kind != LOOM_TYPE_VECTOR && type->kind != LOOM_TYPE_VIEW) {
    return hrx_string_builder_append_cstr(out,
                                          loom_type_kind_name(type->kind));
  }
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      out, "%s<", loom_type_kind_name(type->kind)));
  for (uint32_t d = 0; d < type->rank; ++d) {
    const loom_dim_t* dim = &LOOM_DIM(module, type->dims_start + d);
    if (dim->size >= 0) {
      HRX_RETURN_IF_ERROR(
          hrx_string_builder_appendf(out, "%lldx", (long long)dim->size));
    } else {
      const loom_value_t* value = &LOOM_VALUE(module, dim->value);
      HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
          out, "[%%%s]x", loom_module_string(module, value->name)));
    }
  }
  return hrx_string_builder_appendf(out, "%s>",
                                    loom_type_kind_name(type->element));
}

static uint32_t loom_find_symbol(const loom_array_t* array, size_t stride,
                                 const loom_module_t* module,
                                 const char* symbol) {
  for (uint32_t i = 0; i < array->count; ++i) {
    /* Every top-level record starts with its symbol string id. */
    uint32_t id = *(const uint32_t*)((const char*)array->data + i * stride);
    if (strcmp(loom_module_string(module, id), symbol) == 0) return i;
  }
  return LOOM_NONE;
}

uint32_t loom_module_find_config(const loom_module_t* module,
                                 const char* symbol) {
  return loom_find_symbol(&module->configs, sizeof(loom_config_decl_t),
                          module, symbol);
}

uint32_t loom_module_find_target(const loom_module_t* module,
                                 const char* symbol) {
  return loom_find_symbol(&module->targets, sizeof(loom_target_t), module,
                          symbol);
}

uint32_t loom_module_find_func(const loom_module_t* module,
                               const char* symbol) {
  return loom_find_symbol(&module->funcs, sizeof(loom_func_t), module,
                          symbol);
}

hrx_status_t loom_module_create(hrx_allocator_t allocator, const char* name,
                                const char* text, size_t length,
                                loom_module_t** out_module) {
  *out_module = NULL;
  loom_module_t* module = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*module), (void**)&module));
  module->allocator = allocator;
  size_t name_length = strlen(name);
  hrx_status_t status = hrx_allocator_malloc_uninitialized(
      allocator, name_length + 1 + length + 1,
      (void**)&module->source_storage);
  if (status == HRX_OK) {
    memcpy(module->source_storage, name, name_length + 1);
    char* copy = module->source_storage + name_length + 1;
    if (length) memcpy(copy, text, length);
    copy[length] = '\0';
    module->source = (loom_source_t){module->source_storage, copy, length};
    /* Scalar type ids equal their kinds: reserve those slots. */
    status = loom_array_grow(&module->types, allocator, sizeof(loom_type_t),
                             LOOM_TYPE_VECTOR, NULL);
  }
  if (status == HRX_OK) {
    for (uint32_t k = 0; k < LOOM_TYPE_VECTOR; ++k) {
      LOOM_TYPE(module, k).kind = (loom_type_kind_t)k;
    }
    /* String id 0 is the empty string. */
    uint32_t empty = 0;
    status = loom_module_intern(module, "", 0, &empty);
  }
  if (status != HRX_OK) {
    hrx_loom_module_destroy(module);
    return status;
  }
  *out_module = module;
  return HRX_OK;
}

void hrx_loom_module_destroy(hrx_loom_module_t* module) {
  if (!module) return;
  hrx_allocator_t a = module->allocator;
  loom_array_t* arrays[] = {
      &module->strings,  &module->types,      &module->dims,
      &module->values,   &module->ops,        &module->operands,
      &module->statics,
      &module->regions,  &module->region_ops, &module->preds,
      &module->type_lists, &module->targets,  &module->configs,
      &module->kernels,  &module->funcs,
  };
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); ++i) {
    loom_array_free(arrays[i], a);
  }
  hrx_allocator_free(a, module->source_storage);
  hrx_allocator_free(a, module);
}
