/* The fast interpreter's handlers: a template host_exec_fast.c includes
 * once per instruction-set level, with HX_VARIANT naming it, HX_FMAF(x,
 * y, z) the f32 fused multiply-add and HX_AVX2 defined where AVX2
 * intrinsics may be used. It defines a handler per translated operation
 * and the table hx_handlers_<variant> of them by hx_op_t. Every handler
 * either finishes its instruction (returning the next pc) having changed
 * nothing the reference step would not have, or changes nothing and
 * returns hx_slow(), where the reference step runs that instruction. No
 * include guard: it is meant to be included more than once. */

#define HX_CAT3(a, b, c) a##b##c
#define HX_CAT2(a, b, c) HX_CAT3(a, b, c)
#define HX_FN(NAME) HX_CAT2(hx_, NAME, HX_CAT2(_, HX_VARIANT, ))
#define HX_HANDLER(NAME)                                               \
  static uint32_t HX_FN(NAME)(hx_state_t * s, const hx_insn_t * x,     \
                              uint32_t pc)

/* The operands and lane state every handler may use (the compiler drops
 * what a handler does not). */
#define HX_OPERANDS                                                    \
  hrx_group_t* const g = s->g;                                         \
  hrx_wave_t* const w = s->w;                                          \
  uint64_t* const R = s->registers;                                    \
  const uint32_t L = s->lanes;                                         \
  uint64_t* const d = R + x->d;                                        \
  const uint64_t* const a = R + x->a;                                  \
  const uint64_t* const b = R + x->b;                                  \
  const uint64_t* const c = R + x->c;                                  \
  const uint64_t exec = w->exec;                                       \
  const bool one = x->scalar != 0;                                     \
  const bool full = exec == s->all;                                    \
  const uint64_t K = x->k;                                             \
  (void)g;                                                             \
  (void)w;                                                             \
  (void)R;                                                             \
  (void)L;                                                             \
  (void)exec;                                                          \
  (void)d;                                                             \
  (void)a;                                                             \
  (void)b;                                                             \
  (void)c;                                                             \
  (void)one;                                                           \
  (void)full;                                                          \
  (void)K

/* Runs BODY for each lane the instruction writes: once (l = 0) for an S
 * destination, for all lanes when the wave's mask is full, else for the
 * active lanes in order. */
#define HX_LANES(...)                                                  \
  do {                                                                 \
    if (one) {                                                         \
      const uint32_t l = 0;                                            \
      (void)l;                                                         \
      __VA_ARGS__;                                                     \
    } else if (full) {                                                 \
      for (uint32_t l = 0; l < L; ++l) {                               \
        __VA_ARGS__;                                                   \
      }                                                                \
    } else {                                                           \
      for (uint64_t m_ = exec; m_; m_ &= m_ - 1) {                     \
        const uint32_t l = (uint32_t)__builtin_ctzll(m_);              \
        (void)l;                                                       \
        __VA_ARGS__;                                                   \
      }                                                                \
    }                                                                  \
  } while (0)

/* Jumps to |T|, polling for cancellation on a backward jump. */
#define HX_JUMP(T)                                                     \
  do {                                                                 \
    const uint32_t t_ = (T);                                           \
    if (t_ <= pc && hrx_cancelled(g, pc)) {                            \
      return hx_stop(s, pc + 1, WAVE_FAULT);                           \
    }                                                                  \
    return t_;                                                         \
  } while (0)

/*===------------------------------------------------------------------===*/
/* Moves, constants, geometry                                              */
/*===------------------------------------------------------------------===*/

HX_HANDLER(end) {
  (void)x;
  return hx_stop(s, pc, WAVE_DONE);
}

HX_HANDLER(nop) {
  (void)s;
  (void)x;
  return pc + 1;
}

HX_HANDLER(broadcast) {
  HX_OPERANDS;
  const uint64_t v = a[0];
  HX_LANES(d[l] = v);
  return pc + 1;
}

HX_HANDLER(const) {
  HX_OPERANDS;
  d[0] = g->kernel->constants[x->imm];
  return pc + 1;
}

HX_HANDLER(const_v) {
  HX_OPERANDS;
  const uint64_t v = g->kernel->constants[x->imm];
  HX_LANES(d[l] = v);
  return pc + 1;
}

HX_HANDLER(arg) {
  HX_OPERANDS;
  d[0] = hrx_load_value(g->dispatch->kernarg + x->imm, (uint8_t)K);
  return pc + 1;
}

HX_HANDLER(binding) {
  HX_OPERANDS;
  d[0] = (uint64_t)x->imm << HRX_HOST_PTR_SHIFT;
  return pc + 1;
}

HX_HANDLER(workgroup_id) {
  HX_OPERANDS;
  d[0] = g->id[K];
  return pc + 1;
}

HX_HANDLER(workgroup_size) {
  HX_OPERANDS;
  d[0] = g->dispatch->workgroup_size[K];
  return pc + 1;
}

HX_HANDLER(workgroup_count) {
  HX_OPERANDS;
  d[0] = g->dispatch->workgroup_count[K];
  return pc + 1;
}

HX_HANDLER(subgroup_id) {
  HX_OPERANDS;
  d[0] = s->wave_index;
  return pc + 1;
}

HX_HANDLER(subgroup_size) {
  HX_OPERANDS;
  d[0] = L;
  return pc + 1;
}

HX_HANDLER(workitem_id) {
  HX_OPERANDS;
  /* A wave inside one row of the workgroup: x steps by lane, y and z
   * are the wave's. */
  const uint32_t* size = g->dispatch->workgroup_size;
  const uint64_t flat = (uint64_t)s->wave_index * L;
  const uint64_t x0 = flat % size[0];
  if (x0 + L > size[0]) return hx_slow(s, x, pc);
  if (K == 0) {
    HX_LANES(d[l] = x0 + l);
  } else {
    const uint64_t v = K == 1 ? flat / size[0] % size[1]
                              : flat / ((uint64_t)size[0] * size[1]);
    HX_LANES(d[l] = v);
  }
  return pc + 1;
}

HX_HANDLER(lane_id) {
  HX_OPERANDS;
  HX_LANES(d[l] = l);
  return pc + 1;
}

/*===------------------------------------------------------------------===*/
/* Lane-wise arithmetic                                                    */
/*===------------------------------------------------------------------===*/

#define HX_UNARY_HANDLER(NAME, E)                                      \
  HX_HANDLER(NAME) {                                                   \
    HX_OPERANDS;                                                       \
    HX_LANES({                                                         \
      const uint64_t v = a[l];                                         \
      d[l] = (E);                                                      \
    });                                                                \
    return pc + 1;                                                     \
  }
HX_UNARY_OPS(HX_UNARY_HANDLER)

#define HX_BINARY_HANDLERS(NAME)                                       \
  HX_HANDLER(NAME##_VV) {                                              \
    HX_OPERANDS;                                                       \
    HX_LANES(d[l] = HX_E_##NAME(a[l], b[l]));                          \
    return pc + 1;                                                     \
  }                                                                    \
  HX_HANDLER(NAME##_VS) {                                              \
    HX_OPERANDS;                                                       \
    const uint64_t y_ = b[0];                                          \
    HX_LANES(d[l] = HX_E_##NAME(a[l], y_));                            \
    return pc + 1;                                                     \
  }                                                                    \
  HX_HANDLER(NAME##_SV) {                                              \
    HX_OPERANDS;                                                       \
    const uint64_t x_ = a[0];                                          \
    HX_LANES(d[l] = HX_E_##NAME(x_, b[l]));                            \
    return pc + 1;                                                     \
  }
HX_BINARY_OPS(HX_BINARY_HANDLERS)

/* f32 add and multiply: lanes with NaN operands take the scalar
 * operation (see hx_scalar_fadd). */
#define HX_FLOAT_HANDLER(NAME, OPERATOR, SCALAR, X, Y)                 \
  HX_HANDLER(NAME) {                                                   \
    HX_OPERANDS;                                                       \
    const uint64_t a_ = a[0], b_ = b[0];                               \
    (void)a_;                                                          \
    (void)b_;                                                          \
    uint32_t nan_ = 0;                                                 \
    HX_LANES(nan_ |= HX_NAN_BITS(X) | HX_NAN_BITS(Y));                 \
    if (nan_ >> 31) {                                                  \
      HX_LANES(d[l] = SCALAR(X, Y));                                   \
    } else {                                                           \
      HX_LANES(d[l] = hrx_from_f32(hrx_f32(X) OPERATOR hrx_f32(Y)));   \
    }                                                                  \
    return pc + 1;                                                     \
  }
#define HX_FLOAT_HANDLERS(NAME, OPERATOR, SCALAR)                      \
  HX_FLOAT_HANDLER(NAME##_VV, OPERATOR, SCALAR, a[l], b[l])            \
  HX_FLOAT_HANDLER(NAME##_VS, OPERATOR, SCALAR, a[l], b_)              \
  HX_FLOAT_HANDLER(NAME##_SV, OPERATOR, SCALAR, a_, b[l])
HX_FLOAT_OPS(HX_FLOAT_HANDLERS)

/* Unsigned-range division: dividends in [0, 2^31) and divisors in
 * [1, 2^31) (checked for the wave, else the reference) give the same
 * quotient and remainder signed or unsigned, and the double quotient
 * truncates to the exact integer one (its error is far below the distance
 * to the next integer); a power-of-two divisor is a shift or a mask. */
#define HX_DIVIDE_HANDLERS(NAME, QUOTIENT)                             \
  HX_HANDLER(NAME##_VV) {                                              \
    HX_OPERANDS;                                                       \
    uint64_t bits = 0;                                                 \
    HX_LANES(bits |= a[l] | (b[l] - 1));                               \
    if (bits >> 31) return hx_slow(s, x, pc);                          \
    HX_LANES({                                                         \
      const uint64_t q = (uint64_t)(int32_t)((double)(int32_t)a[l] /   \
                                             (double)(int32_t)b[l]);   \
      d[l] = QUOTIENT ? q : a[l] - q * b[l];                           \
    });                                                                \
    return pc + 1;                                                     \
  }                                                                    \
  HX_HANDLER(NAME##_VS) {                                              \
    HX_OPERANDS;                                                       \
    const uint64_t y = b[0];                                           \
    uint64_t bits = y - 1;                                             \
    HX_LANES(bits |= a[l]);                                            \
    if (bits >> 31) return hx_slow(s, x, pc);                          \
    if ((y & (y - 1)) == 0) {                                          \
      const uint32_t shift = (uint32_t)__builtin_ctzll(y);             \
      HX_LANES(d[l] = QUOTIENT ? a[l] >> shift : a[l] & (y - 1));      \
      return pc + 1;                                                   \
    }                                                                  \
    const double dy = (double)(int32_t)y;                              \
    HX_LANES({                                                         \
      const uint64_t q =                                               \
          (uint64_t)(int32_t)((double)(int32_t)a[l] / dy);             \
      d[l] = QUOTIENT ? q : a[l] - q * y;                              \
    });                                                                \
    return pc + 1;                                                     \
  }
HX_DIVIDE_HANDLERS(IDIV, true)
HX_DIVIDE_HANDLERS(IREM, false)

/* The eight operand forms of a ternary op: FORM(name, x, y, z) with each
 * operand either the lane's value or the S register's. */
#define HX_TERNARY_HANDLERS(NAME)                                      \
  HX_##NAME##_FORM(NAME, a[l], b[l], c[l])                             \
  HX_##NAME##_FORM(NAME##_1, a_, b[l], c[l])                           \
  HX_##NAME##_FORM(NAME##_2, a[l], b_, c[l])                           \
  HX_##NAME##_FORM(NAME##_3, a_, b_, c[l])                             \
  HX_##NAME##_FORM(NAME##_4, a[l], b[l], c_)                           \
  HX_##NAME##_FORM(NAME##_5, a_, b[l], c_)                             \
  HX_##NAME##_FORM(NAME##_6, a[l], b_, c_)                             \
  HX_##NAME##_FORM(NAME##_7, a_, b_, c_)

#define HX_TERNARY_OPERANDS                                            \
  HX_OPERANDS;                                                         \
  const uint64_t a_ = a[0], b_ = b[0], c_ = c[0];                      \
  (void)a_;                                                            \
  (void)b_;                                                            \
  (void)c_

#define HX_MADD64_FORM(NAME, X, Y, Z)                                  \
  HX_HANDLER(NAME) {                                                   \
    HX_TERNARY_OPERANDS;                                               \
    HX_LANES(d[l] = (X) * (Y) + (Z));                                  \
    return pc + 1;                                                     \
  }

#define HX_MADD32_FORM(NAME, X, Y, Z)                                  \
  HX_HANDLER(NAME) {                                                   \
    HX_TERNARY_OPERANDS;                                               \
    HX_LANES(d[l] = HX_SEXT32((X) * (Y) + (Z)));                       \
    return pc + 1;                                                     \
  }

#define HX_SELECT_FORM(NAME, X, Y, Z)                                  \
  HX_HANDLER(NAME) {                                                   \
    HX_TERNARY_OPERANDS;                                               \
    HX_LANES(d[l] = (X) ? (Y) : (Z));                                  \
    return pc + 1;                                                     \
  }

/* Address linearisation: factors in [-2^31, 2^31) and an addend in
 * [-2^62, 2^62) cannot overflow (nor be the poison index), so a plain
 * multiply-add is hrx_host_index_madd's result; anything else goes to the
 * reference. */
#define HX_MADD_ADDRESS_FORM(NAME, X, Y, Z)                            \
  HX_HANDLER(NAME) {                                                   \
    HX_TERNARY_OPERANDS;                                               \
    uint64_t bad_ = 0;                                                 \
    HX_LANES(bad_ |= (((X) + (UINT64_C(1) << 31)) |                    \
                      ((Y) + (UINT64_C(1) << 31))) >> 32 |             \
                     ((Z) + (UINT64_C(1) << 62)) >> 63);               \
    if (bad_) return hx_slow(s, x, pc);                                \
    HX_LANES(d[l] = (uint64_t)((int64_t)(int32_t)(X) *                 \
                               (int64_t)(int32_t)(Y)) + (Z));          \
    return pc + 1;                                                     \
  }

#define HX_FMA32_FORM(NAME, X, Y, Z)                                   \
  HX_HANDLER(NAME) {                                                   \
    HX_TERNARY_OPERANDS;                                               \
    uint32_t nan_ = 0;                                                 \
    HX_LANES(nan_ |= HX_NAN_BITS(X) | HX_NAN_BITS(Y) | HX_NAN_BITS(Z)); \
    if (nan_ >> 31) {                                                  \
      HX_LANES(d[l] = hx_scalar_fma(X, Y, Z));                         \
    } else {                                                           \
      HX_LANES(d[l] = hrx_from_f32(                                    \
                   HX_FMAF(hrx_f32(X), hrx_f32(Y), hrx_f32(Z))));      \
    }                                                                  \
    return pc + 1;                                                     \
  }
HX_TERNARY_OPS(HX_TERNARY_HANDLERS)

/*===------------------------------------------------------------------===*/
/* Memory                                                                  */
/*===------------------------------------------------------------------===*/

HX_HANDLER(ptr_add_vv) {
  HX_OPERANDS;
  HX_LANES(d[l] = hrx_ptr_add(a[l], (int64_t)b[l], (int64_t)x->imm));
  return pc + 1;
}

HX_HANDLER(ptr_add_vs) {
  HX_OPERANDS;
  const int64_t index = (int64_t)b[0];
  HX_LANES(d[l] = hrx_ptr_add(a[l], index, (int64_t)x->imm));
  return pc + 1;
}

/* One base: when the extreme indices land inside [0, 2^48), every lane's
 * does (the offset grows with the index), and the pointer is the base
 * plus the scaled index. Indices in [0, 2^31) are bounded by their OR;
 * others take the exact extremes. */
static inline bool HX_FN(ptr_add_fits)(hx_state_t* s, const hx_insn_t* x,
                                       uint64_t p, bool* small) {
  HX_OPERANDS;
  const int64_t offset = (int64_t)(p & HRX_HOST_OFFSET_MASK);
  const int64_t scale = (int64_t)x->imm;
  if (offset == (int64_t)HRX_HOST_OFFSET_MASK) return false;
  uint64_t bits = 0;
  HX_LANES(bits |= b[l]);
  *small = (bits >> 31) == 0;
  if (*small &&
      (uint64_t)offset + bits * (uint64_t)scale <= HRX_HOST_OFFSET_MASK) {
    return true;
  }
  int64_t low = INT64_MAX, high = INT64_MIN;
  HX_LANES({
    const int64_t v = (int64_t)b[l];
    low = v < low ? v : low;
    high = v > high ? v : high;
  });
  int64_t low_bytes, high_bytes, first, last;
  return low <= high && !__builtin_mul_overflow(low, scale, &low_bytes) &&
         !__builtin_mul_overflow(high, scale, &high_bytes) &&
         !__builtin_add_overflow(offset, low_bytes, &first) &&
         !__builtin_add_overflow(offset, high_bytes, &last) && first >= 0 &&
         last <= (int64_t)HRX_HOST_OFFSET_MASK;
}

/* Indices in [0, 2^31) with a 32-bit scale multiply as 32 x 32 bits (a
 * product the compiler vectorises); others in 64 bits. */
HX_HANDLER(ptr_add_sv) {
  HX_OPERANDS;
  const uint64_t p = a[0];
  bool small;
  if (!HX_FN(ptr_add_fits)(s, x, p, &small)) return hx_slow(s, x, pc);
  const uint64_t scale = x->imm;
  if (small) {
    HX_LANES(d[l] = p + (uint64_t)(uint32_t)b[l] * (uint32_t)scale);
  } else {
    HX_LANES(d[l] = p + b[l] * scale);
  }
  return pc + 1;
}

HX_HANDLER(ptr_add_sv_shift) {
  HX_OPERANDS;
  const uint64_t p = a[0];
  bool small;
  if (!HX_FN(ptr_add_fits)(s, x, p, &small)) return hx_slow(s, x, pc);
  HX_LANES(d[l] = p + (b[l] << K));
  return pc + 1;
}

/* A load of |BYTES|-byte values, READ(raw) turning the bytes (as an
 * unsigned integer) into the register value. A full wave whose pointers
 * step by 0 (one value for all), by BYTES (contiguous) or by a word of 4
 * or 8 bytes (the value at the start of each word, where the words are in
 * bounds too) is read with plain array loops; anything else goes lane by
 * lane after one bounds check for the wave. */
#define HX_LOAD_HANDLER(NAME, BYTES, CTYPE, READ)                      \
  HX_HANDLER(NAME) {                                                   \
    HX_OPERANDS;                                                       \
    hx_affine_t f_;                                                    \
    if (full && !one && hx_affine(g, a, L, &f_)) {                     \
      if (f_.stride == BYTES && hx_affine_fits(&f_, L, BYTES, BYTES)) { \
        for (uint32_t l = 0; l < L; ++l) {                             \
          CTYPE v_;                                                    \
          memcpy(&v_, f_.at + (size_t)l * BYTES, BYTES);               \
          d[l] = READ(v_);                                             \
        }                                                              \
        return pc + 1;                                                 \
      }                                                                \
      if (f_.stride == 0 && hx_affine_fits(&f_, L, 0, BYTES)) {        \
        CTYPE v_;                                                      \
        memcpy(&v_, f_.at, BYTES);                                     \
        const uint64_t value_ = READ(v_);                              \
        for (uint32_t l = 0; l < L; ++l) d[l] = value_;                \
        return pc + 1;                                                 \
      }                                                                \
      if (HX_LITTLE_ENDIAN && BYTES < 8 && f_.stride == 8 &&           \
          hx_affine_fits(&f_, L, 8, 8)) {                              \
        for (uint32_t l = 0; l < L; ++l) {                             \
          uint64_t v_;                                                 \
          memcpy(&v_, f_.at + (size_t)l * 8, 8);                       \
          d[l] = READ((CTYPE)v_);                                      \
        }                                                              \
        return pc + 1;                                                 \
      }                                                                \
      if (HX_LITTLE_ENDIAN && BYTES < 4 && f_.stride == 4 &&           \
          hx_affine_fits(&f_, L, 4, 4)) {                              \
        for (uint32_t l = 0; l < L; ++l) {                             \
          uint32_t v_;                                                 \
          memcpy(&v_, f_.at + (size_t)l * 4, 4);                       \
          d[l] = READ((CTYPE)v_);                                      \
        }                                                              \
        return pc + 1;                                                 \
      }                                                                \
    }                                                                  \
    const uint8_t* base_ = hx_span(g, a, one, full, exec, L, BYTES);   \
    if (!base_) return hx_slow(s, x, pc);                              \
    HX_LANES({                                                         \
      CTYPE v_;                                                        \
      memcpy(&v_, base_ + (a[l] & HRX_HOST_OFFSET_MASK), BYTES);       \
      d[l] = READ(v_);                                                 \
    });                                                                \
    return pc + 1;                                                     \
  }
HX_LOAD_OPS(HX_LOAD_HANDLER)

/* A store of |BYTES| per lane. A full wave writing consecutive elements
 * is one array copy; one writing a single element leaves the last lane's
 * value (lanes store in order). Else lane by lane, in order, after one
 * bounds check for the wave. */
#define HX_STORE_HANDLER(NAME, BYTES, CTYPE)                           \
  HX_HANDLER(NAME) {                                                   \
    HX_OPERANDS;                                                       \
    const uint64_t* v_ = b;                                            \
    if (x->files & 2) {                                                \
      const uint64_t value_ = b[0];                                    \
      for (uint32_t l = 0; l < L; ++l) s->temp[l] = value_;            \
      v_ = s->temp;                                                    \
    }                                                                  \
    hx_affine_t f_;                                                    \
    if (full && hx_affine(g, a, L, &f_)) {                             \
      if (f_.stride == BYTES && hx_affine_fits(&f_, L, BYTES, BYTES)) { \
        for (uint32_t l = 0; l < L; ++l) {                             \
          const CTYPE e_ = (CTYPE)v_[l];                               \
          memcpy(f_.at + (size_t)l * BYTES, &e_, BYTES);               \
        }                                                              \
        return pc + 1;                                                 \
      }                                                                \
      if (f_.stride == 0 && hx_affine_fits(&f_, L, 0, BYTES)) {        \
        const CTYPE e_ = (CTYPE)v_[L - 1];                             \
        memcpy(f_.at, &e_, BYTES);                                     \
        return pc + 1;                                                 \
      }                                                                \
    }                                                                  \
    uint8_t* base_ = hx_span(g, a, false, full, exec, L, BYTES);       \
    if (!base_) return hx_slow(s, x, pc);                              \
    HX_LANES({                                                         \
      const CTYPE e_ = (CTYPE)v_[l];                                   \
      memcpy(base_ + (a[l] & HRX_HOST_OFFSET_MASK), &e_, BYTES);       \
    });                                                                \
    return pc + 1;                                                     \
  }
HX_STORE_OPS(HX_STORE_HANDLER)

/*===------------------------------------------------------------------===*/
/* Subgroup                                                                */
/*===------------------------------------------------------------------===*/

/* SHUFFLE and SHUFFLE_OK (K: mode, 0x100 for SHUFFLE_OK) with an S offset
 * and width, as the reference computes them: every active lane reads its
 * source before any writes. Offsets beyond +-2^30 go to the reference. */
HX_HANDLER(shuffle) {
  HX_OPERANDS;
  const int64_t offset = (int64_t)b[0];
  int64_t width = (int64_t)c[0];
  if (offset < -(INT64_C(1) << 30) || offset > (INT64_C(1) << 30)) {
    return hx_slow(s, x, pc);
  }
  if (width <= 0 || width > (int64_t)L) width = L;
  const uint32_t mode = (uint32_t)(K & 0xFF);
  const bool ok = (K & 0x100) != 0;
  const size_t sa = (x->files & 1) ? 0 : 1;
  uint64_t* const t = s->temp;
  HX_LANES({
    const int64_t local = (int64_t)l % width, base = (int64_t)l - local;
    const int64_t source = mode == HRX_HOST_SHUFFLE_XOR    ? local ^ offset
                           : mode == HRX_HOST_SHUFFLE_UP   ? local - offset
                           : mode == HRX_HOST_SHUFFLE_DOWN ? local + offset
                                                           : offset;
    const bool valid = source >= 0 && source < width;
    t[l] = ok ? (uint64_t)valid
              : valid ? a[(size_t)(base + source) * sa] : a[l * sa];
  });
  HX_LANES(d[l] = t[l]);
  return pc + 1;
}

/*===------------------------------------------------------------------===*/
/* Fused pairs (hx_fuse)                                                   */
/*===------------------------------------------------------------------===*/

/* PTR_ADD |x| (S base, V index, dead pointer) followed by an access of
 * |bytes| through its result: when a full wave's pointers would all be
 * equal or consecutive elements (the index steps by 0, or by |bytes| /
 * scale) and every access lies in the base's slot, the host address of
 * lane 0's element (*consecutive set); else NULL, and PTR_ADD runs alone.
 * Every lane's pointer would then have been in range, so the access is
 * exactly the unfused pair's. */
static inline uint8_t* HX_FN(ptr_span)(hx_state_t* s, const hx_insn_t* x,
                                      uint64_t bytes, bool* consecutive) {
  HX_OPERANDS;
  if (!full) return NULL;
  const uint64_t p = a[0], step = b[1] - b[0], scale = x->imm;
  if (step > 8 || (step && step * scale != bytes)) return NULL;
  uint64_t diff = 0;
  for (uint32_t l = 1; l < L; ++l) diff |= (b[l] - b[l - 1]) ^ step;
  if (diff || b[0] >> 31) return NULL;
  uint8_t* base;
  uint64_t size;
  const uint64_t first = (p & HRX_HOST_OFFSET_MASK) + b[0] * scale;
  const uint64_t reach = (step ? bytes * (L - 1) : 0) + bytes;
  if (!hrx_slot_extent(g, p >> HRX_HOST_PTR_SHIFT, &base, &size) ||
      (p & HRX_HOST_OFFSET_MASK) == HRX_HOST_OFFSET_MASK || first > size ||
      size - first < reach) {
    return NULL;
  }
  *consecutive = step != 0;
  return base + first;
}

#define HX_PTR_LOAD_HANDLER(NAME, BYTES, CTYPE, READ)                  \
  HX_HANDLER(PTR_##NAME) {                                             \
    bool stride_;                                                      \
    const uint8_t* at_ = HX_FN(ptr_span)(s, x, BYTES, &stride_);       \
    if (!at_) return HX_FN(ptr_add_sv)(s, x, pc);                      \
    uint64_t* const d_ = s->registers + x[1].d;                        \
    const uint32_t L = s->lanes;                                       \
    if (stride_) {                                                     \
      for (uint32_t l = 0; l < L; ++l) {                               \
        CTYPE v_;                                                      \
        memcpy(&v_, at_ + (size_t)l * BYTES, BYTES);                   \
        d_[l] = READ(v_);                                              \
      }                                                                \
    } else {                                                           \
      CTYPE v_;                                                        \
      memcpy(&v_, at_, BYTES);                                         \
      const uint64_t value_ = READ(v_);                                \
      for (uint32_t l = 0; l < L; ++l) d_[l] = value_;                 \
    }                                                                  \
    return pc + 2;                                                     \
  }
HX_LOAD_OPS(HX_PTR_LOAD_HANDLER)

/* Lanes store in order: when all write one element, the last one's value
 * stays. */
#define HX_PTR_STORE_HANDLER(NAME, BYTES, CTYPE)                       \
  HX_HANDLER(PTR_##NAME) {                                             \
    bool stride_;                                                      \
    uint8_t* at_ = HX_FN(ptr_span)(s, x, BYTES, &stride_);             \
    if (!at_) return HX_FN(ptr_add_sv)(s, x, pc);                      \
    const uint64_t* const v_ = s->registers + x[1].b;                  \
    const uint32_t L = s->lanes;                                       \
    if (x[1].files & 2) {                                              \
      const CTYPE e_ = (CTYPE)v_[0];                                   \
      for (uint32_t l = 0; l < (stride_ ? L : 1); ++l) {               \
        memcpy(at_ + (size_t)l * BYTES, &e_, BYTES);                   \
      }                                                                \
    } else if (stride_) {                                              \
      for (uint32_t l = 0; l < L; ++l) {                               \
        const CTYPE e_ = (CTYPE)v_[l];                                 \
        memcpy(at_ + (size_t)l * BYTES, &e_, BYTES);                   \
      }                                                                \
    } else {                                                           \
      const CTYPE e_ = (CTYPE)v_[L - 1];                               \
      memcpy(at_, &e_, BYTES);                                         \
    }                                                                  \
    return pc + 2;                                                     \
  }
HX_STORE_OPS(HX_PTR_STORE_HANDLER)

/* Address IMADD |x| (V a, S b, S c, dead result) and the PTR_ADD |x + 1|
 * (S base) of its result: when the IMADD's fast path applies and every
 * index is in [0, 2^31) with the scaled OR of the indices inside [0,
 * 2^48) from the base, the pointers are base + index * scale; else the
 * IMADD runs alone. */
HX_HANDLER(address_ptr) {
  HX_OPERANDS;
  const hx_insn_t* const y = x + 1;
  const uint64_t factor = b[0], addend = c[0], p = R[y->a];
  const uint64_t scale = y->imm;
  uint64_t bad = ((factor + (UINT64_C(1) << 31)) >> 32) |
                 ((addend + (UINT64_C(1) << 62)) >> 63);
  uint64_t bits = 0;
  HX_LANES({
    bad |= (a[l] + (UINT64_C(1) << 31)) >> 32;
    bits |= (uint64_t)((int64_t)(int32_t)a[l] * (int64_t)(int32_t)factor) +
            addend;
  });
  const uint64_t offset = p & HRX_HOST_OFFSET_MASK;
  if (bad || bits >> 31 || offset == HRX_HOST_OFFSET_MASK ||
      offset + bits * scale > HRX_HOST_OFFSET_MASK) {
    return HX_FN(MADD_ADDRESS_6)(s, x, pc);
  }
  /* Indices in [0, 2^31) and a 32-bit scale: a 32 x 32-bit product. */
  uint64_t* const pointer = R + y->d;
  HX_LANES(pointer[l] =
               p + (uint64_t)(uint32_t)((uint64_t)((int64_t)(int32_t)a[l] *
                                                   (int64_t)(int32_t)factor) +
                                        addend) *
                       (uint32_t)scale);
  return pc + 2;
}

/*===------------------------------------------------------------------===*/
/* Control                                                                 */
/*===------------------------------------------------------------------===*/

/* The lanes whose condition operand |a| is nonzero. */
static inline uint64_t HX_FN(condition)(const hx_state_t* s,
                                        const hx_insn_t* x,
                                        const uint64_t* a) {
  if (x->files & 1) return a[0] ? s->all : 0;
  uint64_t mask = 0;
#ifdef HX_AVX2
  for (uint32_t l = 0; l < s->lanes; l += 4) {
    const __m256i v = _mm256_loadu_si256((const __m256i*)(a + l));
    const __m256i zero = _mm256_cmpeq_epi64(v, _mm256_setzero_si256());
    const uint32_t bits =
        (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(zero));
    mask |= (uint64_t)(~bits & 0xFu) << l;
  }
#else
  for (uint32_t l = 0; l < s->lanes; ++l) {
    mask |= (uint64_t)(a[l] != 0) << l;
  }
#endif
  return mask;
}

HX_HANDLER(jmp) {
  HX_OPERANDS;
  HX_JUMP(x->imm);
}

HX_HANDLER(brz) {
  HX_OPERANDS;
  if (a[0] == 0) HX_JUMP(x->imm);
  return pc + 1;
}

HX_HANDLER(brnz) {
  HX_OPERANDS;
  if (a[0] != 0) HX_JUMP(x->imm);
  return pc + 1;
}

HX_HANDLER(if) {
  HX_OPERANDS;
  if (w->depth == HRX_HOST_MAX_MASK_DEPTH) return hx_slow(s, x, pc);
  const uint64_t cond = HX_FN(condition)(s, x, a);
  w->stack[w->depth++] = exec;
  w->exec = exec & cond;
  if (!w->exec) HX_JUMP(x->imm);
  return pc + 1;
}

HX_HANDLER(else) {
  HX_OPERANDS;
  if (w->depth == 0) return hx_slow(s, x, pc);
  const uint64_t cond = HX_FN(condition)(s, x, a);
  w->exec = w->stack[w->depth - 1] & ~cond;
  if (!w->exec) HX_JUMP(x->imm);
  return pc + 1;
}

HX_HANDLER(endif) {
  HX_OPERANDS;
  if (w->depth == 0) return hx_slow(s, x, pc);
  w->exec = w->stack[--w->depth];
  return pc + 1;
}

HX_HANDLER(loop_begin) {
  HX_OPERANDS;
  if (w->depth == HRX_HOST_MAX_MASK_DEPTH) return hx_slow(s, x, pc);
  w->stack[w->depth++] = exec;
  return pc + 1;
}

HX_HANDLER(loop_test) {
  HX_OPERANDS;
  const uint64_t cond = HX_FN(condition)(s, x, a);
  if (exec & cond) {
    w->exec = exec & cond;
    return pc + 1;
  }
  if (w->depth == 0) return hx_slow(s, x, pc);
  w->exec = w->stack[--w->depth];
  HX_JUMP(x->imm);
}

HX_HANDLER(ret) {
  (void)x;
  return hx_stop(s, pc + 1, WAVE_DONE);
}

/*===------------------------------------------------------------------===*/
/* The table                                                               */
/*===------------------------------------------------------------------===*/

#define HX_ENTRY(NAME, ...) [HX_##NAME] = HX_FN(NAME),
#define HX_ENTRY_PTR(NAME, ...) [HX_PTR_##NAME] = HX_FN(PTR_##NAME),
#define HX_ENTRY3(NAME, ...)                                           \
  [HX_##NAME##_VV] = HX_FN(NAME##_VV),                                 \
  [HX_##NAME##_VS] = HX_FN(NAME##_VS),                                 \
  [HX_##NAME##_SV] = HX_FN(NAME##_SV),
#define HX_ENTRY8(NAME)                                                \
  [HX_##NAME] = HX_FN(NAME), [HX_##NAME##_1] = HX_FN(NAME##_1),        \
  [HX_##NAME##_2] = HX_FN(NAME##_2), [HX_##NAME##_3] = HX_FN(NAME##_3), \
  [HX_##NAME##_4] = HX_FN(NAME##_4), [HX_##NAME##_5] = HX_FN(NAME##_5), \
  [HX_##NAME##_6] = HX_FN(NAME##_6), [HX_##NAME##_7] = HX_FN(NAME##_7),

static const hx_handler_t HX_FN(handlers)[HX_OP_COUNT] = {
    [HX_SLOW] = hx_slow,
    [HX_END] = HX_FN(end),
    [HX_NOP] = HX_FN(nop),
    [HX_BROADCAST] = HX_FN(broadcast),
    [HX_CONST] = HX_FN(const),
    [HX_CONST_V] = HX_FN(const_v),
    [HX_ARG] = HX_FN(arg),
    [HX_BINDING] = HX_FN(binding),
    [HX_WORKGROUP_ID] = HX_FN(workgroup_id),
    [HX_WORKGROUP_SIZE] = HX_FN(workgroup_size),
    [HX_WORKGROUP_COUNT] = HX_FN(workgroup_count),
    [HX_SUBGROUP_ID] = HX_FN(subgroup_id),
    [HX_SUBGROUP_SIZE] = HX_FN(subgroup_size),
    [HX_WORKITEM_ID] = HX_FN(workitem_id),
    [HX_LANE_ID] = HX_FN(lane_id),
    HX_UNARY_OPS(HX_ENTRY)
    HX_BINARY_OPS(HX_ENTRY3)
    HX_FLOAT_OPS(HX_ENTRY3)
    [HX_IDIV_VV] = HX_FN(IDIV_VV),
    [HX_IDIV_VS] = HX_FN(IDIV_VS),
    [HX_IREM_VV] = HX_FN(IREM_VV),
    [HX_IREM_VS] = HX_FN(IREM_VS),
    HX_TERNARY_OPS(HX_ENTRY8)
    [HX_PTR_ADD_VV] = HX_FN(ptr_add_vv),
    [HX_PTR_ADD_VS] = HX_FN(ptr_add_vs),
    [HX_PTR_ADD_SV] = HX_FN(ptr_add_sv),
    [HX_PTR_ADD_SV_SHIFT] = HX_FN(ptr_add_sv_shift),
    HX_LOAD_OPS(HX_ENTRY)
    HX_STORE_OPS(HX_ENTRY)
    HX_LOAD_OPS(HX_ENTRY_PTR)
    HX_STORE_OPS(HX_ENTRY_PTR)
    [HX_ADDRESS_PTR] = HX_FN(address_ptr),
    [HX_SHUFFLE] = HX_FN(shuffle),
    [HX_JMP] = HX_FN(jmp),
    [HX_BRZ] = HX_FN(brz),
    [HX_BRNZ] = HX_FN(brnz),
    [HX_IF] = HX_FN(if),
    [HX_ELSE] = HX_FN(else),
    [HX_ENDIF] = HX_FN(endif),
    [HX_LOOP_BEGIN] = HX_FN(loop_begin),
    [HX_LOOP_TEST] = HX_FN(loop_test),
    [HX_RET] = HX_FN(ret),
};

#undef HX_CAT3
#undef HX_CAT2
#undef HX_FN
#undef HX_HANDLER
#undef HX_OPERANDS
#undef HX_LANES
#undef HX_JUMP
#undef HX_UNARY_HANDLER
#undef HX_BINARY_HANDLERS
#undef HX_FLOAT_HANDLER
#undef HX_FLOAT_HANDLERS
#undef HX_DIVIDE_HANDLERS
#undef HX_TERNARY_HANDLERS
#undef HX_TERNARY_OPERANDS
#undef HX_MADD64_FORM
#undef HX_MADD32_FORM
#undef HX_SELECT_FORM
#undef HX_MADD_ADDRESS_FORM
#undef HX_FMA32_FORM
#undef HX_LOAD_HANDLER
#undef HX_STORE_HANDLER
#undef HX_ENTRY
#undef HX_ENTRY_PTR
#undef HX_PTR_LOAD_HANDLER
#undef HX_PTR_STORE_HANDLER
#undef HX_ENTRY3
#undef HX_ENTRY8
