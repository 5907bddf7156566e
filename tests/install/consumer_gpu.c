/* Raw dispatch's footprint: a program that links only hrx-gpu (and what
 * it requires) opens the host device and runs an empty stream. The
 * install test checks that it loads no network, archive or TLS library. */
#include <hrx/gpu.h>
#include <stdio.h>

int main(void) {
  hrx_gpu_device_t* device = NULL;
  hrx_gpu_stream_t* stream = NULL;
  hrx_status_t status =
      hrx_gpu_device_open(0, hrx_allocator_system(), &device);
  if (status == HRX_OK) status = hrx_gpu_stream_create(device, &stream);
  if (status == HRX_OK) {
    status = hrx_gpu_stream_synchronize(stream, 10 * 1000 * 1000 * 1000ull);
  }
  if (stream) hrx_gpu_stream_destroy(stream);
  if (device) hrx_gpu_device_release(device);
  int ok = status == HRX_OK;
  hrx_status_free(status);
  printf("hrx-gpu consumer: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
