// Thread-local state of TypedNotifications, one slot per purpose: C's `_Thread_local`, since Swift has no
// thread-local storage of its own (and `Thread.threadDictionary` is a Foundation call and a dictionary lookup).
#ifndef C_TYPED_NOTIFICATIONS_RUNTIME_THREAD_LOCALS_H
#define C_TYPED_NOTIFICATIONS_RUNTIME_THREAD_LOCALS_H

/// How many of the package's locks the calling thread holds; kept in debug builds to assert that the package never
/// calls Foundation or user code while holding one.
int tn_thread_lock_depth(void);
void tn_thread_lock_depth_add(int delta);

/// The record of the innermost typed post that the calling thread is handing to Foundation (on its stack), or NULL;
/// see `FoundationBridge`.
void *tn_post_frame(void);
void tn_set_post_frame(void *frame);

/// The newest `NotificationToken` the calling thread made, for the debug report of a discarded token, and an address
/// unique to the calling thread while it runs, for that report and for the thread that made a channel.
const void *tn_newest_token(void);
void tn_set_newest_token(const void *token);
const void *tn_thread_marker(void);

/// The `PendingDeliveries` that posts made on the calling thread report their queued deliveries to, or NULL: set
/// while the closure given to `awaitDelivery` runs, and while a coalesced burst joined by such posts is delivered.
const void *tn_pending_deliveries(void);
void tn_set_pending_deliveries(const void *pending);

#endif
