/* bench/gpu_stream's queue-family section: the same 4 KiB copy through
 * each queue family of the first AMD GPU (or its KFD model) at the fabric
 * layer, side by side. */
#ifndef HRX_BENCH_GPU_FAMILIES_H_
#define HRX_BENCH_GPU_FAMILIES_H_

/* Prints copy + wait latency (p50/p95/p99) over |samples| and
 * submissions/s over |submissions| copies (each its own submission,
 * waited for once at the end) for AQL (an agent copy packet completing a
 * signal), PM4 (CP DMA, fence) and SDMA (COPY_LINEAR, fence), and the
 * ratios against AQL. Says why and prints nothing else when there is no
 * GPU. */
void bench_report_families(int samples, int submissions);

#endif /* HRX_BENCH_GPU_FAMILIES_H_ */
