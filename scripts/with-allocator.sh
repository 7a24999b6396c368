#!/bin/sh
# Runs a command with jemalloc as its C allocator when Debian's libjemalloc2 is installed; `npm start` runs
# the server through it. Typst's PDF export allocates and zeroes large buffers on every render: glibc's
# malloc gives those pages back to the system and faults them in again each time, jemalloc keeps them for
# reuse, and a render costs about a fifth less CPU (docs/configuration.md, "Memory allocator").
# QUIRE_ALLOCATOR=system keeps glibc's malloc.
case "${QUIRE_ALLOCATOR:-jemalloc}" in
  jemalloc)
    # uname from the standard place: the server may be started with a PATH that lacks it.
    lib="/usr/lib/$(PATH=/usr/bin:/bin uname -m)-linux-gnu/libjemalloc.so.2"
    if [ -f "$lib" ]; then
      case " $LD_PRELOAD " in
        *" $lib "*) ;;
        *) LD_PRELOAD="$lib${LD_PRELOAD:+ $LD_PRELOAD}" ;;
      esac
      # jemalloc's defaults: freed pages go back to the system after about 10 s unused. Quicker return
      # (background_thread, dirty_decay_ms 1000) cost throughput under load; MALLOC_CONF tunes it.
      export LD_PRELOAD
    fi
    ;;
  system) ;;
  *)
    echo "quire: QUIRE_ALLOCATOR is \"$QUIRE_ALLOCATOR\"; it must be jemalloc (the default) or system" >&2
    exit 78
    ;;
esac
exec "$@"
