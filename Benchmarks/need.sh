# Sourced by the benchmarks: `need PROGRAM PACKAGE` installs PACKAGE from Debian when PROGRAM
# is missing; `scratch_folder` makes $work, removed when the benchmark ends.
need() { command -v "$1" >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null; }; }
scratch_folder() {
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}
