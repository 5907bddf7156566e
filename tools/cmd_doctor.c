/* hrx doctor: what this installation sees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/artifacts.h"
#include "hrx/exec.h"
#include "hrx/fabric.h"
#include "hrx/fabric/bundle.h"
#include "hrx/gpu.h"
#include "hrx/loom.h"
#include "hrx_cli.h"
#ifdef HRX_CLI_HAVE_NPU
#include "npu_cli.h"
#endif

static void hrx_doctor_path(const char* label, hrx_status_t status,
                            char* path, hrx_path_source_t source) {
  if (status != HRX_OK) {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    printf("%-12s unavailable (%s)\n", label, text);
    hrx_status_free(status);
    return;
  }
  printf("%-12s %s (from %s)\n", label, path,
         hrx_path_source_string(source));
}

/* "1.11" from a kfd device name "AMD gfx1151 (KFD 1.11, model)", or "?"
 * when the name does not carry it. */
static void kfd_version(const char* name, char* out, size_t capacity) {
  const char* at = name ? strstr(name, "(KFD ") : NULL;
  size_t n = 0;
  if (at) {
    at += 5;
    while (at[n] && at[n] != ',' && at[n] != ')') ++n;
  }
  if (!n) {
    snprintf(out, capacity, "?");
  } else {
    snprintf(out, capacity, "%.*s", (int)n, at);
  }
}

/* One line per queue family |device| offers: how many queues and what
 * they run. */
static void print_queue_families(const hrx_fabric_device_t* device) {
  for (int i = 0; i < HRX_FABRIC_QUEUE_FAMILY_COUNT; ++i) {
    hrx_fabric_queue_family_info_t f =
        HRX_STRUCT_INIT(hrx_fabric_queue_family_info_t);
    hrx_status_t status = hrx_fabric_device_queue_family_info(
        device, (hrx_fabric_queue_family_t)i, &f);
    if (status != HRX_OK) {
      printf("  %-12s queues: %s\n", "", hrx_status_message(status));
      hrx_status_free(status);
      continue;
    }
    char count[16];
    if (f.queue_count == HRX_FABRIC_QUEUE_COUNT_UNLIMITED) {
      snprintf(count, sizeof(count), "unlimited");
    } else {
      snprintf(count, sizeof(count), "%u", f.queue_count);
    }
    if (f.queue_count == 0) {
      printf("  %-12s queues: %s: not offered\n", "", f.name);
      continue;
    }
    uint32_t ops = f.operations;
    printf("  %-12s queues: %s on %s: %s%s%s%s%s%s%s%s%s\n", "", f.name,
           f.engine, count,
           ops & HRX_FABRIC_QUEUE_OP_DISPATCH ? ", dispatch" : "",
           ops & HRX_FABRIC_QUEUE_OP_BARRIER ? ", barriers" : "",
           ops & HRX_FABRIC_QUEUE_OP_COPY ? ", copy" : "",
           ops & HRX_FABRIC_QUEUE_OP_FILL ? ", fill" : "",
           ops & HRX_FABRIC_QUEUE_OP_WAIT_MEMORY ? ", memory waits" : "",
           ops & HRX_FABRIC_QUEUE_OP_SIGNAL ? ", signals" : "",
           ops & HRX_FABRIC_QUEUE_OP_FENCE ? ", fences" : "",
           f.public_api ? "" : " (no HRX API yet)");
  }
}

/* "write-back+queue acquire": the actions of |bits|, "none" without. */
static void action_text(uint32_t bits, char* out, size_t capacity) {
  static const char* const names[] = {"host write-back", "host invalidate",
                                      "queue release", "queue acquire"};
  size_t used = 0;
  out[0] = '\0';
  for (int b = 0; b < 4; ++b) {
    if (!(bits & (1u << b)) || used >= capacity) continue;
    used += (size_t)snprintf(out + used, capacity - used, "%s%s",
                             used ? "+" : "", names[b]);
  }
  if (!used) snprintf(out, capacity, "none");
}

/* One line per allocation profile |device| offers: what it is, and
 * either that it is coherent or, per producer, the release and acquire
 * each consumer needs; then the atomic scopes of each pair by width
 * (1/2/4/8 bytes: '-' none, 'D' device, 'S' system). */
static void print_allocation_profiles(const hrx_fabric_device_t* device) {
  static const char scope_letter[] = {'-', 'D', 'S'};
  for (int v = 0; v < HRX_FABRIC_VISIBILITY_COUNT; ++v) {
    hrx_fabric_allocation_profile_t p = {.struct_size = sizeof(p)};
    hrx_status_t status = hrx_fabric_device_allocation_profile(
        device, (hrx_fabric_visibility_t)v, &p);
    if (status != HRX_OK) {
      hrx_status_free(status);
      continue;
    }
    printf("  %-12s memory: %s (%s)%s\n", "", p.name, p.memory_kind,
           p.coherent ? ": coherent, no release or acquire actions" : "");
    char atomics[256] = "";
    size_t used = 0;
    for (int a = 0; a < HRX_FABRIC_AGENT_COUNT; ++a) {
      for (int b = a; b < HRX_FABRIC_AGENT_COUNT; ++b) {
        const hrx_fabric_visibility_pair_t* pair = &p.pairs[a][b];
        if (!pair->reachable || used >= sizeof(atomics)) continue;
        char w[HRX_FABRIC_ATOMIC_WIDTHS + 1];
        for (int i = 0; i < HRX_FABRIC_ATOMIC_WIDTHS; ++i) {
          w[i] = scope_letter[pair->atomics[i]];
        }
        w[HRX_FABRIC_ATOMIC_WIDTHS] = '\0';
        used += (size_t)snprintf(
            atomics + used, sizeof(atomics) - used, "%s%s-%s %s",
            used ? ", " : "", hrx_fabric_agent_name((hrx_fabric_agent_t)a),
            hrx_fabric_agent_name((hrx_fabric_agent_t)b), w);
      }
    }
    for (int a = 0; a < HRX_FABRIC_AGENT_COUNT && !p.coherent; ++a) {
      if (!p.agents[a]) continue;
      printf("  %-12s   from %s:", "",
             hrx_fabric_agent_name((hrx_fabric_agent_t)a));
      const char* separator = " ";
      for (int b = 0; b < HRX_FABRIC_AGENT_COUNT; ++b) {
        const hrx_fabric_visibility_pair_t* pair = &p.pairs[a][b];
        if (!pair->reachable) continue;
        char release[64], acquire[64];
        action_text(pair->release, release, sizeof(release));
        action_text(pair->acquire, acquire, sizeof(acquire));
        printf("%sto %s release %s, acquire %s", separator,
               hrx_fabric_agent_name((hrx_fabric_agent_t)b), release,
               acquire);
        separator = "; ";
      }
      printf("\n");
    }
    printf("  %-12s   atomics (1/2/4/8 bytes): %s\n", "", atomics);
  }
}

/* Opens the supported GPU that is device |index| and says what it is; a
 * GPU that does not open says why on its line. */
static void print_amd_device(size_t index) {
  hrx_gpu_device_t* device = NULL;
  hrx_status_t status =
      hrx_gpu_device_open(index, hrx_allocator_system(), &device);
  if (status != HRX_OK) {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    printf("  device %-5zu cannot be opened: %s\n", index, text);
    hrx_status_free(status);
    return;
  }
  const hrx_fabric_device_properties_t* p = hrx_gpu_device_properties(device);
  char version[32];
  kfd_version(p->name, version, sizeof(version));
  printf("  device %-5zu %s: profile %s, %u CUs, subgroup %u, %.1f GiB, "
         "KFD %s\n",
         index, p->name, p->profile_target, p->compute_units,
         p->subgroup_size,
         (double)p->memory_bytes / (1024.0 * 1024.0 * 1024.0), version);
  print_queue_families(hrx_gpu_device_fabric(device));
  print_allocation_profiles(hrx_gpu_device_fabric(device));
  hrx_gpu_device_release(device);
}

/* The GPUs of the KFD topology (every one, supported or not), each
 * supported one then opened through the device API as device 1, 2, ... */
static void print_amd_gpus(void) {
  const char* model = hrx_fabric_kfd_model_root();
  if (model) {
    printf("  kfd model    active (HRX_KFD_MODEL=%s): the AMD GPUs below are "
           "modelled in userspace, their code runs on the CPU\n",
           model);
  }
  hrx_fabric_kfd_gpu_t gpus[8];
  size_t count = 0;
  hrx_status_t status = hrx_fabric_kfd_probe(8, gpus, &count);
  if (status != HRX_OK) {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    printf("  amdgpu       %s\n", text);
    hrx_status_free(status);
    return;
  }
  if (count == 0) printf("  amdgpu       the KFD topology has no GPU\n");
  size_t supported = 0;
  for (size_t i = 0; i < count && i < 8; ++i) {
    const hrx_fabric_kfd_gpu_t* g = &gpus[i];
    char role[32];
    if (g->profile_target) {
      snprintf(role, sizeof(role), "supported, device %zu", ++supported);
    } else {
      snprintf(role, sizeof(role), "not supported by HRX");
    }
    printf("  amdgpu       node %u: %s (%04x:%04x), %u CUs, wave%u, "
           "LDS %u KiB, renderD%u: %s\n",
           g->node, g->arch, g->vendor_id, g->device_id, g->compute_units,
           g->wavefront_size, g->lds_bytes / 1024, g->render_minor, role);
  }
  if (count > 8) {
    printf("  amdgpu       (%zu more GPUs not listed)\n", count - 8);
  }
  /* Device indices count only the supported GPUs, in topology order; the
   * device API may see more than the eight listed here. */
  size_t devices = hrx_gpu_device_count();
  for (size_t index = 1; index < devices; ++index) print_amd_device(index);
  if (supported && devices <= 1) {
    printf("  %-12s the device API lists no AMD GPU\n", "");
  }
}

int hrx_cmd_doctor(int argc, char** argv) {
  if (argc > 1) {
    return hrx_cli_usage_error("doctor", "unknown argument '%s'", argv[1]);
  }
  hrx_allocator_t allocator = hrx_allocator_system();
  printf("libraries:\n");
  /* Layer order, so a mismatched installed library stands out. */
  const struct {
    const char* name;
    const char* version;
  } libraries[] = {{"hrx-core", hrx_core_version()},
                   {"hrx-fabric", hrx_fabric_version()},
                   {"hrx-gpu", hrx_gpu_version()},
                   {"hrx-loom", hrx_loom_version()},
                   {"hrx-exec", hrx_exec_version()},
                   {"hrx-artifacts", hrx_artifacts_version()},
#ifdef HRX_CLI_HAVE_NPU
                   {"hrx-npu", hrx_npu_version()},
#endif
  };
  for (size_t i = 0; i < sizeof(libraries) / sizeof(libraries[0]); ++i) {
    printf("  %-13s %s\n", libraries[i].name, libraries[i].version);
  }

  printf("paths:\n");
  char* cache = NULL;
  hrx_path_source_t source = HRX_PATH_SOURCE_XDG;
  hrx_status_t status = hrx_path_cache_root(allocator, &cache, &source);
  printf("  ");
  hrx_doctor_path("cache root", status, cache, source);
  char* runtime = NULL;
  status = hrx_path_runtime_dir(allocator, &runtime, &source);
  printf("  ");
  hrx_doctor_path("runtime dir", status, runtime, source);
  hrx_allocator_free(allocator, cache);
  hrx_allocator_free(allocator, runtime);

  printf("bundle:\n");
  char* manifest_path = NULL;
  hrx_fabric_bundle_manifest_t* manifest = NULL;
  status = hrx_fabric_bundle_manifest_path(allocator, &manifest_path);
  if (status == HRX_OK) {
    printf("  %-12s %s\n", "bundle.json", manifest_path);
    status = hrx_fabric_bundle_manifest_load_pinned(allocator, &manifest);
  }
  char* bundle_dir = NULL;
  if (status == HRX_OK) {
    printf("  %-12s %s for %s, %zu files\n", "pinned", manifest->revision,
           manifest->target, manifest->file_count);
    status = hrx_fabric_bundle_locate(manifest, NULL, allocator, &bundle_dir);
  }
  if (status == HRX_OK) {
    printf("  %-12s installed and verified in %s\n", "state", bundle_dir);
  } else {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    printf("  %-12s %s\n", "state", text);
    hrx_status_free(status);
  }
  hrx_allocator_free(allocator, bundle_dir);
  hrx_fabric_bundle_manifest_destroy(manifest);
  hrx_allocator_free(allocator, manifest_path);

  printf("logging:\n  %-12s %s\n", "HRX_LOG",
         hrx_log_level_string(hrx_logger_from_env().level));

  printf("devices:\n");
  hrx_fabric_device_t* device = NULL;
  status = hrx_fabric_host_device_create(NULL, allocator, &device);
  if (status != HRX_OK) {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    printf("  host         unavailable (%s)\n", text);
    hrx_status_free(status);
  } else {
    const hrx_fabric_device_properties_t* p =
        hrx_fabric_device_properties(device);
    printf("  host         %s: profile %s, %u threads, subgroup %u, "
           "%.1f GiB\n",
           p->name, p->profile_target, p->compute_units, p->subgroup_size,
           (double)p->memory_bytes / (1024.0 * 1024.0 * 1024.0));
    print_queue_families(device);
    print_allocation_profiles(device);
    hrx_fabric_device_release(device);
  }
  print_amd_gpus();
#ifdef HRX_CLI_HAVE_NPU
  hrx_cli_npu_driver_t npu = hrx_cli_npu_native();
  hrx_cli_npu_doctor(&npu, stdout);
#else
  printf("  npu          not built: this hrx was configured with "
         "-Dnpu=disabled\n");
#endif
  return HRX_EXIT_OK;
}
