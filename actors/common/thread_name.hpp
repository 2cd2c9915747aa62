// Names the calling thread as `top -H`, gdb and /proc/<pid>/task/*/comm
// show it. CAF names every detached actor's thread "caf.actor", so a soak
// that sees the thread count step cannot tell a provider worker from a
// tool worker or a session's archive worker; each detached actor names its
// thread when it starts (its behaviour is made on that thread).
#pragma once

#include <pthread.h>

namespace nb {

/// `name`: at most 15 characters (the kernel's limit; longer is cut).
inline void name_thread(const char* name) {
  char cut[16] = {};
  for (int i = 0; i < 15 && name[i] != '\0'; ++i)
    cut[i] = name[i];
  ::pthread_setname_np(::pthread_self(), cut);
}

} // namespace nb
