#ifndef TYPED_NOTIFICATIONS_BENCHMARKS_HEAP_STATS_H
#define TYPED_NOTIFICATIONS_BENCHMARKS_HEAP_STATS_H

#include <stddef.h>

/// Bytes currently allocated by malloc in this process (glibc: `mallinfo2().uordblks`, Darwin: `mstats().bytes_used`),
/// or 0 where unknown. Used to measure the memory one observation keeps alive.
size_t tn_heap_bytes_in_use(void);

#endif
