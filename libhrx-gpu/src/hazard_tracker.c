/* The segments of each resource form a treap ordered by begin (expected
 * O(log s) depth): an access splits the treap around its range, rewrites
 * the covered part and merges the three pieces back. Segments live in one
 * pool addressed by index, so growing the pool never invalidates links. */
#include "hrx/gpu/hazard_tracker.h"

#include <stdlib.h>
#include <string.h>

#define HRX_NIL UINT32_MAX
#define HRX_EMPTY_KEY UINT64_MAX
/* Most segments have few readers: keep those inside the segment. */
#define HRX_INLINE_READERS 4

typedef struct hrx_hazard_segment_t {
  uint64_t begin, end;
  uint32_t writer; /* HRX_NIL: never written */
  uint32_t left, right;
  uint32_t priority;
  uint32_t reader_count;
  uint32_t reader_capacity; /* of |heap|; 0 while the readers are inline */
  uint32_t* heap;
  uint32_t inline_readers[HRX_INLINE_READERS];
} hrx_hazard_segment_t;

struct hrx_gpu_hazard_tracker_s {
  hrx_allocator_t allocator;
  hrx_hazard_segment_t* pool;
  uint32_t pool_count, pool_capacity;
  uint32_t free_list; /* linked through .left */
  size_t live_segments;
  /* Open-addressed map: resource -> treap root. */
  uint64_t* keys;
  uint32_t* roots;
  size_t map_capacity, map_count;
  /* The current node's collected dependencies. */
  uint32_t node;
  bool has_node;
  uint32_t* deps;
  size_t dep_count, dep_capacity;
  bool deps_sorted;
  /* Scratch: the covered segments of one access, in order. */
  uint32_t* covered;
  size_t covered_capacity;
  uint64_t random;
  bool failed;
};

hrx_status_t hrx_gpu_hazard_tracker_create(
    hrx_allocator_t allocator, hrx_gpu_hazard_tracker_t** out_tracker) {
  *out_tracker = NULL;
  hrx_gpu_hazard_tracker_t* t = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*t), (void**)&t));
  t->allocator = allocator;
  t->free_list = HRX_NIL;
  t->random = 0x9e3779b97f4a7c15ull;
  *out_tracker = t;
  return HRX_OK;
}

void hrx_gpu_hazard_tracker_reset(hrx_gpu_hazard_tracker_t* t) {
  for (uint32_t i = 0; i < t->pool_count; ++i) {
    hrx_allocator_free(t->allocator, t->pool[i].heap);
  }
  t->pool_count = 0;
  t->free_list = HRX_NIL;
  t->live_segments = 0;
  for (size_t i = 0; i < t->map_capacity; ++i) t->keys[i] = HRX_EMPTY_KEY;
  t->map_count = 0;
  t->has_node = false;
  t->dep_count = 0;
  t->failed = false;
}

void hrx_gpu_hazard_tracker_destroy(hrx_gpu_hazard_tracker_t* t) {
  if (!t) return;
  hrx_gpu_hazard_tracker_reset(t);
  hrx_allocator_free(t->allocator, t->pool);
  hrx_allocator_free(t->allocator, t->keys);
  hrx_allocator_free(t->allocator, t->roots);
  hrx_allocator_free(t->allocator, t->deps);
  hrx_allocator_free(t->allocator, t->covered);
  hrx_allocator_free(t->allocator, t);
}

size_t hrx_gpu_hazard_tracker_segment_count(
    const hrx_gpu_hazard_tracker_t* t) {
  return t->live_segments;
}

/*===------------------------------------------------------------------===*/
/* Resource map                                                            */
/*===------------------------------------------------------------------===*/

static size_t hrx_hazard_hash(uint64_t key) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdull;
  key ^= key >> 33;
  return (size_t)key;
}

static hrx_status_t hrx_hazard_map_grow(hrx_gpu_hazard_tracker_t* t) {
  size_t capacity = t->map_capacity ? t->map_capacity * 2 : 64;
  uint64_t* keys = NULL;
  uint32_t* roots = NULL;
  hrx_status_t status = hrx_allocator_malloc_uninitialized(
      t->allocator, capacity * sizeof(*keys), (void**)&keys);
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_uninitialized(
        t->allocator, capacity * sizeof(*roots), (void**)&roots);
  }
  if (status != HRX_OK) {
    hrx_allocator_free(t->allocator, keys);
    return status;
  }
  for (size_t i = 0; i < capacity; ++i) keys[i] = HRX_EMPTY_KEY;
  for (size_t i = 0; i < t->map_capacity; ++i) {
    if (t->keys[i] == HRX_EMPTY_KEY) continue;
    size_t slot = hrx_hazard_hash(t->keys[i]) & (capacity - 1);
    while (keys[slot] != HRX_EMPTY_KEY) slot = (slot + 1) & (capacity - 1);
    keys[slot] = t->keys[i];
    roots[slot] = t->roots[i];
  }
  hrx_allocator_free(t->allocator, t->keys);
  hrx_allocator_free(t->allocator, t->roots);
  t->keys = keys;
  t->roots = roots;
  t->map_capacity = capacity;
  return HRX_OK;
}

/* The root slot of |resource|, inserted empty when absent. */
static hrx_status_t hrx_hazard_map_slot(hrx_gpu_hazard_tracker_t* t,
                                        uint64_t resource,
                                        uint32_t** out_root) {
  if ((t->map_count + 1) * 2 > t->map_capacity) {
    HRX_RETURN_IF_ERROR(hrx_hazard_map_grow(t));
  }
  size_t mask = t->map_capacity - 1;
  size_t slot = hrx_hazard_hash(resource) & mask;
  while (t->keys[slot] != HRX_EMPTY_KEY && t->keys[slot] != resource) {
    slot = (slot + 1) & mask;
  }
  if (t->keys[slot] == HRX_EMPTY_KEY) {
    t->keys[slot] = resource;
    t->roots[slot] = HRX_NIL;
    t->map_count++;
  }
  *out_root = &t->roots[slot];
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Treap                                                                   */
/*===------------------------------------------------------------------===*/

#define SEG(i) (&t->pool[(i)])

static hrx_status_t hrx_hazard_segment_new(hrx_gpu_hazard_tracker_t* t,
                                           uint64_t begin, uint64_t end,
                                           uint32_t writer,
                                           uint32_t* out_index) {
  uint32_t index = t->free_list;
  if (index != HRX_NIL) {
    t->free_list = SEG(index)->left;
  } else {
    size_t capacity = t->pool_capacity;
    HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(
        t->allocator, sizeof(hrx_hazard_segment_t), t->pool_count + 1,
        &capacity, (void**)&t->pool));
    t->pool_capacity = (uint32_t)capacity;
    index = t->pool_count++;
  }
  /* xorshift64: priorities only need to look random to the input. */
  t->random ^= t->random << 13;
  t->random ^= t->random >> 7;
  t->random ^= t->random << 17;
  *SEG(index) = (hrx_hazard_segment_t){.begin = begin, .end = end,
                                       .writer = writer, .left = HRX_NIL,
                                       .right = HRX_NIL,
                                       .priority = (uint32_t)t->random};
  t->live_segments++;
  *out_index = index;
  return HRX_OK;
}

static void hrx_hazard_segment_free(hrx_gpu_hazard_tracker_t* t,
                                    uint32_t index) {
  hrx_allocator_free(t->allocator, SEG(index)->heap);
  SEG(index)->heap = NULL;
  SEG(index)->reader_count = SEG(index)->reader_capacity = 0;
  SEG(index)->left = t->free_list;
  t->free_list = index;
  t->live_segments--;
}

/* Splits |root| into segments beginning before |key| and the rest. */
static void hrx_hazard_split(hrx_gpu_hazard_tracker_t* t, uint32_t root,
                             uint64_t key, uint32_t* out_left,
                             uint32_t* out_right) {
  if (root == HRX_NIL) {
    *out_left = *out_right = HRX_NIL;
  } else if (SEG(root)->begin < key) {
    hrx_hazard_split(t, SEG(root)->right, key, &SEG(root)->right, out_right);
    *out_left = root;
  } else {
    hrx_hazard_split(t, SEG(root)->left, key, out_left, &SEG(root)->left);
    *out_right = root;
  }
}

/* Merges two treaps where every segment of |a| precedes those of |b|. */
static uint32_t hrx_hazard_merge(hrx_gpu_hazard_tracker_t* t, uint32_t a,
                                 uint32_t b) {
  if (a == HRX_NIL) return b;
  if (b == HRX_NIL) return a;
  if (SEG(a)->priority > SEG(b)->priority) {
    SEG(a)->right = hrx_hazard_merge(t, SEG(a)->right, b);
    return a;
  }
  SEG(b)->left = hrx_hazard_merge(t, a, SEG(b)->left);
  return b;
}

static uint32_t hrx_hazard_rightmost(hrx_gpu_hazard_tracker_t* t,
                                     uint32_t root) {
  if (root == HRX_NIL) return HRX_NIL;
  while (SEG(root)->right != HRX_NIL) root = SEG(root)->right;
  return root;
}

static uint32_t* hrx_hazard_readers(hrx_hazard_segment_t* s) {
  return s->heap ? s->heap : s->inline_readers;
}

/* Makes room for |count| readers in segment |index|. */
static hrx_status_t hrx_hazard_reserve_readers(hrx_gpu_hazard_tracker_t* t,
                                               uint32_t index, size_t count) {
  hrx_hazard_segment_t* s = SEG(index);
  if (count <= (s->heap ? s->reader_capacity : HRX_INLINE_READERS)) {
    return HRX_OK;
  }
  bool was_inline = !s->heap;
  size_t capacity = was_inline ? HRX_INLINE_READERS : s->reader_capacity;
  HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(
      t->allocator, sizeof(uint32_t), count, &capacity, (void**)&s->heap));
  if (was_inline) {
    memcpy(s->heap, s->inline_readers, s->reader_count * sizeof(uint32_t));
  }
  s->reader_capacity = (uint32_t)capacity;
  return HRX_OK;
}

static hrx_status_t hrx_hazard_add_reader(hrx_gpu_hazard_tracker_t* t,
                                          uint32_t index, uint32_t node) {
  hrx_hazard_segment_t* s = SEG(index);
  if (s->reader_count && hrx_hazard_readers(s)[s->reader_count - 1] == node) {
    return HRX_OK;
  }
  HRX_RETURN_IF_ERROR(hrx_hazard_reserve_readers(t, index,
                                                 s->reader_count + 1));
  hrx_hazard_readers(s)[s->reader_count++] = node;
  return HRX_OK;
}

/* If the last segment of |*left| reaches past |at|, moves its part from
 * |at| on into a new segment at the front of |*right|. */
static hrx_status_t hrx_hazard_cut(hrx_gpu_hazard_tracker_t* t,
                                   uint32_t* left, uint32_t* right,
                                   uint64_t at) {
  uint32_t last = hrx_hazard_rightmost(t, *left);
  if (last == HRX_NIL || SEG(last)->end <= at) return HRX_OK;
  uint32_t tail = HRX_NIL;
  HRX_RETURN_IF_ERROR(hrx_hazard_segment_new(t, at, SEG(last)->end,
                                             SEG(last)->writer, &tail));
  uint32_t readers = SEG(last)->reader_count;
  HRX_RETURN_IF_ERROR(hrx_hazard_reserve_readers(t, tail, readers));
  memcpy(hrx_hazard_readers(SEG(tail)), hrx_hazard_readers(SEG(last)),
         readers * sizeof(uint32_t));
  SEG(tail)->reader_count = readers;
  SEG(last)->end = at;
  *right = hrx_hazard_merge(t, tail, *right);
  return HRX_OK;
}

/* Appends the segments of |root| in order to t->covered. */
static hrx_status_t hrx_hazard_collect(hrx_gpu_hazard_tracker_t* t,
                                       uint32_t root, size_t* count) {
  if (root == HRX_NIL) return HRX_OK;
  HRX_RETURN_IF_ERROR(hrx_hazard_collect(t, SEG(root)->left, count));
  HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(t->allocator, sizeof(uint32_t),
                                               *count + 1, &t->covered_capacity,
                                               (void**)&t->covered));
  t->covered[(*count)++] = root;
  return hrx_hazard_collect(t, SEG(root)->right, count);
}

/*===------------------------------------------------------------------===*/
/* Accesses                                                                */
/*===------------------------------------------------------------------===*/

static hrx_status_t hrx_hazard_depend(hrx_gpu_hazard_tracker_t* t,
                                      uint32_t node) {
  if (node == HRX_NIL || node == t->node) return HRX_OK;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_grow_array(t->allocator, sizeof(uint32_t), t->dep_count + 1,
                               &t->dep_capacity, (void**)&t->deps));
  t->deps[t->dep_count++] = node;
  t->deps_sorted = false;
  return HRX_OK;
}

/* The covered segments of a write: collect the frontier, then replace them
 * with one segment written by the node. */
static hrx_status_t hrx_hazard_write(hrx_gpu_hazard_tracker_t* t,
                                     size_t count, uint64_t begin,
                                     uint64_t end, uint32_t* middle) {
  for (size_t i = 0; i < count; ++i) {
    hrx_hazard_segment_t* s = SEG(t->covered[i]);
    const uint32_t* readers = hrx_hazard_readers(s);
    bool other_readers = false;
    for (uint32_t r = 0; r < s->reader_count; ++r) {
      if (readers[r] == t->node) continue;
      other_readers = true;
      HRX_RETURN_IF_ERROR(hrx_hazard_depend(t, readers[r]));
    }
    if (!other_readers) HRX_RETURN_IF_ERROR(hrx_hazard_depend(t, s->writer));
  }
  uint32_t merged = HRX_NIL;
  HRX_RETURN_IF_ERROR(
      hrx_hazard_segment_new(t, begin, end, t->node, &merged));
  for (size_t i = 0; i < count; ++i) hrx_hazard_segment_free(t, t->covered[i]);
  *middle = merged;
  return HRX_OK;
}

/* The covered segments of a read: depend on each writer, join the readers
 * and fill the gaps with segments read by the node. */
static hrx_status_t hrx_hazard_read(hrx_gpu_hazard_tracker_t* t, size_t count,
                                    uint64_t begin, uint64_t end,
                                    uint32_t* middle) {
  uint64_t cursor = begin;
  uint32_t rebuilt = HRX_NIL;
  for (size_t i = 0; i <= count; ++i) {
    uint64_t next = i < count ? SEG(t->covered[i])->begin : end;
    if (cursor < next) {
      uint32_t gap = HRX_NIL;
      HRX_RETURN_IF_ERROR(
          hrx_hazard_segment_new(t, cursor, next, HRX_NIL, &gap));
      rebuilt = hrx_hazard_merge(t, rebuilt, gap);
      HRX_RETURN_IF_ERROR(hrx_hazard_add_reader(t, gap, t->node));
    }
    if (i == count) break;
    uint32_t index = t->covered[i];
    HRX_RETURN_IF_ERROR(hrx_hazard_depend(t, SEG(index)->writer));
    HRX_RETURN_IF_ERROR(hrx_hazard_add_reader(t, index, t->node));
    SEG(index)->left = SEG(index)->right = HRX_NIL;
    rebuilt = hrx_hazard_merge(t, rebuilt, index);
    cursor = SEG(index)->end;
  }
  *middle = rebuilt;
  return HRX_OK;
}

hrx_status_t hrx_gpu_hazard_tracker_access(hrx_gpu_hazard_tracker_t* t,
                                           uint32_t node, uint64_t resource,
                                           uint64_t begin, uint64_t end,
                                           hrx_gpu_access_t access) {
  if (t->failed) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "hazard tracker lost its state in an earlier "
                           "failure; reset it");
  }
  if (resource == HRX_EMPTY_KEY || begin > end || node == HRX_NIL ||
      (t->has_node && node < t->node) ||
      (access != HRX_GPU_ACCESS_READ && access != HRX_GPU_ACCESS_WRITE &&
       access != HRX_GPU_ACCESS_READ_WRITE)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "bad hazard access: node %u, resource 0x%llx, "
                           "[%llu, %llu), access %d",
                           node, (unsigned long long)resource,
                           (unsigned long long)begin, (unsigned long long)end,
                           (int)access);
  }
  if (!t->has_node || node != t->node) {
    t->node = node;
    t->has_node = true;
    t->dep_count = 0;
    t->deps_sorted = true;
  }
  if (begin == end) return HRX_OK;
  uint32_t* root = NULL;
  HRX_RETURN_IF_ERROR(hrx_hazard_map_slot(t, resource, &root));
  size_t slot = (size_t)(root - t->roots);

  uint32_t left = HRX_NIL, middle = HRX_NIL, right = HRX_NIL;
  hrx_hazard_split(t, t->roots[slot], begin, &left, &middle);
  hrx_status_t status = hrx_hazard_cut(t, &left, &middle, begin);
  uint32_t rest = middle;
  middle = HRX_NIL;
  hrx_hazard_split(t, rest, end, &middle, &right);
  if (status == HRX_OK) status = hrx_hazard_cut(t, &middle, &right, end);
  size_t count = 0;
  if (status == HRX_OK) status = hrx_hazard_collect(t, middle, &count);
  if (status == HRX_OK) {
    status = access == HRX_GPU_ACCESS_READ
                 ? hrx_hazard_read(t, count, begin, end, &middle)
                 : hrx_hazard_write(t, count, begin, end, &middle);
  }
  if (status != HRX_OK) {
    /* The pieces may be half rewritten: keep them reachable from the pool
     * only, and refuse further use until a reset. */
    t->failed = true;
    t->roots[slot] = HRX_NIL;
    return status;
  }
  t->roots[slot] = hrx_hazard_merge(t, hrx_hazard_merge(t, left, middle),
                                    right);
  return HRX_OK;
}

static int hrx_hazard_compare(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return (x > y) - (x < y);
}

const uint32_t* hrx_gpu_hazard_tracker_deps(hrx_gpu_hazard_tracker_t* t,
                                            size_t* out_count) {
  if (!t->deps_sorted && t->dep_count) {
    qsort(t->deps, t->dep_count, sizeof(uint32_t), hrx_hazard_compare);
    size_t kept = 0;
    for (size_t i = 0; i < t->dep_count; ++i) {
      if (!kept || t->deps[kept - 1] != t->deps[i]) t->deps[kept++] = t->deps[i];
    }
    t->dep_count = kept;
  }
  t->deps_sorted = true;
  *out_count = t->dep_count;
  return t->deps;
}
