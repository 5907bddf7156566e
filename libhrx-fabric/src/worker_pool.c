/* A fixed pool of worker threads that share jobs of independent items.
 * The pool owns its threads: they start at creation and are joined at
 * destruction. */
#include <stdlib.h>

#include "fabric_internal.h"

struct hrx_host_pool_s {
  hrx_allocator_t allocator;
  uint32_t worker_count;
  pthread_t* threads;
  hrx_host_scratch_t* scratch; /* one per worker */
  pthread_mutex_t mutex;
  pthread_cond_t work;  /* a job was added, or shutdown */
  pthread_cond_t done;  /* some job finished */
  hrx_host_job_t* jobs; /* active jobs */
  bool shutdown;
};

typedef struct hrx_host_worker_arg_t {
  hrx_host_pool_t* pool;
  uint32_t index;
} hrx_host_worker_arg_t;

bool hrx_host_scratch_reserve(hrx_host_scratch_t* scratch, size_t bytes) {
  if (scratch->capacity >= bytes) return true;
  size_t capacity = scratch->capacity ? scratch->capacity : 4096;
  while (capacity < bytes) capacity *= 2;
  void* data = NULL;
  if (posix_memalign(&data, 64, capacity) != 0) return false;
  free(scratch->data);
  scratch->data = data;
  scratch->capacity = capacity;
  return true;
}

void hrx_host_scratch_free(hrx_host_scratch_t* scratch) {
  free(scratch->data);
  scratch->data = NULL;
  scratch->capacity = 0;
}

/* Claims and runs items until the job has none left. */
static void hrx_host_job_drain(hrx_host_pool_t* pool, hrx_host_job_t* job,
                               hrx_host_scratch_t* scratch) {
  for (;;) {
    uint64_t item = atomic_fetch_add_explicit(&job->next, 1,
                                              memory_order_relaxed);
    if (item >= job->total) return;
    job->fn(job->context, item, scratch);
    if (atomic_fetch_add_explicit(&job->done, 1, memory_order_acq_rel) + 1 ==
        job->total) {
      pthread_mutex_lock(&pool->mutex);
      pthread_cond_broadcast(&pool->done);
      pthread_mutex_unlock(&pool->mutex);
    }
  }
}

static hrx_host_job_t* hrx_host_pool_pick(hrx_host_pool_t* pool) {
  for (hrx_host_job_t* job = pool->jobs; job; job = job->link) {
    if (atomic_load_explicit(&job->next, memory_order_relaxed) < job->total) {
      return job;
    }
  }
  return NULL;
}

static void* hrx_host_worker_main(void* arg) {
  hrx_host_worker_arg_t* worker = arg;
  hrx_host_pool_t* pool = worker->pool;
  hrx_host_scratch_t* scratch = &pool->scratch[worker->index];
  free(worker);
  pthread_mutex_lock(&pool->mutex);
  for (;;) {
    hrx_host_job_t* job = NULL;
    while (!pool->shutdown && !(job = hrx_host_pool_pick(pool))) {
      pthread_cond_wait(&pool->work, &pool->mutex);
    }
    if (!job) break;
    /* Attached workers keep the job alive: its submitter waits for them
     * to detach, not only for its items to finish. */
    job->attached++;
    pthread_mutex_unlock(&pool->mutex);
    hrx_host_job_drain(pool, job, scratch);
    pthread_mutex_lock(&pool->mutex);
    if (--job->attached == 0) pthread_cond_broadcast(&pool->done);
  }
  pthread_mutex_unlock(&pool->mutex);
  return NULL;
}

hrx_status_t hrx_host_pool_create(uint32_t worker_count,
                                  hrx_allocator_t allocator,
                                  hrx_host_pool_t** out_pool) {
  *out_pool = NULL;
  hrx_host_pool_t* pool = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*pool), (void**)&pool));
  pool->allocator = allocator;
  pthread_mutex_init(&pool->mutex, NULL);
  pthread_cond_init(&pool->work, NULL);
  pthread_cond_init(&pool->done, NULL);
  hrx_status_t status = hrx_allocator_malloc_array(
      allocator, worker_count ? worker_count : 1, sizeof(pthread_t),
      (void**)&pool->threads);
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(allocator,
                                        worker_count ? worker_count : 1,
                                        sizeof(hrx_host_scratch_t),
                                        (void**)&pool->scratch);
  }
  for (uint32_t i = 0; i < worker_count && status == HRX_OK; ++i) {
    hrx_host_worker_arg_t* arg = malloc(sizeof(*arg));
    if (!arg) {
      status = hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                               "no memory for worker %u", i);
      break;
    }
    arg->pool = pool;
    arg->index = i;
    int error = pthread_create(&pool->threads[i], NULL, hrx_host_worker_main,
                               arg);
    if (error) {
      free(arg);
      status = hrx_status_from_errno(error, "cannot start worker %u", i);
      break;
    }
    pool->worker_count++;
  }
  if (status != HRX_OK) {
    hrx_host_pool_destroy(pool);
    return status;
  }
  *out_pool = pool;
  return HRX_OK;
}

void hrx_host_pool_destroy(hrx_host_pool_t* pool) {
  if (!pool) return;
  pthread_mutex_lock(&pool->mutex);
  pool->shutdown = true;
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->mutex);
  for (uint32_t i = 0; i < pool->worker_count; ++i) {
    pthread_join(pool->threads[i], NULL);
    hrx_host_scratch_free(&pool->scratch[i]);
  }
  pthread_cond_destroy(&pool->done);
  pthread_cond_destroy(&pool->work);
  pthread_mutex_destroy(&pool->mutex);
  hrx_allocator_free(pool->allocator, pool->scratch);
  hrx_allocator_free(pool->allocator, pool->threads);
  hrx_allocator_free(pool->allocator, pool);
}

uint32_t hrx_host_pool_worker_count(const hrx_host_pool_t* pool) {
  return pool->worker_count;
}

void hrx_host_pool_run(hrx_host_pool_t* pool, hrx_host_job_t* job,
                       hrx_host_scratch_t* scratch) {
  atomic_store_explicit(&job->next, 0, memory_order_relaxed);
  atomic_store_explicit(&job->done, 0, memory_order_relaxed);
  job->attached = 0;
  if (job->total == 0) return;
  /* A single item costs less run here than a wake-up elsewhere. */
  if (job->total == 1 || pool->worker_count == 0) {
    hrx_host_job_drain(pool, job, scratch);
    return;
  }
  pthread_mutex_lock(&pool->mutex);
  job->link = pool->jobs;
  pool->jobs = job;
  pthread_cond_broadcast(&pool->work);
  pthread_mutex_unlock(&pool->mutex);

  hrx_host_job_drain(pool, job, scratch);

  pthread_mutex_lock(&pool->mutex);
  while (atomic_load_explicit(&job->done, memory_order_acquire) <
             job->total ||
         job->attached > 0) {
    pthread_cond_wait(&pool->done, &pool->mutex);
  }
  for (hrx_host_job_t** at = &pool->jobs; *at; at = &(*at)->link) {
    if (*at == job) {
      *at = job->link;
      break;
    }
  }
  pthread_mutex_unlock(&pool->mutex);
}
