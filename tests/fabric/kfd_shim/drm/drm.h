/* Stands in for libdrm's drm.h so <linux/kfd_ioctl.h> compiles in
 * test_kfd_abi.c; the KFD header needs only these two from it. */
#include <linux/types.h>
#include <linux/ioctl.h>
