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

uint32_t loom_hash_bytes(const void* data, size_t length, uint32_t seed) {
  const uint8_t* bytes = data;
  uint32_t hash = seed;
  for (size_t i = 0; i < length; ++i) hash = (hash ^ bytes[i]) * 16777619u;
  return hash;
}

uint32_t loom_index_find(const loom_index_t* index, uint32_t hash,
                         loom_index_match_fn match, const void* context,
                         const void* key) {
  if (!index->capacity) return LOOM_NONE;
  uint32_t mask = index->capacity - 1;
  for (uint32_t slot = hash & mask;; slot = (slot + 1) & mask) {
    const loom_index_slot_t* s = &index->slots[slot];
    if (s->value == LOOM_NONE) return LOOM_NONE;
    if (s->hash == hash && match(context, s->value, key)) return s->value;
  }
}

static void loom_index_place(loom_index_slot_t* slots, uint32_t capacity,
                             loom_index_slot_t entry) {
  uint32_t mask = capacity - 1;
  uint32_t slot = entry.hash & mask;
  while (slots[slot].value != LOOM_NONE) slot = (slot + 1) & mask;
  slots[slot] = entry;
}

hrx_status_t loom_index_insert(loom_index_t* index, hrx_allocator_t allocator,
                               uint32_t hash, uint32_t value) {
  /* At most half full, so probes stay short and always end. */
  if ((uint64_t)(index->count + 1) * 2 > index->capacity) {
    if (index->capacity > UINT32_MAX / 4) {
      return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                             "module index exceeds 2^31 entries");
    }
    uint32_t capacity = index->capacity ? index->capacity * 2 : 16;
    loom_index_slot_t* slots = NULL;
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
        allocator, capacity, sizeof(*slots), (void**)&slots));
    for (uint32_t i = 0; i < capacity; ++i) {
      slots[i] = (loom_index_slot_t){0, LOOM_NONE};
    }
    for (uint32_t i = 0; i < index->capacity; ++i) {
      if (index->slots[i].value != LOOM_NONE) {
        loom_index_place(slots, capacity, index->slots[i]);
      }
    }
    hrx_allocator_free(allocator, index->slots);
    index->slots = slots;
    index->capacity = capacity;
  }
  loom_index_place(index->slots, index->capacity,
                   (loom_index_slot_t){hash, value});
  index->count++;
  return HRX_OK;
}

void loom_index_free(loom_index_t* index, hrx_allocator_t allocator) {
  hrx_allocator_free(allocator, index->slots);
  *index = (loom_index_t){0};
}

bool loom_type_is_integer(loom_type_kind_t kind) {
  return kind >= LOOM_TYPE_I1 && kind <= LOOM_TYPE_I64;
}

bool loom_type_is_float(loom_type_kind_t kind) {
  return kind >= LOOM_TYPE_F16 && kind <= LOOM_TYPE_F64;
}

bool loom_type_is_f8(loom_type_kind_t kind) {
  return kind == LOOM_TYPE_F8E4M3 || kind == LOOM_TYPE_F8E5M2;
}

bool loom_type_is_address(loom_type_kind_t kind) {
  return kind == LOOM_TYPE_INDEX || kind == LOOM_TYPE_OFFSET;
}

bool loom_type_is_encoding(loom_type_kind_t kind) {
  return kind == LOOM_TYPE_LAYOUT || kind == LOOM_TYPE_SCHEMA;
}

uint32_t loom_type_bit_width(loom_type_kind_t kind) {
  switch (kind) {
    case LOOM_TYPE_I1: return 1;
    case LOOM_TYPE_I8:
    case LOOM_TYPE_F8E4M3:
    case LOOM_TYPE_F8E5M2: return 8;
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
    [LOOM_TYPE_F8E4M3] = "f8E4M3",     [LOOM_TYPE_F8E5M2] = "f8E5M2",
    [LOOM_TYPE_LAYOUT] = "encoding<layout>",
    [LOOM_TYPE_SCHEMA] = "encoding<schema>",
    [LOOM_TYPE_VIEW] = "view",
    [LOOM_TYPE_TENSOR] = "tensor",
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

/* The structure a shaped type is interned by. */
typedef struct loom_type_key_t {
  loom_type_kind_t kind;
  loom_type_kind_t element;
  const loom_dim_t* dims;
  uint32_t rank;
  uint32_t layout;
} loom_type_key_t;

static uint32_t loom_type_hash(const loom_type_key_t* key) {
  uint32_t words[4] = {(uint32_t)key->kind, (uint32_t)key->element,
                       key->rank, key->layout};
  uint32_t hash = loom_hash_bytes(words, sizeof(words), LOOM_HASH_SEED);
  for (uint32_t d = 0; d < key->rank; ++d) {
    /* Dynamic extents are told apart by the value naming them. */
    int64_t part[2] = {key->dims[d].size,
                       key->dims[d].size < 0 ? key->dims[d].value : 0};
    hash = loom_hash_bytes(part, sizeof(part), hash);
  }
  return hash;
}

static bool loom_type_matches(const void* context, uint32_t value,
                              const void* key_pointer) {
  const loom_module_t* module = context;
  const loom_type_key_t* key = key_pointer;
  const loom_type_t* type = &LOOM_TYPE(module, value);
  if (type->kind != key->kind || type->element != key->element ||
      type->rank != key->rank || type->layout != key->layout) {
    return false;
  }
  for (uint32_t d = 0; d < key->rank; ++d) {
    const loom_dim_t* a = &LOOM_DIM(module, type->dims_start + d);
    if (a->size != key->dims[d].size ||
        (a->size < 0 && a->value != key->dims[d].value)) {
      return false;
    }
  }
  return true;
}

hrx_status_t loom_module_type(loom_module_t* module, loom_type_kind_t kind,
                              loom_type_kind_t element,
                              const loom_dim_t* dims, uint32_t rank,
                              uint32_t layout, loom_type_id_t* out_type) {
  if (kind != LOOM_TYPE_VECTOR && kind != LOOM_TYPE_VIEW &&
      kind != LOOM_TYPE_TENSOR) {
    *out_type = kind;
    return HRX_OK;
  }
  loom_type_key_t key = {kind, element, dims, rank, layout};
  uint32_t hash = loom_type_hash(&key);
  uint32_t found = loom_index_find(&module->type_index, hash,
                                   loom_type_matches, module, &key);
  if (found != LOOM_NONE) {
    *out_type = found;
    return HRX_OK;
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
      .dims_start = dims_start, .layout = layout};
  hrx_status_t status =
      loom_index_insert(&module->type_index, module->allocator, hash, id);
  if (status != HRX_OK) {
    module->types.count--;
    return status;
  }
  *out_type = id;
  return HRX_OK;
}

hrx_status_t loom_type_print(const loom_module_t* module, loom_type_id_t id,
                             hrx_string_builder_t* out) {
  const loom_type_t* type = &LOOM_TYPE(module, id);
  if (type->kind != LOOM_TYPE_VECTOR && type->kind != LOOM_TYPE_VIEW &&
      type->kind != LOOM_TYPE_TENSOR) {
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
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(
      out, loom_type_kind_name(type->element)));
  if (type->layout != LOOM_NONE) {
    HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
        out, ", %%%s",
        loom_module_string(module, LOOM_VALUE(module, type->layout).name)));
  }
  return hrx_string_builder_append_cstr(out, ">");
}

/* Entities of one kind looked up by a name string id stored at
 * |name_offset| in each |stride|-byte record of |array|. */
typedef struct loom_name_table_t {
  const loom_module_t* module;
  const loom_array_t* array;
  size_t stride;
  size_t name_offset;
} loom_name_table_t;

static bool loom_name_matches(const void* context, uint32_t value,
                              const void* key) {
  const loom_name_table_t* table = context;
  uint32_t id;
  memcpy(&id,
         (const char*)table->array->data + value * table->stride +
             table->name_offset,
         sizeof(id));
  return strcmp(loom_module_string(table->module, id), key) == 0;
}

static uint32_t loom_name_hash(const char* name) {
  return loom_hash_bytes(name, strlen(name), LOOM_HASH_SEED);
}

static uint32_t loom_find_name(const loom_module_t* module,
                               const loom_index_t* index,
                               const loom_array_t* array, size_t stride,
                               size_t name_offset, const char* name) {
  loom_name_table_t table = {module, array, stride, name_offset};
  return loom_index_find(index, loom_name_hash(name), loom_name_matches,
                         &table, name);
}

#define LOOM_FIND(module, index, array, type, field, name)              \
  loom_find_name((module), &(module)->index, &(module)->array,          \
                 sizeof(type), offsetof(type, field), (name))

uint32_t loom_module_find_config(const loom_module_t* module,
                                 const char* symbol) {
  return LOOM_FIND(module, config_index, configs, loom_config_decl_t, symbol,
                   symbol);
}

uint32_t loom_module_find_target(const loom_module_t* module,
                                 const char* symbol) {
  return LOOM_FIND(module, target_index, targets, loom_target_t, symbol,
                   symbol);
}

uint32_t loom_module_find_func(const loom_module_t* module,
                               const char* symbol) {
  return LOOM_FIND(module, func_index, funcs, loom_func_t, symbol, symbol);
}

uint32_t loom_module_find_kernel(const loom_module_t* module,
                                 const char* symbol) {
  return LOOM_FIND(module, kernel_index, kernels, loom_kernel_t, symbol,
                   symbol);
}

uint32_t loom_module_find_record(const loom_module_t* module,
                                 const char* symbol) {
  return LOOM_FIND(module, record_index, records, loom_record_t, symbol,
                   symbol);
}

const char* loom_kernel_code_name(const loom_module_t* module,
                                  const loom_kernel_t* kernel) {
  return loom_module_string(module, kernel->export_name != LOOM_NONE
                                        ? kernel->export_name
                                        : kernel->symbol);
}

static bool loom_code_name_matches(const void* context, uint32_t value,
                                   const void* key) {
  const loom_module_t* module = context;
  return strcmp(loom_kernel_code_name(module, &LOOM_KERNEL(module, value)),
                key) == 0;
}

uint32_t loom_module_find_code_name(const loom_module_t* module,
                                    const char* name) {
  return loom_index_find(&module->export_index, loom_name_hash(name),
                         loom_code_name_matches, module, name);
}

/* Appends |record| to |array| and indexes it under the name |symbol|. */
static hrx_status_t loom_add_named(loom_module_t* module, loom_array_t* array,
                                   size_t stride, const void* record,
                                   loom_index_t* index, uint32_t symbol,
                                   uint32_t* out_at) {
  uint32_t at = 0;
  HRX_RETURN_IF_ERROR(
      loom_array_grow(array, module->allocator, stride, 1, &at));
  memcpy((char*)array->data + (size_t)at * stride, record, stride);
  hrx_status_t status = loom_index_insert(
      index, module->allocator,
      loom_name_hash(loom_module_string(module, symbol)), at);
  if (status != HRX_OK) {
    array->count--;
    return status;
  }
  if (out_at) *out_at = at;
  return HRX_OK;
}

hrx_status_t loom_module_add_target(loom_module_t* module,
                                    const loom_target_t* target) {
  return loom_add_named(module, &module->targets, sizeof(*target), target,
                        &module->target_index, target->symbol, NULL);
}

hrx_status_t loom_module_add_config(loom_module_t* module,
                                    const loom_config_decl_t* decl,
                                    uint32_t* out_index) {
  return loom_add_named(module, &module->configs, sizeof(*decl), decl,
                        &module->config_index, decl->symbol, out_index);
}

hrx_status_t loom_module_add_func(loom_module_t* module,
                                  const loom_func_t* func) {
  return loom_add_named(module, &module->funcs, sizeof(*func), func,
                        &module->func_index, func->symbol, NULL);
}

hrx_status_t loom_module_add_record(loom_module_t* module,
                                    const loom_record_t* record) {
  return loom_add_named(module, &module->records, sizeof(*record), record,
                        &module->record_index, record->symbol, NULL);
}

hrx_status_t loom_module_add_kernel(loom_module_t* module,
                                    const loom_kernel_t* kernel) {
  uint32_t at = 0;
  HRX_RETURN_IF_ERROR(loom_add_named(module, &module->kernels,
                                     sizeof(*kernel), kernel,
                                     &module->kernel_index, kernel->symbol,
                                     &at));
  hrx_status_t status = loom_index_insert(
      &module->export_index, module->allocator,
      loom_name_hash(loom_kernel_code_name(module, kernel)), at);
  if (status != HRX_OK) {
    /* The symbol stays indexed but names no kernel: lookups compare the
     * record, and the failed parse destroys the module anyway. */
    module->kernels.count--;
  }
  return status;
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
      &module->kernels,  &module->funcs,      &module->records,
      &module->literals,
  };
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); ++i) {
    loom_array_free(arrays[i], a);
  }
  loom_index_t* indexes[] = {
      &module->type_index,   &module->target_index, &module->config_index,
      &module->func_index,   &module->kernel_index, &module->export_index,
      &module->record_index,
  };
  for (size_t i = 0; i < sizeof(indexes) / sizeof(indexes[0]); ++i) {
    loom_index_free(indexes[i], a);
  }
  hrx_allocator_free(a, module->source_storage);
  hrx_allocator_free(a, module);
}
