#ifndef STACCATO_CSNDFILE_SHIM_H
#define STACCATO_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
