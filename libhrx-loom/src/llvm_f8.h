/* The 8-bit float storage types in LLVM IR: values are i8 (vectors of
 * i8), and the conversions are integer code plus one exact float add or
 * multiply, since neither the host's x86-64 nor gfx11 converts f8 in
 * hardware. Bit for bit as hrx/core/f8.h converts (tests/loom checks every
 * encoding against it on each backend). */
#ifndef HRX_LOOM_LLVM_F8_H_
#define HRX_LOOM_LLVM_F8_H_

#include "llvm_lower.h"

/* |x| (i8 or a vector of i8) of f8 kind |kind| widened to f32 (or a
 * vector of f32). */
LLVMValueRef llvm_f8_widen(llvm_lower_t* l, LLVMValueRef x,
                           loom_type_kind_t kind);

/* |x| (f32 or a vector of f32) narrowed to f8 kind |kind|: nearest even,
 * no saturation. */
LLVMValueRef llvm_f8_narrow(llvm_lower_t* l, LLVMValueRef x,
                            loom_type_kind_t kind);

#endif /* HRX_LOOM_LLVM_F8_H_ */
