// C11 atomics for TypedNotifications.
//
// Swift's own atomics (`Synchronization.Atomic`) need macOS 15 / iOS 18, above the package's floor, so the package
// uses these instead, on every platform: the same code on Linux, Apple platforms and the simulated-Apple build, and
// ThreadSanitizer understands C11 atomics. The functions are `static inline`, so that Swift inlines them.
//
// Each function takes a pointer to plain, naturally aligned storage that the caller allocated for it and only ever
// accesses through these functions.
#ifndef C_TYPED_NOTIFICATIONS_RUNTIME_ATOMICS_H
#define C_TYPED_NOTIFICATIONS_RUNTIME_ATOMICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

static inline uint64_t tn_atomic_load_acquire(uint64_t *storage) {
    return atomic_load_explicit((_Atomic(uint64_t) *)storage, memory_order_acquire);
}

static inline uint64_t tn_atomic_load_relaxed(uint64_t *storage) {
    return atomic_load_explicit((_Atomic(uint64_t) *)storage, memory_order_relaxed);
}

static inline void tn_atomic_store_release(uint64_t *storage, uint64_t value) {
    atomic_store_explicit((_Atomic(uint64_t) *)storage, value, memory_order_release);
}


/// Returns the value before the addition.
static inline uint64_t tn_atomic_fetch_add(uint64_t *storage, uint64_t delta) {
    return atomic_fetch_add_explicit((_Atomic(uint64_t) *)storage, delta, memory_order_acq_rel);
}

/// Returns the value before the exchange.
static inline uint64_t tn_atomic_exchange(uint64_t *storage, uint64_t value) {
    return atomic_exchange_explicit((_Atomic(uint64_t) *)storage, value, memory_order_acq_rel);
}

// One byte, for a flag that lives inside a Swift object, beside plain fields of its own word (an observation's
// "ended" flag, see `AnySubscription`): distinct memory locations, so the plain fields need no atomics.

static inline uint8_t tn_atomic8_load_acquire(uint8_t *storage) {
    return atomic_load_explicit((_Atomic(uint8_t) *)storage, memory_order_acquire);
}

static inline void tn_atomic8_store_release(uint8_t *storage, uint8_t value) {
    atomic_store_explicit((_Atomic(uint8_t) *)storage, value, memory_order_release);
}

#endif
