#ifndef STACCATO_CPU_FEATURES_H
#define STACCATO_CPU_FEATURES_H

/// 1 when this CPU and the operating system can run AVX2 and FMA code (the CPU has the instructions
/// and the kernel saves the 256-bit registers), else 0; always 0 off x86-64.
int staccato_cpu_supports_avx2_fma(void);

#endif
