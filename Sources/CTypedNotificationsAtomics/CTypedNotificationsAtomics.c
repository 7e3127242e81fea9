#include "CTypedNotificationsAtomics.h"

static _Thread_local int lockDepth = 0;

int tn_thread_lock_depth(void) { return lockDepth; }

void tn_thread_lock_depth_add(int delta) { lockDepth += delta; }

static _Thread_local void *postFrame = 0;

void *tn_post_frame(void) { return postFrame; }

void tn_set_post_frame(void *frame) { postFrame = frame; }

static _Atomic(uint64_t) lastThreadNumber = 0;
static _Thread_local uint64_t threadNumber = 0;
static _Thread_local uint64_t lastPostNumber = 0;

uint64_t tn_thread_number(void) {
    if (threadNumber == 0) {
        threadNumber = atomic_fetch_add_explicit(&lastThreadNumber, 1, memory_order_relaxed) + 1;
    }
    return threadNumber;
}

uint64_t tn_next_post_number(void) { return ++lastPostNumber; }
