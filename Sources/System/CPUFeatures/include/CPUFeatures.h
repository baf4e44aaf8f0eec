#ifndef STACCATO_CPU_FEATURES_H
#define STACCATO_CPU_FEATURES_H

/// 1 when this CPU and the operating system can run AVX2 and FMA code (the CPU has the instructions
/// and the kernel saves the 256-bit registers), else 0; always 0 off x86-64.
int staccato_cpu_supports_avx2_fma(void);

/// 1 when this CPU and the operating system can run the AVX-512 code the sampler kernels are built
/// for (AVX2 and FMA, and AVX-512 F, VL, BW and DQ, with the mask and 512-bit state saved), else 0;
/// always 0 off x86-64.
int staccato_cpu_supports_avx512(void);

#endif
