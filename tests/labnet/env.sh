# Sourced by tests/labnet's up.sh, down.sh and compare.sh (after they set
# HERE, their directory): the repository's root and the lab's names, each
# name overridable from the environment (up.sh documents them).
ROOT="$(cd "$HERE/../.." && pwd)"
LABNET_RUN="${LABNET_RUN:-${TMPDIR:-/tmp}/gopcu-labnet}"
LAB_NETNS="${LAB_NETNS:-gopcu-labnet}"
SERVER_NETNS="${SERVER_NETNS:-gopcu-labnet-server}"
