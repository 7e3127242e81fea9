// What TypedNotifications needs from C: atomics (`Atomics.h`) and thread-local state (`ThreadLocals.h`).
#include "Atomics.h"
#include "ThreadLocals.h"
