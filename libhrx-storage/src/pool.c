#include "pool.h"

hrx_status_t hrx_storage_pool_init(hrx_storage_pool_t* pool,
                                   const hrx_storage_sys_t* sys,
                                   hrx_allocator_t allocator,
                                   uint32_t slot_count, uint64_t slot_bytes) {
  *pool = (hrx_storage_pool_t){.slot_bytes = slot_bytes,
                               .slot_count = slot_count};
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      allocator, slot_count, sizeof(*pool->slots), (void**)&pool->slots));
  size_t total = (size_t)slot_bytes * slot_count;
  int rc = sys->map_pages(sys->context, total, &pool->pages);
  if (rc < 0) {
    hrx_allocator_free(allocator, pool->slots);
    pool->slots = NULL;
    return hrx_status_from_errno(-rc, "mapping %u slots of %llu bytes",
                                 slot_count, (unsigned long long)slot_bytes);
  }
  for (uint32_t i = 0; i < slot_count; ++i) {
    pool->slots[i].memory = (uint8_t*)pool->pages + (size_t)i * slot_bytes;
  }
  return HRX_OK;
}

void hrx_storage_pool_deinit(hrx_storage_pool_t* pool,
                             const hrx_storage_sys_t* sys,
                             hrx_allocator_t allocator) {
  if (pool->pages) {
    /* Unmapping an address range this pool mapped cannot fail. */
    (void)sys->unmap_pages(sys->context, pool->pages,
                           (size_t)pool->slot_bytes * pool->slot_count);
  }
  hrx_allocator_free(allocator, pool->slots);
  *pool = (hrx_storage_pool_t){0};
}

uint32_t hrx_storage_pool_find_shared(const hrx_storage_pool_t* pool,
                                      uint32_t file, uint64_t offset,
                                      uint64_t length) {
  for (uint32_t i = 0; i < pool->slot_count; ++i) {
    const hrx_storage_slot_t* slot = &pool->slots[i];
    if (slot->holders > 0 && slot->state != HRX_STORAGE_SLOT_FAILED &&
        slot->op == HRX_STORAGE_OP_READ && slot->shareable &&
        slot->file == file && slot->offset == offset &&
        slot->length == length) {
      return i;
    }
  }
  return HRX_STORAGE_NO_SLOT;
}

void hrx_storage_pool_unshare(hrx_storage_pool_t* pool, uint32_t file,
                              uint64_t offset, uint64_t length) {
  for (uint32_t i = 0; i < pool->slot_count; ++i) {
    hrx_storage_slot_t* slot = &pool->slots[i];
    if (slot->file == file && slot->offset < offset + length &&
        offset < slot->offset + slot->length) {
      slot->shareable = false;
    }
  }
}

uint32_t hrx_storage_pool_find_free(const hrx_storage_pool_t* pool) {
  for (uint32_t i = 0; i < pool->slot_count; ++i) {
    if (pool->slots[i].holders == 0) {
      return i;
    }
  }
  return HRX_STORAGE_NO_SLOT;
}

void hrx_storage_pool_hold(hrx_storage_pool_t* pool, uint32_t index) {
  if (pool->slots[index].holders++ == 0) {
    pool->retained++;
  }
}

void hrx_storage_pool_drop(hrx_storage_pool_t* pool, uint32_t index) {
  if (--pool->slots[index].holders == 0) {
    pool->retained--;
  }
}
