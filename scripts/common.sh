# Sourced by scripts/*.sh. Common paths and helpers.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
TREE=$BUILD/linux
KLOCK=/tmp/kbuild.lock
GIT_ID=(-c user.name="Crossrelease Dev" -c user.email="dev@crossrelease.invalid")
# shellcheck source=/dev/null
. "$ROOT/base.version"
say() { echo ">> $*"; }
warn() { echo "!! WARNING: $*" >&2; }
die() { echo "!! ERROR: $*" >&2; exit 1; }
