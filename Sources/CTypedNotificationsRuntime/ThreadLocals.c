#include "ThreadLocals.h"

static _Thread_local int lockDepth = 0;

int tn_thread_lock_depth(void) { return lockDepth; }

void tn_thread_lock_depth_add(int delta) { lockDepth += delta; }

static _Thread_local void *postFrame = 0;

void *tn_post_frame(void) { return postFrame; }

void tn_set_post_frame(void *frame) { postFrame = frame; }

static _Thread_local const void *newestToken = 0;

const void *tn_newest_token(void) { return newestToken; }

void tn_set_newest_token(const void *token) { newestToken = token; }

const void *tn_thread_marker(void) { return &newestToken; }

static _Thread_local const void *pendingDeliveries = 0;

const void *tn_pending_deliveries(void) { return pendingDeliveries; }

void tn_set_pending_deliveries(const void *pending) { pendingDeliveries = pending; }
