#include "CHeapStats.h"

#if defined(__APPLE__)
#include <malloc/malloc.h>
size_t tn_heap_bytes_in_use(void) { return mstats().bytes_used; }
#elif defined(__linux__)
#include <malloc.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
size_t tn_heap_bytes_in_use(void) { return mallinfo2().uordblks; }
#else
size_t tn_heap_bytes_in_use(void) { return 0; }
#endif
#else
size_t tn_heap_bytes_in_use(void) { return 0; }
#endif
