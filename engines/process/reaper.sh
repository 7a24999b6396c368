# Quire's reaper: ends the helper processes and removes the temp folders the server registered, once the server is gone.
# Started by engines/process/reaper.ts in a session of its own, so that no signal meant for the server's process group
# reaches it. Usage: sh reaper.sh <registry dir>. Standard input is a pipe from the server, never written to: it reads
# end-of-file when the server exits, however it exits (SIGKILL included). The registry holds one file per registration:
# `group-<pgid>` (a process group to SIGKILL: LibreOffice, Chromium; inside, the start time of its leader, so that a
# group id reused by another program since is left alone) and `path-<id>` (a folder to remove, named inside).
registry=$1
while read -r _; do :; done
for entry in "$registry"/group-*; do
  [ -e "$entry" ] || continue
  pgid=${entry##*/group-}
  stat=$(cat "/proc/$pgid/stat" 2>/dev/null) || continue
  # Field 22 of /proc/<pid>/stat, the start time; counted after the command name, which may hold spaces.
  set -- ${stat##*) }
  # dash's kill takes neither `--` nor `-s KILL` before a negative id; `-9 -<pgid>` is the form every sh reads.
  [ "${20}" = "$(cat "$entry")" ] && kill -9 "-$pgid" 2>/dev/null
done
for entry in "$registry"/path-*; do
  [ -e "$entry" ] || continue
  target=$(cat "$entry")
  case "$target" in
    /*/quire-*)
      # Whatever still runs on the folder (Chromium's processes name their profile, soffice its UserInstallation, in
      # their command lines) is ended first: a browser whose leader already exited leaves children writing to it.
      # Twice, half a second apart: a launcher caught starting (LibreOffice's oosplash) may fork its program late.
      for round in 1 2; do
        for cmdline in /proc/[0-9]*/cmdline; do
          if grep -qaF -- "$target" "$cmdline" 2>/dev/null; then
            pid=${cmdline#/proc/}
            kill -9 "${pid%/cmdline}" 2>/dev/null
          fi
        done
        [ "$round" = 1 ] && sleep 0.5
      done
      # A process killed a moment ago may still be closing files in it: try again until it is gone (5 s at most).
      tries=0
      while rm -rf -- "$target" 2>/dev/null; [ -e "$target" ] && [ "$tries" -lt 25 ]; do
        tries=$((tries + 1))
        sleep 0.2
      done
      ;;
  esac
done
rm -rf -- "$registry"
