/* bench/ops: the image half (affine crops), in ops_image.c. */
#ifndef HRX_BENCH_OPS_IMAGE_H_
#define HRX_BENCH_OPS_IMAGE_H_

/* Runs the image op benchmarks, printing their lines; 0 on success. */
int bench_ops_image(void);

#endif /* HRX_BENCH_OPS_IMAGE_H_ */
