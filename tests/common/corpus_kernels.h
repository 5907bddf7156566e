/* The host test corpus's Loom kernels shared by the host executor's tests
 * and the gfx11 differential suite. Generators return text to free(). */
#ifndef HRX_TESTS_CORPUS_KERNELS_H_
#define HRX_TESTS_CORPUS_KERNELS_H_

#include <stdbool.h>

/* Writes one element past the end of its buffer from the last lane. */
extern const char* const corpus_overflow_kernel;

/* Wave64 subgroup operations and f16 rounding, one output row per lane:
 * out[l] = {up(1), down(1), index(5), xor(3), reduce-add, reduce-max over
 * clusters of 8, f16(x) round trip}. */
extern const char* const corpus_subgroup_kernel;

/* Work-item ids of a 5x3x4 workgroup (60 threads: the second wave runs
 * 28 of 32 lanes), two workgroups: out[g][flat] = {x, y, z}. */
extern const char* const corpus_ids_kernel;

/* A kernel |name| of one workgroup of 64 work-items (two waves) with
 * workload arguments |workload|, kernel arguments |params| and |body|. */
char* corpus_one_group_kernel(const char* name, const char* workload,
                              const char* params, const char* body);

/* Each work-item stores its id into workgroup memory and reads its
 * neighbour's, with or without a barrier between. */
char* corpus_neighbour_kernel(bool barrier);

/* out[i] = i for 64 work-items, through index.assume facts that hold only
 * for some of them. */
char* corpus_assume_kernel(const char* facts);

/* out[id] = %r, which |body| computes from %id. */
char* corpus_operation_kernel(const char* body);

/* The operation sanitizer's bodies for corpus_operation_kernel: index
 * arithmetic that overflows int64 (from lane 2), index shifts by 8..71
 * bits, and an i32 product that wraps. */
extern const char* const corpus_operation_bodies[3];

/* Five one-work-item kernels (store_uniform, store_lane, load_lane,
 * store_2d, store_folded), each poking a 4-element (16-byte) i32 buffer
 * at index %at. */
extern const char* const corpus_poke_kernels;

/* Two waves; work-items below %n, or the first %n waves, reach a barrier
 * in a function. The verifier takes function parameters as uniform, so
 * this divergence is not provable at compile time. */
char* corpus_divergent_barrier_kernel(bool by_wave);

/* |depth| nested ifs on per-lane conditions around one store. */
char* corpus_nested_if_kernel(int depth);

/* A one-work-item kernel whose body nests |depth| uniform scf.for or
 * scf.if around one store; with |carried| each loop carries a value that
 * starts uniform and turns per-lane in its own body, so every pass over
 * a loop body finds a change and analyses the inner loops again. */
char* corpus_nested_kernel(int depth, bool loops, bool carried);
/* Inline kernels for what the shipped corpus does not reach: wave32
 * subgroup shuffles and clustered reductions, f16 and bf16 rounding,
 * vector math and casts, atomics of every kind and scope, an early return
 * from an inlined function, workgroup memory from a function. */
extern const char* const corpus_amdgpu_extra_kernel;

/* One store at element 7 of an 8-element i32 view of its buffer (the
 * stream tests give it a smaller one). */
extern const char* const corpus_store_at_7_kernel;

/* Elementwise f32 vector arithmetic, four elements per work-item of one
 * group of 64: out = max(min((fma(2, x, y) - x) * y / 2, 1000), 0). */
char* corpus_vector_kernel(void);

/* vector.reduce per work-item of one group of 64: out[3 id ..] = the sum
 * (from 0.5) and the max (from 0.5) of x[4 id ..], and the max of
 * n[4 id ..] (i32, from -100) as f32. */
char* corpus_vreduce_kernel(void);

/* bf16 vectors widened, scaled by 3 in f32 (out) and narrowed back with
 * round-to-nearest-even (back), four per work-item of one group of 64. */
char* corpus_casts_kernel(void);

/* Private memory (buffer.alloca<private>) with dynamic indices: each of
 * 40 work-items per group (two waves, the second partial) reads its seed
 * s = in[at] (0 <= s < 65536) and fills three private arrays in permuted
 * order, a: 48 x i32 with a[(7k + s) % 48] = s * k + k, b: 40 x i16 with
 * b[(3k + s) % 40] = trunc16(s * k), c: 40 x u8 with
 * c[(11k + s) % 40] = trunc8(s + 5k), then writes out[at] =
 * {sum a[k] (k + 1), sum sext(b[k]) (k + 1), sum zext(c[k]) xor k,
 * a[3s % 48]} (i32 arithmetic, wrapping). */
extern const char* const corpus_private_kernel;

#endif  // HRX_TESTS_CORPUS_KERNELS_H_
