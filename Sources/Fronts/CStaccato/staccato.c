/* The C ABI's declarations (include/staccato.h), as a module the Swift definitions (StaccatoC)
 * import, so that they build on the header's own types. The definitions are Swift's. */
#include "staccato.h"
