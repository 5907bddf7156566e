/* The host test corpus's Loom kernels that more than one suite runs: the
 * host executor's tests (tests/host/test_kernels.c) and the gfx11
 * differential suite (tests/fabric/test_gfx11_diff.c), which compiles
 * them for gfx1151 as well and compares the two devices. One copy keeps
 * the two suites running the same kernels. */
#include "corpus_kernels.h"

#include <stdlib.h>
#include <string.h>

#include "hrx/core/string_builder.h"
#include "test_support.h"

const char* const corpus_overflow_kernel =
    "kernel.def export(\"overflow\") @overflow(%n: index) {\n"
    "  %one = index.constant 1 : index\n"
    "  %t = index.constant 64 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%t, %one, %one) : index\n"
    "} launch(%n: index, %out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %i = kernel.workitem.id<x> : index\n"
    "  %v = buffer.view %out[%o] : buffer -> view<[%n]xi32>\n"
    "  %inside = index.cmp ule, %i, %n : index\n"
    "  %x = scalar.constant 7 : i32\n"
    "  scf.if %inside {\n"
    "    view.store %x, %v[%i] : i32, view<[%n]xi32>\n"
    "  }\n"
    "  kernel.return\n"
    "}\n";

const char* const corpus_subgroup_kernel =
    "host.target<cpu> @w64 {subgroup_size = 64}\n"
    "kernel.def target(@w64) export(\"subgroup_ops\") @subgroup_ops() {\n"
    "  %one = index.constant 1 : index\n"
    "  %t = index.constant 64 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%t, %one, %one) : index\n"
    "} launch(%in: buffer, %out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %l = kernel.subgroup.lane.id : index\n"
    "  %iv = buffer.view %in[%o] : buffer -> view<64xf32>\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<64x7xf32>\n"
    "  %x = view.load %iv[%l] : view<64xf32> -> f32\n"
    "  %w = scalar.constant 64 : i32\n"
    "  %c1 = scalar.constant 1 : i32\n"
    "  %c3 = scalar.constant 3 : i32\n"
    "  %c5 = scalar.constant 5 : i32\n"
    "  %up, %okup = kernel.subgroup.shuffle<up> %x, %c1, %w : f32, i32, i32\n"
    "  %dn, %okdn = kernel.subgroup.shuffle<down> %x, %c1, %w : f32, i32, i32\n"
    "  %ix, %okix = kernel.subgroup.shuffle<index> %x, %c5, %w : f32, i32, i32\n"
    "  %xr, %okxr = kernel.subgroup.shuffle<xor> %x, %c3, %w : f32, i32, i32\n"
    "  %sum = kernel.subgroup.reduce<addf> %x : f32\n"
    "  %max = kernel.subgroup.reduce<maxnumf> %x {cluster_size = 8} : f32\n"
    "  %h = scalar.fptrunc %x : f32 to f16\n"
    "  %back = scalar.extf %h : f16 to f32\n"
    "  %c0i = index.constant 0 : index\n"
    "  %c1i = index.constant 1 : index\n"
    "  %c2i = index.constant 2 : index\n"
    "  %c3i = index.constant 3 : index\n"
    "  %c4i = index.constant 4 : index\n"
    "  %c5i = index.constant 5 : index\n"
    "  %c6i = index.constant 6 : index\n"
    "  view.store %up, %ov[%l, %c0i] : f32, view<64x7xf32>\n"
    "  view.store %dn, %ov[%l, %c1i] : f32, view<64x7xf32>\n"
    "  view.store %ix, %ov[%l, %c2i] : f32, view<64x7xf32>\n"
    "  view.store %xr, %ov[%l, %c3i] : f32, view<64x7xf32>\n"
    "  view.store %sum, %ov[%l, %c4i] : f32, view<64x7xf32>\n"
    "  view.store %max, %ov[%l, %c5i] : f32, view<64x7xf32>\n"
    "  view.store %back, %ov[%l, %c6i] : f32, view<64x7xf32>\n"
    "  kernel.return\n"
    "}\n";

const char* const corpus_ids_kernel =
    "host.target<cpu> @h {subgroup_size = 32}\n"
    "kernel.def target(@h) export(\"ids\") @ids() {\n"
    "  %one = index.constant 1 : index\n"
    "  %two = index.constant 2 : index\n"
    "  %sx = index.constant 5 : index\n"
    "  %sy = index.constant 3 : index\n"
    "  %sz = index.constant 4 : index\n"
    "  kernel.launch.config workgroups(%two, %one, %one) "
    "workgroup_size(%sx, %sy, %sz) : index\n"
    "} launch(%out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %g = kernel.workgroup.id<x> : index\n"
    "  %x = kernel.workitem.id<x> : index\n"
    "  %y = kernel.workitem.id<y> : index\n"
    "  %z = kernel.workitem.id<z> : index\n"
    "  %c5 = index.constant 5 : index\n"
    "  %c15 = index.constant 15 : index\n"
    "  %yz = index.mul %y, %c5 : index\n"
    "  %zz = index.mul %z, %c15 : index\n"
    "  %xy = index.add %x, %yz : index\n"
    "  %flat = index.add %xy, %zz : index\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<2x60x3xi32>\n"
    "  %x32 = index.cast %x : index to i32\n"
    "  %y32 = index.cast %y : index to i32\n"
    "  %z32 = index.cast %z : index to i32\n"
    "  %c0i = index.constant 0 : index\n"
    "  %c1i = index.constant 1 : index\n"
    "  %c2i = index.constant 2 : index\n"
    "  view.store %x32, %ov[%g, %flat, %c0i] : i32, view<2x60x3xi32>\n"
    "  view.store %y32, %ov[%g, %flat, %c1i] : i32, view<2x60x3xi32>\n"
    "  view.store %z32, %ov[%g, %flat, %c2i] : i32, view<2x60x3xi32>\n"
    "  kernel.return\n"
    "}\n";

char* corpus_one_group_kernel(const char* name, const char* workload,
                              const char* params, const char* body) {
  return test_strdup_printf(
      "host.target<cpu> @h {subgroup_size = 32}\n"
      "kernel.def target(@h) export(\"%s\") @%s(%s) {\n"
      "  %%one = index.constant 1 : index\n"
      "  %%t = index.constant 64 : index\n"
      "  kernel.launch.config workgroups(%%one, %%one, %%one) "
      "workgroup_size(%%t, %%one, %%one) : index\n"
      "} launch(%s) {\n"
      "  %%o = index.constant 0 : offset\n"
      "  %%id = kernel.workitem.id<x> : index\n"
      "  %%one = index.constant 1 : index\n"
      "%s"
      "  kernel.return\n"
      "}\n",
      name, name, workload, params, body);
}

char* corpus_neighbour_kernel(bool barrier) {
  char* body = test_strdup_printf(
      "  %%bytes = index.constant 256 : offset\n"
      "  %%mask = index.constant 63 : index\n"
      "  %%scratch = buffer.alloca<workgroup> align(16) %%bytes : buffer\n"
      "  %%lds = buffer.view %%scratch[%%o] : buffer -> view<64xi32>\n"
      "  %%ov = buffer.view %%out[%%o] : buffer -> view<64xi32>\n"
      "  %%v = index.cast %%id : index to i32\n"
      "  view.store %%v, %%lds[%%id] : i32, view<64xi32>\n"
      "%s"
      "  %%next = index.add %%id, %%one : index\n"
      "  %%n = index.andi %%next, %%mask : index\n"
      "  %%x = view.load %%lds[%%n] : view<64xi32> -> i32\n"
      "  view.store %%x, %%ov[%%id] : i32, view<64xi32>\n",
      barrier ? "  kernel.barrier<workgroup> scope(workgroup) "
                "ordering(acq_rel)\n"
              : "");
  char* text = corpus_one_group_kernel("neighbour", "", "%out: buffer", body);
  free(body);
  return text;
}

char* corpus_assume_kernel(const char* facts) {
  char* body = test_strdup_printf(
      "  %%i = index.assume %%id [%s] : index\n"
      "  %%ov = buffer.view %%out[%%o] : buffer -> view<64xi32>\n"
      "  %%v = index.cast %%i : index to i32\n"
      "  view.store %%v, %%ov[%%i] : i32, view<64xi32>\n",
      facts);
  char* text = corpus_one_group_kernel("assume", "%n: index",
                                       "%n: index, %out: buffer", body);
  free(body);
  return text;
}

char* corpus_operation_kernel(const char* body) {
  char* full = test_strdup_printf(
      "  %%ov = buffer.view %%out[%%o] : buffer -> view<64xi32>\n"
      "%s"
      "  view.store %%r, %%ov[%%id] : i32, view<64xi32>\n",
      body);
  char* text = corpus_one_group_kernel("op", "", "%out: buffer", full);
  free(full);
  return text;
}

/* One work-item pokes a 4-element (16-byte) i32 buffer at index %at. */
#define POKE(name, body)                                                    \
  "kernel.def export(\"" name "\") @" name "() {\n"                        \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%buf: buffer, %at: index) {\n"                                 \
  "  %o = index.constant 0 : offset\n"                                     \
  "  %id = kernel.workitem.id<x> : index\n"                                \
  "  %i = index.add %at, %id : index\n"                                    \
  "  %x = scalar.constant 7 : i32\n" body "  kernel.return\n}\n"

const char* const corpus_poke_kernels =
    POKE("store_uniform",
         "  %v = buffer.view %buf[%o] : buffer -> view<4xi32>\n"
         "  view.store %x, %v[%at] : i32, view<4xi32>\n")
    POKE("store_lane",
         "  %v = buffer.view %buf[%o] : buffer -> view<4xi32>\n"
         "  view.store %x, %v[%i] : i32, view<4xi32>\n")
    POKE("load_lane",
         "  %v = buffer.view %buf[%o] : buffer -> view<4xi32>\n"
         "  %y = view.load %v[%i] : view<4xi32> -> i32\n"
         "  view.store %y, %v[1] : i32, view<4xi32>\n")
    POKE("store_2d",
         "  %m = buffer.view %buf[%o] : buffer -> view<2x2xi32>\n"
         "  view.store %x, %m[%i, 1] : i32, view<2x2xi32>\n")
    POKE("store_folded",
         "  %d = buffer.view %buf[%o] : buffer -> view<[%at]xi32>\n"
         "  %big = index.constant 4611686018427387905 : index\n"
         "  view.store %x, %d[%big] : i32, view<[%at]xi32>\n");

char* corpus_divergent_barrier_kernel(bool by_wave) {
  char* body = test_strdup_printf(
      "  %%wave = kernel.subgroup.id : index\n"
      "  %%c = index.cmp ult, %s, %%n : index\n"
      "  func.call @maybe_wait(%%c) : (i1) -> ()\n",
      by_wave ? "%wave" : "%id");
  char* kernel = corpus_one_group_kernel("diverge", "", "%n: index", body);
  char* text = test_strdup_printf(
      "func.def @maybe_wait(%%c: i1) {\n"
      "  scf.if %%c {\n"
      "    kernel.barrier<workgroup> scope(workgroup) ordering(acq_rel)\n"
      "  }\n"
      "  func.return\n"
      "}\n%s",
      kernel);
  free(kernel);
  free(body);
  return text;
}

char* corpus_nested_if_kernel(int depth) {
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_string_builder_appendf(
      &b, "  %%ov = buffer.view %%out[%%o] : buffer -> view<64xi32>\n"
          "  %%k = index.constant 100 : index\n"
          "  %%c = index.cmp ult, %%id, %%k : index\n"));
  for (int i = 0; i < depth; ++i) {
    assert_ok(hrx_string_builder_appendf(&b, "  scf.if %%c {\n"));
  }
  assert_ok(hrx_string_builder_appendf(
      &b, "  %%x = scalar.constant 5 : i32\n"
          "  view.store %%x, %%ov[%%id] : i32, view<64xi32>\n"));
  for (int i = 0; i < depth; ++i) {
    assert_ok(hrx_string_builder_appendf(&b, "  }\n"));
  }
  char* text = corpus_one_group_kernel("nest", "", "%out: buffer",
                                       hrx_string_builder_cstr(&b));
  hrx_string_builder_deinit(&b);
  return text;
}

char* corpus_nested_kernel(int depth, bool loops, bool carried) {
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_string_builder_appendf(
      &b,
      "kernel.def export(\"deep\") @deep() {\n"
      "  %%one = index.constant 1 : index\n"
      "  kernel.launch.config workgroups(%%one, %%one, %%one) "
      "workgroup_size(%%one, %%one, %%one) : index\n"
      "} launch(%%out: buffer, %%n: index) {\n"
      "  %%o = index.constant 0 : offset\n"
      "  %%z = index.constant 0 : index\n"
      "  %%step = index.constant 1 : index\n"
      "  %%id = kernel.workitem.id<x> : index\n"
      "  %%c = index.cmp ult, %%z, %%n : index\n"
      "  %%v = buffer.view %%out[%%o] : buffer -> view<4xi32>\n"));
  for (int i = 0; i < depth; ++i) {
    if (!loops) {
      assert_ok(hrx_string_builder_appendf(&b, "scf.if %%c {\n"));
    } else if (carried) {
      assert_ok(hrx_string_builder_appendf(
          &b,
          "%%r%d = scf.for %%i%d = [%%z to %%n step %%step]"
          "(%%a%d = %%z : index) -> (index) {\n",
          i + 1, i, i + 1));
    } else {
      assert_ok(hrx_string_builder_appendf(
          &b, "scf.for %%i%d = [%%z to %%n step %%step] {\n", i));
    }
  }
  assert_ok(hrx_string_builder_appendf(
      &b, "%%x = scalar.constant 1 : i32\n"
          "view.store %%x, %%v[0] : i32, view<4xi32>\n"));
  for (int i = depth; i > 0; --i) {
    if (loops && carried) {
      assert_ok(hrx_string_builder_appendf(
          &b,
          "%%w%d = index.add %%a%d, %%id : index\n"
          "scf.yield %%w%d : index\n}\n",
          i, i, i));
    } else {
      assert_ok(hrx_string_builder_appendf(&b, "}\n"));
    }
  }
  assert_ok(hrx_string_builder_appendf(&b, "kernel.return\n}\n"));
  char* text = strdup(hrx_string_builder_cstr(&b));
  hrx_string_builder_deinit(&b);
  return text;
}

const char* const corpus_amdgpu_extra_kernel =
    "amdgpu.target<gfx1151> @gpu {subgroup_size = 32}\n"
    "func.def @clamp(%x: f32, %hi: f32) -> (f32) {\n"
    "  %over = scalar.cmpf ogt, %x, %hi : f32\n"
    "  %r = scf.if %over -> (f32) {\n"
    "    scf.yield %hi : f32\n"
    "  } else {\n"
    "    %h = scalar.fptrunc %x : f32 to f16\n"
    "    %b = scalar.fptrunc %x : f32 to bf16\n"
    "    %hb = scalar.extf %h : f16 to f32\n"
    "    %bb = scalar.extf %b : bf16 to f32\n"
    "    %s = scalar.addf %hb, %bb : f32\n"
    "    scf.yield %s : f32\n"
    "  }\n"
    "  func.return %r : f32\n"
    "}\n"
    "kernel.def target(@gpu) export(\"extra\") @extra(%n: index) {\n"
    "  %one = index.constant 1 : index\n"
    "  %t = index.constant 64 : index\n"
    "  kernel.launch.config workgroups(%n, %one, %one) "
    "workgroup_size(%t, %one, %one) : index\n"
    "} launch(%in: buffer, %out: buffer, %count: buffer, %k: i32) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %l = kernel.subgroup.lane.id : index\n"
    "  %w = kernel.subgroup.id : index\n"
    "  %g = kernel.workgroup.id<x> : index\n"
    "  %gs = kernel.workgroup.count<x> : index\n"
    "  %iv = buffer.view %in[%o] : buffer -> view<64xf32>\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<64x8xf32>\n"
    "  %cv = buffer.view %count[%o] : buffer -> view<8xi32>\n"
    "  %x = view.load %iv[%l] : view<64xf32> -> f32\n"
    "  %width = scalar.constant 32 : i32\n"
    "  %c1 = scalar.constant 1 : i32\n"
    "  %up, %okup = kernel.subgroup.shuffle<up> %x, %c1, %width : f32, i32, i32\n"
    "  %dn, %okdn = kernel.subgroup.shuffle<down> %x, %k, %width : f32, i32, i32\n"
    "  %ix, %okix = kernel.subgroup.shuffle<index> %l, %k, %width : index, i32, i32\n"
    "  %sum = kernel.subgroup.reduce<addf> %x : f32\n"
    "  %max = kernel.subgroup.reduce<maxnumf> %x {cluster_size = 8} : f32\n"
    "  %imax = kernel.subgroup.reduce<maxsi> %k {cluster_size = 4} : i32\n"
    "  %top = scalar.constant 100.0 : f32\n"
    "  %cl = func.call @clamp(%sum, %top) : (f32, f32) -> (f32)\n"
    "  %four = index.constant 4 : index\n"
    "  %base = index.mul %l, %four : index\n"
    "  %xs = buffer.view %in[%o] : buffer -> view<256xbf16>\n"
    "  %v = vector.load %xs[%base] : view<256xbf16> -> vector<4xbf16>\n"
    "  %vw = vector.extf %v : vector<4xbf16> to vector<4xf32>\n"
    "  %sp = vector.splat %max : vector<4xf32>\n"
    "  %vm = vector.fmaf %vw, %sp, %sp : vector<4xf32>\n"
    "  %vr = vector.reduce<minnumf> %vm, %up : vector<4xf32>, f32\n"
    "  %vn = vector.fptrunc %vm : vector<4xf32> to vector<4xbf16>\n"
    "  vector.store %vn, %xs[%base] : vector<4xbf16>, view<256xbf16>\n"
    "  %th = scalar.tanhf %vr : f32\n"
    "  %rs = scalar.rsqrtf %dn : f32\n"
    "  %ixf = index.cast %ix : index to i32\n"
    "  %ixs = scalar.sitofp %ixf : i32 to bf16\n"
    "  %ixw = scalar.extf %ixs : bf16 to f32\n"
    "  %c0i = index.constant 0 : index\n"
    "  %c1i = index.constant 1 : index\n"
    "  %c2i = index.constant 2 : index\n"
    "  %c3i = index.constant 3 : index\n"
    "  view.store %cl, %ov[%l, %c0i] : f32, view<64x8xf32>\n"
    "  view.store %th, %ov[%l, %c1i] : f32, view<64x8xf32>\n"
    "  view.store %rs, %ov[%l, %c2i] : f32, view<64x8xf32>\n"
    "  view.store %ixw, %ov[%l, %c3i] : f32, view<64x8xf32>\n"
    "  %bytes = index.constant 256 : index\n"
    "  %lds = buffer.alloca<workgroup> align(16) %bytes : buffer\n"
    "  %lv = buffer.view %lds[%o] : buffer -> view<64xf32>\n"
    "  view.store %x, %lv[%l] : f32, view<64xf32>\n"
    "  kernel.barrier<workgroup> scope(workgroup) ordering(acq_rel)\n"
    "  %back = view.load %lv[%w] : view<64xf32> -> f32\n"
    "  %a0 = view.atomic.rmw<addi> %imax, %cv[%c0i] {ordering = relaxed, scope = device} : i32, view<8xi32>\n"
    "  %a1 = view.atomic.rmw<muli> %a0, %cv[%c1i] {ordering = acq_rel, scope = workgroup} : i32, view<8xi32>\n"
    "  %a2 = view.atomic.rmw<xchg> %a1, %cv[%c2i] {ordering = seq_cst, scope = system} : i32, view<8xi32>\n"
    "  %fv = buffer.view %out[%o] : buffer -> view<512xf32>\n"
    "  %a3 = view.atomic.rmw<addf> %back, %fv[%g] {ordering = relaxed, scope = device} : f32, view<512xf32>\n"
    "  %a4 = view.atomic.rmw<mulf> %a3, %fv[%gs] {ordering = release, scope = subgroup} : f32, view<512xf32>\n"
    "  %a5 = view.atomic.rmw<maxnumf> %a4, %lv[%l] {ordering = relaxed, scope = workgroup} : f32, view<64xf32>\n"
    "  view.atomic.store %a5, %fv[%c3i] {ordering = release, scope = device} : f32, view<512xf32>\n"
    "  kernel.return\n"
    "}\n";

const char* const corpus_store_at_7_kernel =
    "kernel.def export(\"overflow\") @overflow() {\n"
    "  %one = index.constant 1 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%one, %one, %one) : index\n"
    "} launch(%out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %v = buffer.view %out[%o] : buffer -> view<8xi32>\n"
    "  %x = scalar.constant 1 : i32\n"
    "  view.store %x, %v[7] : i32, view<8xi32>\n"
    "  kernel.return\n"
    "}\n";

char* corpus_vector_kernel(void) {
  return corpus_one_group_kernel(
      "vector", "", "%x: buffer, %y: buffer, %out: buffer",
      "  %c4 = index.constant 4 : index\n"
      "  %at = index.mul %id, %c4 : index\n"
      "  %xv = buffer.view %x[%o] : buffer -> view<256xf32>\n"
      "  %yv = buffer.view %y[%o] : buffer -> view<256xf32>\n"
      "  %ov = buffer.view %out[%o] : buffer -> view<256xf32>\n"
      "  %xs = vector.load %xv[%at] : view<256xf32> -> vector<4xf32>\n"
      "  %ys = vector.load %yv[%at] : view<256xf32> -> vector<4xf32>\n"
      "  %two = scalar.constant 2.0 : f32\n"
      "  %cap = scalar.constant 1000.0 : f32\n"
      "  %nil = scalar.constant 0.0 : f32\n"
      "  %a = vector.splat %two : vector<4xf32>\n"
      "  %hi = vector.splat %cap : vector<4xf32>\n"
      "  %lo = vector.splat %nil : vector<4xf32>\n"
      "  %f = vector.fmaf %a, %xs, %ys : vector<4xf32>\n"
      "  %s = vector.subf %f, %xs : vector<4xf32>\n"
      "  %m = vector.mulf %s, %ys : vector<4xf32>\n"
      "  %d = vector.divf %m, %a : vector<4xf32>\n"
      "  %c = vector.minnumf %d, %hi : vector<4xf32>\n"
      "  %r = vector.maxnumf %c, %lo : vector<4xf32>\n"
      "  vector.store %r, %ov[%at] : vector<4xf32>, view<256xf32>\n");
}

char* corpus_vreduce_kernel(void) {
  return corpus_one_group_kernel(
      "vreduce", "", "%x: buffer, %n: buffer, %out: buffer",
      "  %c4 = index.constant 4 : index\n"
      "  %c3 = index.constant 3 : index\n"
      "  %at = index.mul %id, %c4 : index\n"
      "  %row = index.mul %id, %c3 : index\n"
      "  %xv = buffer.view %x[%o] : buffer -> view<256xf32>\n"
      "  %nv = buffer.view %n[%o] : buffer -> view<256xi32>\n"
      "  %ov = buffer.view %out[%o] : buffer -> view<192xf32>\n"
      "  %xs = vector.load %xv[%at] : view<256xf32> -> vector<4xf32>\n"
      "  %ns = vector.load %nv[%at] : view<256xi32> -> vector<4xi32>\n"
      "  %half = scalar.constant 0.5 : f32\n"
      "  %low = scalar.constant -100 : i32\n"
      "  %sum = vector.reduce<addf> %xs, %half : vector<4xf32>, f32\n"
      "  %max = vector.reduce<maxnumf> %xs, %half : vector<4xf32>, f32\n"
      "  %imax = vector.reduce<maxsi> %ns, %low : vector<4xi32>, i32\n"
      "  %fmax = scalar.sitofp %imax : i32 to f32\n"
      "  %r1 = index.add %row, %one : index\n"
      "  %r2 = index.add %r1, %one : index\n"
      "  view.store %sum, %ov[%row] : f32, view<192xf32>\n"
      "  view.store %max, %ov[%r1] : f32, view<192xf32>\n"
      "  view.store %fmax, %ov[%r2] : f32, view<192xf32>\n");
}

char* corpus_casts_kernel(void) {
  return corpus_one_group_kernel(
      "casts", "", "%x: buffer, %out: buffer, %back: buffer",
      "  %c4 = index.constant 4 : index\n"
      "  %at = index.mul %id, %c4 : index\n"
      "  %xv = buffer.view %x[%o] : buffer -> view<256xbf16>\n"
      "  %ov = buffer.view %out[%o] : buffer -> view<256xf32>\n"
      "  %bv = buffer.view %back[%o] : buffer -> view<256xbf16>\n"
      "  %xs = vector.load %xv[%at] : view<256xbf16> -> vector<4xbf16>\n"
      "  %wide = vector.extf %xs : vector<4xbf16> to vector<4xf32>\n"
      "  %three = scalar.constant 3.0 : f32\n"
      "  %k = vector.splat %three : vector<4xf32>\n"
      "  %p = vector.mulf %wide, %k : vector<4xf32>\n"
      "  vector.store %p, %ov[%at] : vector<4xf32>, view<256xf32>\n"
      "  %n = vector.fptrunc %p : vector<4xf32> to vector<4xbf16>\n"
      "  vector.store %n, %bv[%at] : vector<4xbf16>, view<256xbf16>\n");
}

const char* const corpus_operation_bodies[3] = {
    "  %c = index.constant 4611686018427387904 : index\n"
    "  %m = index.mul %id, %c : index\n"
    "  %r = index.cast %m : index to i32\n",
    "  %c8 = index.constant 8 : index\n"
    "  %amount = index.add %id, %c8 : index\n"
    "  %s = index.shli %one, %amount : index\n"
    "  %r = index.cast %s : index to i32\n",
    "  %v = index.cast %id : index to i32\n"
    "  %big = scalar.constant 2147483647 : i32\n"
    "  %r = scalar.muli %v, %big : i32\n",
};

const char* const corpus_private_kernel =
    "kernel.def export(\"private_permute\") @private_permute(%groups: index) {\n"
    "  %one = index.constant 1 : index\n"
    "  %items = index.constant 40 : index\n"
    "  kernel.launch.config workgroups(%groups, %one, %one) "
    "workgroup_size(%items, %one, %one) : index\n"
    "} launch(%groups: index, %in: buffer, %out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %items = index.constant 40 : index\n"
    "  %cells = index.mul %groups, %items : index\n"
    "  %iv = buffer.view %in[%o] : buffer -> view<[%cells]xi32>\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<[%cells]x4xi32>\n"
    "  %a_bytes = index.constant 192 : index\n"
    "  %a = buffer.alloca<private> align(16) %a_bytes : buffer\n"
    "  %b_bytes = index.constant 80 : index\n"
    "  %b = buffer.alloca<private> align(2) %b_bytes : buffer\n"
    "  %c_bytes = index.constant 40 : index\n"
    "  %c = buffer.alloca<private> align(1) %c_bytes : buffer\n"
    "  %av = buffer.view %a[%o] : buffer -> view<48xi32>\n"
    "  %bv = buffer.view %b[%o] : buffer -> view<40xi16>\n"
    "  %cv = buffer.view %c[%o] : buffer -> view<40xi8>\n"
    "  %t = kernel.workitem.id<x> : index\n"
    "  %g = kernel.workgroup.id<x> : index\n"
    "  %at = index.madd %g, %items, %t : index\n"
    "  %s = view.load %iv[%at] : view<[%cells]xi32> -> i32\n"
    "  %si = index.cast %s : i32 to index\n"
    "  %c0 = index.constant 0 : index\n"
    "  %c1 = index.constant 1 : index\n"
    "  %c3 = index.constant 3 : index\n"
    "  %c7 = index.constant 7 : index\n"
    "  %c11 = index.constant 11 : index\n"
    "  %c40 = index.constant 40 : index\n"
    "  %c48 = index.constant 48 : index\n"
    "  %five = scalar.constant 5 : i32\n"
    "  scf.for %k = [%c0 to %c48 step %c1] {\n"
    "    %ki = index.cast %k : index to i32\n"
    "    %p = index.madd %k, %c7, %si : index\n"
    "    %j = index.rem %p, %c48 : index\n"
    "    %sk = scalar.muli %s, %ki : i32\n"
    "    %v = scalar.addi %sk, %ki : i32\n"
    "    view.store %v, %av[%j] : i32, view<48xi32>\n"
    "  }\n"
    "  scf.for %k = [%c0 to %c40 step %c1] {\n"
    "    %ki = index.cast %k : index to i32\n"
    "    %p = index.madd %k, %c3, %si : index\n"
    "    %j = index.rem %p, %c40 : index\n"
    "    %sk = scalar.muli %s, %ki : i32\n"
    "    %h = scalar.trunci %sk : i32 to i16\n"
    "    view.store %h, %bv[%j] : i16, view<40xi16>\n"
    "    %q = index.madd %k, %c11, %si : index\n"
    "    %m = index.rem %q, %c40 : index\n"
    "    %k5 = scalar.muli %ki, %five : i32\n"
    "    %w = scalar.addi %s, %k5 : i32\n"
    "    %byte = scalar.trunci %w : i32 to i8\n"
    "    view.store %byte, %cv[%m] : i8, view<40xi8>\n"
    "  }\n"
    "  %zero = scalar.constant 0 : i32\n"
    "  %ra = scf.for %k = [%c0 to %c48 step %c1](%acc = %zero : i32) -> (i32) {\n"
    "    %x = view.load %av[%k] : view<48xi32> -> i32\n"
    "    %k1 = index.add %k, %c1 : index\n"
    "    %w = index.cast %k1 : index to i32\n"
    "    %xw = scalar.muli %x, %w : i32\n"
    "    %next = scalar.addi %acc, %xw : i32\n"
    "    scf.yield %next : i32\n"
    "  }\n"
    "  %rb, %rc = scf.for %k = [%c0 to %c40 step %c1](%accb = %zero : i32, "
    "%accc = %zero : i32) -> (i32, i32) {\n"
    "    %h = view.load %bv[%k] : view<40xi16> -> i16\n"
    "    %hx = scalar.extsi %h : i16 to i32\n"
    "    %k1 = index.add %k, %c1 : index\n"
    "    %w = index.cast %k1 : index to i32\n"
    "    %hw = scalar.muli %hx, %w : i32\n"
    "    %nb = scalar.addi %accb, %hw : i32\n"
    "    %byte = view.load %cv[%k] : view<40xi8> -> i8\n"
    "    %bx = scalar.extui %byte : i8 to i32\n"
    "    %ki = index.cast %k : index to i32\n"
    "    %bk = scalar.xori %bx, %ki : i32\n"
    "    %nc = scalar.addi %accc, %bk : i32\n"
    "    scf.yield %nb, %nc : i32, i32\n"
    "  }\n"
    "  %s3 = index.mul %si, %c3 : index\n"
    "  %r = index.rem %s3, %c48 : index\n"
    "  %rd = view.load %av[%r] : view<48xi32> -> i32\n"
    "  view.store %ra, %ov[%at, 0] : i32, view<[%cells]x4xi32>\n"
    "  view.store %rb, %ov[%at, 1] : i32, view<[%cells]x4xi32>\n"
    "  view.store %rc, %ov[%at, 2] : i32, view<[%cells]x4xi32>\n"
    "  view.store %rd, %ov[%at, 3] : i32, view<[%cells]x4xi32>\n"
    "  kernel.return\n"
    "}\n";
